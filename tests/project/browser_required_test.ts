/**
 * The test command needs Chromium for the console's browser tests: without it they fail with
 * how to install it, and skip only when MEMA_TEST_SKIP_BROWSER=1 asks for it, saying so. Runs one
 * browser test file in a child `deno test` with Chromium pointed at a path that does not exist.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

async function browserFile(env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "tests/console/tables_test.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1", MEMA_TEST_CHROMIUM: "/nonexistent/chromium", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, text: decode(output.stdout) + decode(output.stderr) };
}

Deno.test("browser tests without Chromium fail with how to install it, or skip when asked to", async () => {
  const missing = await browserFile({});
  assert.notEqual(missing.code, 0, missing.text);
  assert.match(missing.text, /Chromium not found: .*apt-get install chromium/);
  assert.match(missing.text, /MEMA_TEST_SKIP_BROWSER=1/);

  const skipped = await browserFile({ MEMA_TEST_SKIP_BROWSER: "1" });
  assert.equal(skipped.code, 0, skipped.text);
  assert.match(skipped.text, /SKIPPED \(MEMA_TEST_SKIP_BROWSER=1\)/);
  assert.match(skipped.text, /\| 0 passed \| 0 failed \| 1 ignored/);
});
