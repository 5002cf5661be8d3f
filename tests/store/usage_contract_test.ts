/**
 * The usage room on every backend (tests/store/backends.ts): accesses add up, the last access
 * only moves forward, a deleted memory keeps no trace of use, and only used memories have
 * stats. On SQLite a flush leaves the record cache in place (it changes no memory's content).
 */
import assert from "node:assert/strict";
import { openStore } from "../../src/store/mod.ts";
import { backendTest } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const EARLY = "2026-03-02T08:00:00.000Z";
const LATE = "2026-03-05T08:00:00.000Z";

backendTest(
  "accesses add up; the last access only moves forward; deleted memories stay untouched",
  async (store) => {
    const [used, unused, gone] = await store.write(async (tx) => [
      await tx.insertMemory(testMemory("The staging port is 5433.")),
      await tx.insertMemory(testMemory("Deploys run on Fridays.")),
      await tx.insertMemory(testMemory("An old note.")),
    ]);
    await store.write((tx) =>
      tx.setStatus(gone, { status: "deleted", supersededBy: null, now: EARLY })
    );
    const changed = await store.write((tx) =>
      tx.addAccesses([
        { memoryId: used, count: 2, at: LATE },
        { memoryId: gone, count: 1, at: LATE },
        { memoryId: 999_999, count: 1, at: LATE },
      ])
    );
    assert.equal(changed, 1, "only the live memory that exists changes");
    await store.write((tx) => tx.addAccesses([{ memoryId: used, count: 3, at: EARLY }]));
    const stats = await store.accessStats([used, unused, gone, 999_999]);
    assert.deepEqual([...stats.keys()], [used]);
    assert.deepEqual(stats.get(used), { count: 5, lastAccessed: LATE });
    assert.equal((await store.accessStats([])).size, 0);
    assert.equal(await store.write((tx) => tx.addAccesses([])), 0);
    // The memory itself reads back as written: use is not content.
    const record = await store.getMemory(used);
    assert.equal(record?.content, "The staging port is 5433.");
  },
);

Deno.test("sqlite: a usage flush keeps the record cache (no change to what memories hold)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mema-usage-" });
  const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
  try {
    const id = await store.write((tx) => tx.insertMemory(testMemory("Cached fact.")));
    const before = (await store.getMemories([id])).get(id);
    await store.write((tx) => tx.addAccesses([{ memoryId: id, count: 1, at: LATE }]));
    assert.equal((await store.getMemories([id])).get(id), before, "the same cached record");
    await store.write((tx) => tx.changeMemory(id, { tags: ["x"], updatedAt: LATE }));
    const after = (await store.getMemories([id])).get(id);
    assert.notEqual(after, before, "a real change still refreshes the cache");
    assert.deepEqual(after?.tags, ["x"]);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
