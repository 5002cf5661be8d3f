import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { readTokenFile, updateTokenFile } from "../../src/http/access_token_file.ts";
import { TOKEN_FILE_LOCK_STALE_MS } from "../../src/http/access_token_constants.ts";

const record = (name: string) => ({
  name,
  sha256: "0".repeat(63) + name.length,
  client: "team",
  agent_id: name,
  workspaces: ["alpha"],
  created_at: "2026-12-04T00:00:00.000Z",
});

Deno.test("token file: a rewrite waits for another's lock, then gives up writing nothing; a dead one's lock is taken over", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/http_tokens.json`;
    updateTokenFile(path, (file) => file.tokens.push(record("a")));
    const before = Deno.readTextFileSync(path);
    Deno.writeTextFileSync(`${path}.lock`, "");
    assert.throws(
      () => updateTokenFile(path, (file) => file.tokens.push(record("bb"))),
      (error) => error instanceof MemaError && error.code === "storage_busy",
    );
    assert.equal(Deno.readTextFileSync(path), before, "nothing written while locked");
    const old = new Date(Date.now() - TOKEN_FILE_LOCK_STALE_MS - 1_000);
    Deno.utimeSync(`${path}.lock`, old, old);
    updateTokenFile(path, (file) => file.tokens.push(record("bb")));
    assert.deepEqual(readTokenFile(path)?.tokens.map((token) => token.name), ["a", "bb"]);
    assert.throws(() => Deno.statSync(`${path}.lock`), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("token file: a change that throws writes nothing; a malformed file is config_invalid, not half-read", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/http_tokens.json`;
    updateTokenFile(path, (file) => file.tokens.push(record("a")));
    const before = Deno.readTextFileSync(path);
    assert.throws(() =>
      updateTokenFile(path, (file) => {
        file.tokens.push(record("bb"));
        throw new Error("refused");
      }), /refused/);
    assert.equal(Deno.readTextFileSync(path), before);
    for (
      const text of [
        "{",
        JSON.stringify({ format: "mema-http-tokens/2", tokens: [] }),
        JSON.stringify({ format: "mema-http-tokens/1", tokens: [record("a"), record("a")] }),
        JSON.stringify({ format: "mema-http-tokens/1", tokens: [{ ...record("a"), token: "x" }] }),
        JSON.stringify({
          format: "mema-http-tokens/1",
          tokens: [{ ...record("a"), workspaces: [] }],
        }),
      ]
    ) {
      Deno.writeTextFileSync(path, text);
      assert.throws(
        () => readTokenFile(path),
        (error) => error instanceof MemaError && error.code === "config_invalid",
        text,
      );
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
