/**
 * Rows written into a SQLite file by `mema copy` and `mema upgrade` (src/store/upgrade_sql.ts
 * `copyRows`): many rows per statement, the last statement partly filled, every row arriving
 * as it was.
 */
import assert from "node:assert/strict";
import { openStore, UpgradeSource } from "../../src/store/mod.ts";
import { COPY_BATCH_ROWS } from "../../src/store/constants.ts";
import { testMemory } from "./memory_rows.ts";

Deno.test("a table of more rows than one insert holds is copied whole, in batches", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mema-copy-rows-" });
  const rows = 2 * COPY_BATCH_ROWS + 7;
  try {
    const from = await openStore(`${dir}/from.sqlite3`, { cacheDir: `${dir}/cache` });
    await from.write(async (tx) => {
      for (let i = 0; i < rows; i++) {
        await tx.insertMemory(testMemory(`fact ${i}`, { tags: [`t${i % 5}`], metadata: { i } }));
      }
    });
    const expected = await from.getMemories([1, COPY_BATCH_ROWS + 1, rows]);
    from.close();
    const source = new UpgradeSource(`${dir}/from.sqlite3`);
    const into = await openStore(`${dir}/into.sqlite3`, { cacheDir: `${dir}/cache` });
    try {
      const [memories] = (await into.tablesToCopyFrom(source))
        .filter((entry) => entry.table === "memories");
      const copied = await into.write((tx) =>
        tx.copyTableFrom(source, "memories", memories.columns)
      );
      assert.equal(copied, rows);
      assert.deepEqual(await into.contentFingerprints(), source.fingerprints());
      assert.deepEqual(await into.getMemories([1, COPY_BATCH_ROWS + 1, rows]), expected);
    } finally {
      source.close();
      into.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
