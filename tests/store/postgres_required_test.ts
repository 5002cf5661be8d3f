/**
 * The PostgreSQL store's tests need a PostgreSQL server: without `MEMA_TEST_PG_URL` they fail
 * saying how to get one, and skip only when `MEMA_TEST_SKIP_POSTGRES=1` asks for it, saying so in
 * their names. Runs one contract test file in a child `deno test` without the URL.
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

async function contractFile(env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "tests/store/recall_contract_test.ts"],
    cwd: ROOT,
    clearEnv: true,
    env: {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, text: decode(output.stdout) + decode(output.stderr) };
}

Deno.test("PostgreSQL tests without a server fail with how to get one, or skip when asked to", async () => {
  const missing = await contractFile({});
  assert.notEqual(missing.code, 0, missing.text);
  assert.match(missing.text, /MEMA_TEST_PG_URL is not set: .*apt-get install postgresql/);
  assert.match(missing.text, /MEMA_TEST_SKIP_POSTGRES=1/);
  // The SQLite half of the contract still runs and passes.
  assert.match(missing.text, /sqlite: browse pages the filtered memories, newest first \.\.\. ok/);

  const skipped = await contractFile({ MEMA_TEST_SKIP_POSTGRES: "1" });
  assert.equal(skipped.code, 0, skipped.text);
  assert.match(skipped.text, /postgres: .* SKIPPED \(MEMA_TEST_SKIP_POSTGRES=1\) \.\.\. ignored/);
  assert.match(skipped.text, /\| 2 passed \| 0 failed \| 2 ignored/);
});
