/**
 * `deno task install` (scripts/install.ts): the `deno install` shim route must leave a
 * runnable `mema` in `<root>/bin`, also when `deno` itself is not on PATH (Deno from npx).
 * The binary route needs a real `denort`, which the build machines cannot download.
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

Deno.test("without deno on PATH the shim names the deno that installed it", async () => {
  const root = Deno.makeTempDirSync({ prefix: "mema-install-" });
  const emptyPath = Deno.makeTempDirSync({ prefix: "mema-empty-path-" });
  try {
    const installed = await run(Deno.execPath(), [
      "run",
      "--allow-all",
      `${ROOT}/scripts/install.ts`,
      "--mode",
      "shim",
      "--root",
      root,
    ], { PATH: emptyPath });
    assert.equal(installed.code, 0, installed.output);
    const version = await run(`${root}/bin/mema`, ["version"], { PATH: emptyPath });
    assert.equal(version.code, 0, version.output);
    assert.equal(version.stdout.trim(), `mema ${VERSION}`);
  } finally {
    Deno.removeSync(root, { recursive: true });
    Deno.removeSync(emptyPath, { recursive: true });
  }
});
