/**
 * `spaceCheckpoints` (a bulk import's fewer, larger checkpoints): on every backend the writes
 * made meanwhile are all kept and a checkpoint afterwards succeeds; on SQLite the write-ahead
 * log really does grow past SQLite's default of 1,000 pages before it is folded in, and stays
 * near that default once the spacing is restored.
 */
import assert from "node:assert/strict";
import { openStore } from "../../src/store/mod.ts";
import { backendTest } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

/** ~18 KB of one repeated word, different for each `n`: ~23 WAL pages a memory, index included. */
function bulky(n: number): string {
  return `memory ${n} ${"lorem ".repeat(3_000)}`;
}

backendTest("writes made with spaced checkpoints are all kept", async (store) => {
  await store.spaceCheckpoints(10_000);
  for (let batch = 0; batch < 4; batch++) {
    await store.write(async (tx) => {
      for (let n = 0; n < 5; n++) await tx.insertMemory(testMemory(`batch ${batch} item ${n}`));
    });
  }
  await store.spaceCheckpoints(undefined);
  await store.write(async (tx) => await tx.insertMemory(testMemory("after the import")));
  assert.equal((await store.countByStatus()).active, 21);
  assert.equal((await store.checkpoint()).busy, 0);
});

Deno.test("sqlite: spaced checkpoints let the WAL grow; the default folds it in near 1,000 pages", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-checkpoints-" });
  const path = `${dir}/mema.sqlite3`;
  const store = await openStore(path, { cacheDir: `${dir}/cache`, skipVec: true });
  const walBytes = () => Deno.statSync(`${path}-wal`).size;
  // 160 memories in batches of 10: ~3,700 WAL pages in all, ~230 a batch.
  const writeBatches = async (from: number) => {
    for (let batch = 0; batch < 16; batch++) {
      await store.write(async (tx) => {
        for (let n = 0; n < 10; n++) {
          await tx.insertMemory(testMemory(bulky(from + batch * 10 + n)));
        }
      });
    }
  };
  try {
    await store.spaceCheckpoints(100_000);
    await writeBatches(0);
    const spaced = walBytes();
    await store.checkpoint();
    await store.spaceCheckpoints(undefined);
    await writeBatches(1_000);
    const unspaced = walBytes();
    // Without spacing the log is folded in at 1,000 pages: it never holds more than that and
    // the few batches written while a checkpoint could not yet start over.
    assert.ok(spaced > 3_000 * 4096, `the spaced WAL held ${spaced} bytes`);
    assert.ok(unspaced * 1.5 < spaced, `the WAL held ${unspaced} bytes, spaced ${spaced}`);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
