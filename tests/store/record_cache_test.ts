import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { takeNotices } from "../../src/conflicts/notices.ts";
import { findMemories } from "../../src/recall/find.ts";
import { RecordCache } from "../../src/store/record_cache.ts";
import type { MemoryRecord } from "../../src/store/types.ts";
import { openTestContext } from "../helpers/context.ts";

/** What `find` shows of the one memory holding `word`. */
async function found(t: Awaited<ReturnType<typeof openTestContext>>, word: string) {
  return (await findMemories(t.ctx, { query: word, status: "any" })).items.map((item) => ({
    id: item.memory.id,
    content: item.memory.content,
    status: item.memory.status,
  }));
}

Deno.test("records read again after a write show the write: update, another connection, rollback", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      subject: "harbour",
      content: "The harbour ferry leaves at nine",
      workspace: "travel",
    });
    // Read twice: the second read is served from the cache.
    assert.deepEqual(await found(t, "ferry"), [{
      id: memoryId,
      content: "The harbour ferry leaves at nine",
      status: "active",
    }]);
    assert.equal((await found(t, "ferry"))[0].content, "The harbour ferry leaves at nine");

    // This process's own update.
    await updateMemory(t.ctx, {
      memoryId,
      edit: { kind: "new_content", content: "The harbour ferry leaves at ten" },
    });
    assert.equal((await found(t, "ferry"))[0].content, "The harbour ferry leaves at ten");

    // Another connection (another process, in life) changes the row behind the store's back.
    const other = new DatabaseSync(t.dbPath);
    other.exec(`UPDATE memories SET status = 'retired' WHERE id = ${memoryId}`);
    other.close();
    assert.equal((await found(t, "ferry"))[0].status, "retired");
    assert.equal(
      await t.store.read(async () => (await t.store.getMemories([memoryId])).get(memoryId)!.status),
      "retired",
    );

    // A write transaction that fails rolls back: what it read inside is not kept.
    await assert.rejects(
      t.store.write(async () => {
        await t.store.changeMemory(memoryId, {
          content: "uncommitted text",
          updatedAt: new Date().toISOString(),
        });
        assert.equal(
          (await t.store.getMemories([memoryId])).get(memoryId)!.content,
          "uncommitted text",
        );
        throw new Error("abort the transaction");
      }),
    );
    assert.equal((await found(t, "ferry"))[0].content, "The harbour ferry leaves at ten");
    assert.equal(
      (await t.store.getMemories([memoryId])).get(memoryId)!.content,
      "The harbour ferry leaves at ten",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("records the store hands out cannot be changed by a caller", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      subject: "kiln",
      content: "The kiln fires at 1200 degrees",
      workspace: "pottery",
      tags: ["studio"],
      metadata: { room: { floor: 2 } },
    });
    const record = await t.store.read(async () =>
      (await t.store.getMemories([memoryId])).get(memoryId)!
    );
    assert.throws(() => (record as { content: string }).content = "changed", TypeError);
    assert.throws(() => (record.tags as string[]).push("extra"), TypeError);
    assert.throws(() => ((record.metadata.room as { floor: number }).floor = 3), TypeError);
    const again = await t.store.read(async () =>
      (await t.store.getMemories([memoryId])).get(memoryId)!
    );
    assert.deepEqual(
      [again.content, again.tags, again.metadata],
      ["The kiln fires at 1200 degrees", ["studio"], { room: { floor: 2 } }],
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("the record cache serves repeats while the library fits, and steps aside for a large one", () => {
  const record = (id: number) => ({ id, tags: [], metadata: {} }) as unknown as MemoryRecord;
  const loads: number[][] = [];
  const load = (ids: readonly number[]) => {
    loads.push([...ids]);
    return new Map(ids.map((id) => [id, record(id)]));
  };
  const small = new RecordCache(4, () => 8);
  small.read("s1", [1, 2], load);
  const again = small.read("s1", [2, 1, 3], load);
  assert.deepEqual([...again.keys()].sort(), [1, 2, 3]);
  assert.deepEqual(loads, [[1, 2], [3]], "only the record not held is loaded");
  small.read("s2", [1], load);
  assert.deepEqual(loads.at(-1), [1], "a new stamp empties the cache");

  loads.length = 0;
  const large = new RecordCache(4, () => 9);
  large.read("s1", [1, 2], load);
  large.read("s1", [1, 2], load);
  assert.deepEqual(loads, [[1, 2], [1, 2]], "a library over twice the cache is not cached");
  assert.equal(large.size, 0);

  // A library grown past twice the cache by this process's own inserts stops being cached too.
  loads.length = 0;
  const growing = new RecordCache(4, () => 7);
  growing.read("s1", [1, 2], load);
  growing.followInserts("s1", "s2", 1);
  growing.read("s2", [1, 2], load);
  assert.deepEqual(loads, [[1, 2]], "8 memories: still cached across the insert");
  growing.followInserts("s2", "s3", 1);
  assert.equal(growing.size, 0, "9 memories: emptied");
  growing.read("s3", [1, 2], load);
  growing.read("s3", [1, 2], load);
  assert.deepEqual(loads, [[1, 2], [1, 2], [1, 2]]);
  assert.equal(growing.size, 0);
});

Deno.test("a notice added after a response found none rides on the next one, from this or another connection", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const notice = (key: string) => ({
      kind: "conflict_opened",
      severity: "normal" as const,
      conflictId: null,
      dedupeKey: key,
      title: `notice ${key}`,
      message: "two facts disagree",
      payload: {},
      createdAt: new Date().toISOString(),
    });
    assert.deepEqual(await takeNotices(t.ctx), []);
    assert.deepEqual(await takeNotices(t.ctx), []); // answered without reading notices

    // This process's own write.
    await t.store.write(async () => await t.store.conflicts.insertNotice(notice("own")));
    assert.deepEqual((await takeNotices(t.ctx)).map((n) => n.new), [1]);
    assert.deepEqual(await takeNotices(t.ctx), []);

    // Another connection (another process, in life) adds one behind the store's back.
    const other = new DatabaseSync(t.dbPath);
    other.exec(
      `INSERT INTO notices (kind, severity, dedupe_key, title, message, payload, status,
         created_at, updated_at) VALUES ('conflict_opened', 'normal', 'other', 'notice other',
         'm', '{}', 'pending', '2026-01-01', '2026-01-01')`,
    );
    other.close();
    assert.deepEqual((await takeNotices(t.ctx)).map((n) => [n.new, n.unhandled]), [[1, 2]]);
  } finally {
    t.cleanup();
  }
});
