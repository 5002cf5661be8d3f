/**
 * `deno task install` (scripts/install.ts): the `deno install` shim route must leave a
 * runnable `mema` in `<root>/bin`, also in a new shell whose PATH has no `deno` after the
 * install ran under `npx -y deno@…` (whose Deno is on PATH only while npx runs and lives in
 * npm's cache, which may be cleared). The binary route needs a real `denort`, which the
 * build machines cannot download.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";
import { VERSION } from "../../src/version.ts";

async function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string; stdout: string }> {
  const result = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(result.stdout);
  return { code: result.code, stdout, output: stdout + new TextDecoder().decode(result.stderr) };
}

Deno.test("the shim install puts a runnable mema into <root>/bin", async () => {
  const root = Deno.makeTempDirSync({ prefix: "mema-install-" });
  try {
    const installed = await run(Deno.execPath(), [
      "run",
      "--allow-all",
      `${ROOT}/scripts/install.ts`,
      "--mode",
      "shim",
      "--root",
      root,
    ]);
    assert.equal(installed.code, 0, installed.output);
    assert.match(installed.stdout, /\(shim\): mema /);
    assert.match(installed.stdout, /is not on PATH/);
    const version = await run(`${root}/bin/mema`, ["version"]);
    assert.equal(version.code, 0, version.output);
    assert.equal(version.stdout.trim(), `mema ${VERSION}`);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

/** A PATH directory with only the basic tools a login shell has, and no `deno`. */
function basicPath(): string {
  const dir = Deno.makeTempDirSync({ prefix: "mema-user-path-" });
  for (const tool of ["sh", "env", "ls", "cat"]) {
    for (const source of [`/bin/${tool}`, `/usr/bin/${tool}`]) {
      try {
        Deno.statSync(source);
        Deno.symlinkSync(source, `${dir}/${tool}`);
        break;
      } catch {
        // not in this directory; try the next
      }
    }
  }
  return dir;
}

Deno.test("after an npx install, mema runs in a new shell without deno on PATH", async () => {
  const root = Deno.makeTempDirSync({ prefix: "mema-install-" });
  // Stands in for npx's cache: the Deno that runs the install, on PATH while it runs.
  const npxCache = Deno.makeTempDirSync({ prefix: "mema-npx-cache-" });
  const userPath = basicPath();
  try {
    Deno.copyFileSync(Deno.execPath(), `${npxCache}/deno`);
    Deno.chmodSync(`${npxCache}/deno`, 0o755);
    const installed = await run(`${npxCache}/deno`, [
      "run",
      "--allow-all",
      `${ROOT}/scripts/install.ts`,
      "--",
      "--mode",
      "shim",
      "--root",
      root,
    ], { PATH: `${npxCache}:${userPath}` });
    assert.equal(installed.code, 0, installed.output);
    assert.match(installed.stdout, /\(shim\): mema /);
    // The checkout's own deno.json, not a copy frozen at install time.
    const shim = Deno.readTextFileSync(`${root}/bin/mema`);
    assert.ok(shim.includes(`--config '${ROOT}/deno.json'`), shim);
    assert.ok(shim.includes(`exec '${root}/lib/mema/deno' run`), shim);
    // npm clears its cache; the user opens a new shell whose PATH has no deno.
    Deno.removeSync(npxCache, { recursive: true });
    const which = await run(`${userPath}/sh`, ["-c", "command -v deno || echo none"], {
      PATH: userPath,
    });
    assert.equal(which.stdout.trim(), "none", "deno must not be on the test's PATH");
    const version = await run(`${userPath}/sh`, ["-c", "mema version"], {
      PATH: `${root}/bin:${userPath}`,
    });
    assert.equal(version.code, 0, version.output);
    assert.equal(version.stdout.trim(), `mema ${VERSION}`);
  } finally {
    Deno.removeSync(root, { recursive: true });
    Deno.removeSync(userPath, { recursive: true });
    try {
      Deno.removeSync(npxCache, { recursive: true });
    } catch {
      // removed by the test already
    }
  }
});

/** The cron line of the docs (the scheduled scan, in docs/conflicts.md) without its schedule. */
function readmeCronCommand(): string {
  const page = Deno.readTextFileSync(`${ROOT}/docs/conflicts.md`);
  const block = page.match(/```cron\n([^\n]+)\n```/);
  assert.ok(block, "docs/conflicts.md has a cron block");
  return block[1].trim().split(/\s+/).slice(5).join(" ");
}

Deno.test("the documented cron line runs the installed mema silently; client entries use it", async () => {
  // A user's home: `task install` puts mema in ~/.local, the cron line names $HOME/.local/bin.
  const home = Deno.makeTempDirSync({ prefix: "mema-cron-home-" });
  const userPath = basicPath();
  try {
    const installed = await run(Deno.execPath(), [
      "run",
      "--allow-all",
      `${ROOT}/scripts/install.ts`,
      "--mode",
      "shim",
      "--root",
      `${home}/.local`,
    ]);
    assert.equal(installed.code, 0, installed.output);
    // cron runs `sh -c LINE` with HOME set and a minimal PATH (no deno, no mema).
    const cronEnv = { HOME: home, PATH: userPath, SHELL: "/bin/sh" };
    // A library to scan (a scan never creates one), stored through the installed mema.
    Deno.writeTextFileSync(`${home}/deploy.md`, "# Deploys\n\nDeploys run on Fridays.\n");
    const imported = await run(`${home}/.local/bin/mema`, ["import", `${home}/deploy.md`], cronEnv);
    assert.equal(imported.code, 0, imported.output);
    const line = readmeCronCommand();
    for (const attempt of ["first", "second"]) {
      const scan = await run(`${userPath}/sh`, ["-c", line], cronEnv);
      assert.equal(scan.code, 0, `${attempt}: ${scan.output}`);
      assert.equal(scan.output, "", `${attempt} run: cron would mail this`);
    }
    // The scan ran against that library: its log lies beside the database.
    assert.ok(Deno.statSync(`${home}/.local/share/mema/scan_log.jsonl`).isFile);
    const entry = await run(`${home}/.local/bin/mema`, ["client", "cursor"], cronEnv);
    assert.equal(entry.code, 0, entry.output);
    assert.equal(JSON.parse(entry.stdout).mcpServers.mema.command, `${home}/.local/bin/mema`);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(userPath, { recursive: true });
  }
});
