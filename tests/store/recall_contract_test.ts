/**
 * The store contract for recall's filtered reads, run on every backend (tests/store/backends.ts):
 * status, workspace (in and out), every-tag, time window (event time, else ingest time), source
 * and protection filters select the same memories, in the same order, on SQLite and PostgreSQL.
 */
import assert from "node:assert/strict";
import type { NewMemory, RecallFilters } from "../../src/store/mod.ts";
import { backendTest, type RoomsStore } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

function memory(content: string, overrides: Partial<NewMemory>): NewMemory {
  return testMemory(content, { workspace: "a", workspaceCanonical: "a", ...overrides });
}

/** A small library; resolves with each memory's id by its content. */
async function library(store: RoomsStore): Promise<Record<string, number>> {
  return await store.write(async (tx) => {
    const ids: Record<string, number> = {};
    const add = async (content: string, overrides: Partial<NewMemory> = {}) =>
      ids[content] = await tx.insertMemory(memory(content, overrides));
    await add("jan", { eventTime: "2026-01-15T00:00:00Z", tags: ["todo", "db"] });
    await add("feb", { ingestTime: "2026-02-10T00:00:00Z", tags: ["db"] });
    await add("mar", { eventTime: "2026-03-20T00:00:00Z", sourceType: "user_confirmed" });
    await add("b-one", { workspace: "b", workspaceCanonical: "b", tags: ["todo"] });
    await add("c-one", { workspace: "c", workspaceCanonical: "c", protectionLevel: "locked" });
    await add("retired", { status: "retired", tags: ["todo", "db"] });
    await add("next", { follows: ids["jan"], ingestTime: "2026-01-16T00:00:00Z" });
    await add("b-next", { follows: ids["jan"], workspace: "b", workspaceCanonical: "b" });
    return ids;
  });
}

const ACTIVE: RecallFilters = { statuses: ["active"] };

backendTest("browse pages the filtered memories, newest first", async (store) => {
  const ids = await library(store);
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  const browse = async (filters: RecallFilters, limit = 20, offset = 0) =>
    (await store.browse(filters, { limit, offset })).map((id) => names.get(id));
  // Same time: the higher id first.
  assert.deepEqual(await browse(ACTIVE), [
    "mar",
    "b-next",
    "c-one",
    "b-one",
    "feb",
    "next",
    "jan",
  ]);
  assert.deepEqual(await browse(ACTIVE, 2, 1), ["b-next", "c-one"]);
  assert.deepEqual(await browse({ statuses: ["active", "retired"], tagsAll: ["todo", "db"] }), [
    "retired",
    "jan",
  ]);
  assert.deepEqual(await browse({ ...ACTIVE, workspaces: ["b", "c"] }), [
    "b-next",
    "c-one",
    "b-one",
  ]);
  assert.deepEqual(await browse({ ...ACTIVE, excludeWorkspaces: ["a"] }), [
    "b-next",
    "c-one",
    "b-one",
  ]);
  assert.deepEqual(await browse({ ...ACTIVE, workspaces: [] }), []);
  // The window is [after, before) on the event time, else the ingest time.
  assert.deepEqual(
    await browse({ ...ACTIVE, after: "2026-01-15T00:00:00Z", before: "2026-02-10T00:00:00Z" }),
    ["next", "jan"],
  );
  assert.deepEqual(await browse({ ...ACTIVE, sourceTypes: ["user_confirmed"] }), ["mar"]);
  assert.deepEqual(await browse({ ...ACTIVE, protectionLevels: ["locked"] }), ["c-one"]);
  assert.equal(await store.countFiltered(ACTIVE), 7);
  assert.equal(await store.countFiltered({ ...ACTIVE, tagsAll: ["todo"] }), 2);
  assert.equal(await store.countFiltered({ statuses: ["retired", "deleted"] }), 1);
});

backendTest("filtering ids keeps their versions; followers pass the filters too", async (store) => {
  const ids = await library(store);
  await store.write((tx) =>
    tx.changeMemory(ids["feb"], { version: 3, updatedAt: "2026-03-02T00:00:00Z" })
  );
  const kept = await store.filterMemoryIds(
    [ids["jan"], ids["feb"], ids["retired"], ids["b-one"], 99_999],
    { ...ACTIVE, workspaces: ["a"] },
  );
  assert.deepEqual(
    [...kept].sort((x, y) => x[0] - y[0]),
    [[ids["jan"], 1], [ids["feb"], 3]],
  );
  assert.equal((await store.filterMemoryIds([], ACTIVE)).size, 0);
  const followers = await store.followersOf([ids["jan"], ids["mar"]], ACTIVE);
  assert.deepEqual(
    [...followers].sort((x, y) => x[0] - y[0]),
    [[ids["next"], ids["jan"]], [ids["b-next"], ids["jan"]]],
  );
  const inA = await store.followersOf([ids["jan"]], { ...ACTIVE, workspaces: ["a"] });
  assert.deepEqual([...inA], [[ids["next"], ids["jan"]]]);
});
