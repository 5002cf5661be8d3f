/**
 * A PostgreSQL library as the source of `mema copy` (src/store/postgres/copy_source.ts): its
 * tables are read a page at a time in one snapshot, so a copy never holds a table whole, and
 * what arrives in a SQLite file page by page is the whole library, fingerprints and all.
 */
import assert from "node:assert/strict";
import { openStore } from "../../src/store/mod.ts";
import { PostgresCopySource } from "../../src/store/postgres/copy_source.ts";
import { openScratchPostgres } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

Deno.test({
  name: `postgres: a source is read a page at a time in one snapshot and arrives whole${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pg = await openScratchPostgres();
    const dir = await Deno.makeTempDir({ prefix: "mema-copy-source-" });
    const source = await PostgresCopySource.open(pg.url, { pageRows: 3 });
    const target = await openStore(`${dir}/copy.sqlite3`, { cacheDir: `${dir}/cache` });
    try {
      const ids = await pg.store.write(async (tx) => {
        const out: number[] = [];
        for (let i = 0; i < 7; i++) {
          out.push(await tx.insertMemory(testMemory(`fact number ${i}`, { tags: [`t${i}`] })));
        }
        return out;
      });
      const tables = (await target.tablesToCopyFrom(source))
        .filter((entry) => entry.table === "memories");
      await source.load(tables);
      // Written after the snapshot was taken: not in the copy.
      await pg.store.write((tx) => tx.insertMemory(testMemory("written during the copy")));
      assert.equal(source.rowCount("memories"), 7);
      const pages: number[] = [];
      const copied = await target.write(async (tx) => {
        let count = 0;
        for await (const rows of source.pages("memories", tables[0].columns)) {
          pages.push(rows);
          count += await tx.copyTableFrom(source, "memories", tables[0].columns);
        }
        return count;
      });
      assert.deepEqual(pages, [3, 3, 1]);
      assert.equal(copied, 7);
      assert.deepEqual(await target.contentFingerprints(), source.fingerprints());
      const again = await target.getMemories(ids);
      for (const [at, id] of ids.entries()) {
        assert.equal(again.get(id)?.content, `fact number ${at}`);
        assert.deepEqual(again.get(id)?.tags, [`t${at}`]);
      }
    } finally {
      await target.close();
      await source.close();
      await pg.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
