/**
 * Exit codes as `mema help` documents them (2 for a command line that cannot be understood, in
 * every command) and commands that only read leaving no file behind on a fresh home. Spawns the
 * real main.ts.
 * @module
 */
import assert from "node:assert/strict";
import { makeTempHome, runCli, type TempHome } from "../helpers/server.ts";

/**
 * Every file under the temp home but its caches: Deno's own (kept there when DENO_DIR is unset)
 * and mema's, where `doctor` unpacks the sqlite-vec library it checks; a cache holds no state.
 */
function filesIn(home: TempHome): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = `${dir}/${entry.name}`;
      if (path === `${home.dir}/cache` || path === `${home.dir}/.cache`) continue;
      if (entry.isDirectory) walk(path);
      else found.push(path.slice(home.dir.length + 1));
    }
  };
  walk(home.dir);
  return found.sort();
}

/** Asserts a usage failure: exit 2, nothing on stdout, the reason and where to look on stderr. */
function assertUsage(
  run: { code: number; stdout: string; stderr: string },
  command: string,
  reason: RegExp,
): void {
  assert.equal(run.code, 2, `${command}: ${run.stderr}`);
  assert.equal(run.stdout, "", command);
  assert.match(run.stderr, reason, command);
  assert.match(run.stderr, new RegExp(`mema help ${command}`), command);
}

Deno.test("cli: a bad command line exits 2 in every command, with the help pointer", async () => {
  const home = makeTempHome();
  try {
    assertUsage(await runCli(home, ["export"]), "export", /exactly one directory/);
    assertUsage(
      await runCli(home, ["export", `${home.dir}/out`, "--format", "xml"]),
      "export",
      /--format must be md, jsonl or server-memory, not "xml"/,
    );
    assertUsage(
      await runCli(home, ["export", `${home.dir}/out`, "--include-history"]),
      "export",
      /--include-history needs --format jsonl/,
    );
    assertUsage(await runCli(home, ["import"]), "import", /at least one file or folder/);
    assertUsage(
      await runCli(home, ["import", home.dir, "--split", "pages"]),
      "import",
      /--split must be file or headings/,
    );
    assertUsage(
      await runCli(home, ["import", home.dir, "--source-type", "rumour"]),
      "import",
      /--source-type must be one of/,
    );
    assertUsage(
      await runCli(home, ["import", home.dir, "--source-type", "user_confirmed"]),
      "import",
      /add --authorized/,
    );
    // An unknown flag, in every command.
    for (
      const command of [
        "serve",
        "doctor",
        "setup",
        "scan",
        "import",
        "export",
        "upgrade",
        "copy",
        "console",
        "client",
        "token",
      ]
    ) {
      assertUsage(await runCli(home, [command, "--no-such-flag"]), command, /unknown flag/);
    }
    assert.deepEqual(filesIn(home), [], "a refused command line wrote nothing");
  } finally {
    home.cleanup();
  }
});

Deno.test("cli: scan, doctor and export on a fresh home create no database", async () => {
  const home = makeTempHome();
  try {
    const scan = await runCli(home, ["scan", "--quiet"]);
    assert.equal(scan.code, 0, scan.stderr);
    assert.equal(scan.stdout, "");
    assert.equal(scan.stderr, "");
    const json = await runCli(home, ["scan", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).complete, true);
    await runCli(home, ["doctor"]);
    await runCli(home, ["doctor", "--json"]);
    const exported = await runCli(home, ["export", `${home.dir}/out`]);
    assert.equal(exported.code, 1);
    assert.match(exported.stderr, /no database at .*nothing to export/);
    assert.deepEqual(filesIn(home), []);
  } finally {
    home.cleanup();
  }
});

Deno.test("cli: import --dry-run into a database not created yet leaves no file", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/notes`;
    Deno.mkdirSync(notes);
    Deno.writeTextFileSync(`${notes}/deploy.md`, "# Deploy\n\nDeploys run on Fridays.\n");
    const before = filesIn(home);
    const target = `${home.dir}/new/mema.sqlite3`;
    const run = await runCli(home, ["import", "--dry-run", "--db", target, notes]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /would import 1 file\(s\): 1 new.*dry run: nothing was written/);
    assert.deepEqual(filesIn(home), before);
  } finally {
    home.cleanup();
  }
});
