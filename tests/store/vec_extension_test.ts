import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { loadVecExtension } from "../../src/store/vec_extension.ts";

Deno.test("sqlite-vec loads again after its extracted copy was deleted (a cleaned cache)", async () => {
  const cacheDir = Deno.makeTempDirSync({ prefix: "mema-vec-cache-" });
  try {
    const first = new DatabaseSync(":memory:", { allowExtension: true });
    const loaded = await loadVecExtension(first, { cacheDir });
    assert.ok(loaded.loaded, loaded.loaded ? "" : loaded.error);
    first.close();
    Deno.removeSync(`${cacheDir}/native`, { recursive: true });
    const second = new DatabaseSync(":memory:", { allowExtension: true });
    const again = await loadVecExtension(second, { cacheDir });
    assert.ok(again.loaded, again.loaded ? "" : again.error);
    second.close();
    // Another cache directory gets its own copy.
    const other = Deno.makeTempDirSync({ prefix: "mema-vec-cache-" });
    const third = new DatabaseSync(":memory:", { allowExtension: true });
    const elsewhere = await loadVecExtension(third, { cacheDir: other });
    assert.ok(elsewhere.loaded && elsewhere.path.startsWith(other));
    third.close();
    Deno.removeSync(other, { recursive: true });
  } finally {
    Deno.removeSync(cacheDir, { recursive: true });
  }
});
