/**
 * Nearest rows come from each process's in-memory copy of the vectors (int8): the neighbours of
 * sqlite-vec's exact scan up to rounding, and current with what any other process wrote, deleted
 * or rebuilt.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import {
  openStore,
  type RecallFilters,
  SCHEMA_GENERATION,
  type Store,
} from "../../src/store/mod.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

const SPACE = "test-model:10:000000000000";
/** Not a multiple of four: the copy pads each vector. */
const DIM = 10;

/**
 * How far the copy's int8 cosine distance may stray from sqlite-vec's float32 one: rounding
 * each of 10 components moves the direction by ~3e-3 at worst (1e-3 for 100 dimensions).
 */
const QUANTIZED_DISTANCE = 5e-3;

/** A deterministic pseudo-random vector (no two alike, none of them zero). */
function vectorOf(seed: number, dim = DIM): Float32Array {
  const out = new Float32Array(dim);
  let x = seed * 2654435761 % 4294967296;
  for (let i = 0; i < dim; i++) {
    x = (x * 1664525 + 1013904223) % 4294967296;
    out[i] = x / 4294967296 - 0.5;
  }
  return out;
}

/** One memory of `sentences` sentences: its evidence rows, subject row included. */
async function memoryRows(t: TestContext, sentences: number, label: string): Promise<number[]> {
  const content = Array.from({ length: sentences }, (_, i) => `Item ${label} ${i} is here.`)
    .join(" ");
  const { memoryId } = await rememberMemory(t.ctx, { content, subject: label, workspace: "w" });
  return (await t.store.rowsOfMemory(memoryId)).map((row) => row.id);
}

async function writeVectors(store: Store, rows: readonly number[], seed = 0): Promise<void> {
  await store.write(async () =>
    await store.writeRowVectors(
      SPACE,
      rows.map((rowId) => ({ rowId, vector: vectorOf(rowId + seed) })),
    )
  );
}

/** sqlite-vec's own answer: inside a write transaction the store scans vec0. */
async function exactNearest(store: Store, query: Float32Array, k: number) {
  let exact: Awaited<ReturnType<Store["nearestRows"]>> = [];
  await store.writeBlocking(async () => {
    exact = await store.nearestRows(query, k);
  });
  return exact;
}

Deno.test("nearest rows match sqlite-vec's exact scan up to the copy's int8 rounding", async () => {
  const t = await openTestContext();
  try {
    assert.equal(t.store.capabilities.vec, true, t.store.capabilities.vecError);
    await t.store.write(async () => await t.store.recreateVecTable(DIM));
    const rows = [
      ...await memoryRows(t, 120, "a"),
      ...await memoryRows(t, 120, "b"),
      ...await memoryRows(t, 60, "c"),
    ];
    await writeVectors(t.store, rows);
    // Vectors removed before the first lookup leave holes in sqlite-vec's chunks.
    const removed = rows.filter((_, i) => i % 7 === 3);
    await t.store.write(async () =>
      await t.store.writeRowVectors(SPACE, removed.map((rowId) => ({ rowId, vector: null })))
    );
    const all = rows.length - removed.length;
    for (const [seed, k] of [[7, 1], [8, 10], [9, 100], [10, 400]]) {
      const query = vectorOf(1_000_000 + seed);
      const exact = new Map(
        (await exactNearest(t.store, query, all)).map((n) => [n.rowId, n.distance]),
      );
      const kth = [...exact.values()][Math.min(k, all) - 1];
      const fast = await t.store.nearestRows(query, k);
      assert.equal(fast.length, Math.min(k, all));
      // The copy is int8: each distance within its rounding of the exact one, and a row is
      // returned only when it is truly among the k nearest or within that rounding of them.
      for (const { rowId, distance } of fast) {
        assert.ok(exact.has(rowId), `k ${k}: a removed row came back`);
        assert.ok(Math.abs(distance - exact.get(rowId)!) < QUANTIZED_DISTANCE, `k ${k}`);
        assert.ok(exact.get(rowId)! <= kth + 2 * QUANTIZED_DISTANCE, `k ${k}`);
      }
      for (let i = 1; i < fast.length; i++) assert.ok(fast[i - 1].distance <= fast[i].distance);
    }
    assert.deepEqual(
      await t.store.nearestRows(new Float32Array(DIM), 5),
      [],
      "no direction, no rows",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("a vector another process writes, deletes or rebuilds is seen by this one", async () => {
  const t = await openTestContext();
  const other = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache-2` });
  try {
    await t.store.write(async () => await t.store.recreateVecTable(DIM));
    const rows = await memoryRows(t, 50, "base");
    await writeVectors(t.store, rows);
    const query = vectorOf(424242);
    const before = await t.store.nearestRows(query, 3);
    assert.equal(before.length, 3);

    // The other process stores a row pointing the query's way: it becomes the nearest.
    const { memoryId } = await rememberMemory({ ...t.ctx, store: other }, {
      content: "A brand new fact.",
      subject: "new",
      workspace: "w",
    });
    const fresh = (await other.rowsOfMemory(memoryId)).map((row) => row.id);
    await other.write(async () =>
      await other.writeRowVectors(SPACE, fresh.map((rowId) => ({ rowId, vector: query })))
    );
    const seen = await t.store.nearestRows(query, 3);
    assert.ok(fresh.includes(seen[0].rowId), JSON.stringify(seen));
    assert.ok(seen[0].distance < QUANTIZED_DISTANCE);

    // New content drops the old rows and their vectors: never returned again.
    await updateMemory({ ...t.ctx, store: other }, {
      memoryId,
      edit: { kind: "new_content", content: "The fact changed entirely." },
    });
    const after = await t.store.nearestRows(query, 3);
    assert.ok(after.every((n) => !fresh.includes(n.rowId)), JSON.stringify(after));
    assert.deepEqual(after.map((n) => n.rowId), before.map((n) => n.rowId));

    // A model switch recreates the table with another size: the copy starts over.
    await other.write(async () => await other.recreateVecTable(DIM + 2));
    assert.deepEqual(await t.store.nearestRows(query, 3), []);
    const wide = vectorOf(rows[0], DIM + 2);
    await other.write(async () =>
      await other.writeRowVectors(SPACE, [{ rowId: rows[0], vector: wide }])
    );
    const rebuilt = await t.store.nearestRows(wide, 10);
    assert.equal(rebuilt.length, 1, "only the vector of the new size");
    assert.equal(rebuilt[0].rowId, rows[0]);
  } finally {
    other.close();
    t.cleanup();
  }
});

Deno.test("a vector written by a transaction that rolls back is never returned", async () => {
  const t = await openTestContext();
  try {
    await t.store.write(async () => await t.store.recreateVecTable(DIM));
    const rows = await memoryRows(t, 20, "r");
    await writeVectors(t.store, rows.slice(1));
    const query = vectorOf(99);
    assert.ok((await t.store.nearestRows(query, 1)).length === 1);
    await assert.rejects(
      t.store.write(async () => {
        await t.store.writeRowVectors(SPACE, [{ rowId: rows[0], vector: query }]);
        // The transaction sees its own vector...
        assert.equal((await t.store.nearestRows(query, 1))[0].rowId, rows[0]);
        throw new Error("roll back");
      }),
      /roll back/,
    );
    // ...and nobody sees it once it rolled back, even after later writes reuse log positions.
    await writeVectors(t.store, rows.slice(1, 3), 1_000);
    const nearest = await t.store.nearestRows(query, rows.length);
    assert.ok(nearest.every((n) => n.rowId !== rows[0]), JSON.stringify(nearest));
    assert.deepEqual(
      nearest.map((n) => n.rowId),
      (await exactNearest(t.store, query, rows.length)).map((n) => n.rowId),
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("a generation-9 database keeps its vectors: the copy loads them, then follows the log", async () => {
  const t = await openTestContext();
  let reopened: Store | undefined;
  try {
    await t.store.write(async () => await t.store.recreateVecTable(DIM));
    const rows = await memoryRows(t, 30, "old");
    await writeVectors(t.store, rows);
    const query = vectorOf(5151);
    const expected = (await exactNearest(t.store, query, 5)).map((n) => n.rowId);
    t.store.close();
    // As generation 9 left it: no change log.
    const db = new DatabaseSync(t.dbPath);
    db.exec("DROP TABLE vector_changes");
    for (const table of ["entity_relations", "entity_mentions", "entity_aliases", "entities"]) {
      db.exec(`DROP TABLE ${table}`);
    }
    db.exec("UPDATE meta SET value = '9' WHERE key = 'schema_generation'");
    db.close();

    reopened = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache` });
    // Every later generation, whatever their number (other work adds migrations at the end).
    const later = Array.from({ length: SCHEMA_GENERATION - 9 }, (_, index) => index + 10);
    assert.deepEqual(reopened.schema.migrated, later);
    assert.equal(reopened.schema.generation, SCHEMA_GENERATION);
    assert.deepEqual((await reopened.nearestRows(query, 5)).map((n) => n.rowId), expected);
    const store = reopened;
    await store.write(async () =>
      await store.writeRowVectors(SPACE, [{ rowId: rows[3], vector: query }])
    );
    assert.equal((await reopened.nearestRows(query, 1))[0].rowId, rows[3]);
  } finally {
    reopened?.close();
    Deno.removeSync(t.dir, { recursive: true });
  }
});

Deno.test("changes pruned from the log before this process read them make it reload", async () => {
  const t = await openTestContext();
  const other = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache-2` });
  try {
    await t.store.write(async () => await t.store.recreateVecTable(DIM));
    const rows = await memoryRows(t, 12, "p");
    await writeVectors(t.store, rows.slice(2));
    const query = vectorOf(777);
    assert.ok((await t.store.nearestRows(query, 1))[0].distance > 1e-3);
    // The other process writes a vector pointing the query's way, then so many more changes
    // that the entry for it is pruned (simulated: the log keeps the newest 10,000).
    await other.write(async () =>
      await other.writeRowVectors(SPACE, [{ rowId: rows[0], vector: query }])
    );
    const db = new DatabaseSync(t.dbPath);
    db.exec("DELETE FROM vector_changes");
    db.close();
    await other.write(async () =>
      await other.writeRowVectors(SPACE, [{ rowId: rows[1], vector: vectorOf(1) }])
    );
    const nearest = await t.store.nearestRows(query, 1);
    assert.equal(nearest[0].rowId, rows[0]);
    assert.ok(nearest[0].distance < QUANTIZED_DISTANCE);
  } finally {
    other.close();
    t.cleanup();
  }
});

Deno.test("nearest current rows name their memory through filters, new versions and another process's writes", async () => {
  const t = await openTestContext();
  const other = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache-2` });
  try {
    await t.store.write(async () => await t.store.recreateVecTable(DIM));
    const store = async (content: string, workspace: string) => {
      const { memoryId } = await rememberMemory(t.ctx, { content, subject: "s", workspace });
      const rows = (await t.store.rowsOfMemory(memoryId)).map((row) => row.id);
      await writeVectors(t.store, rows);
      return { memoryId, rows };
    };
    const alpha = await store("Alpha sails at dawn. Alpha returns at dusk.", "a");
    const beta = await store("Beta stays in port. Beta is painted blue.", "b");
    const query = vectorOf(alpha.rows[0]);
    const active: RecallFilters = { statuses: ["active"] };
    const owners = async (filters = active) =>
      new Map(
        (await t.store.read(async () => await t.store.nearestCurrentRows(query, 20, filters)))
          .map((row) => [row.rowId, row.memoryId]),
      );
    // The same answer as the joined query over the same rows.
    const all = await owners();
    assert.equal(all.size, alpha.rows.length + beta.rows.length);
    const nearest = (await t.store.nearestRows(query, 20)).map((row) => row.rowId);
    assert.deepEqual(all, await t.store.currentRowOwners(nearest, active));
    assert.equal(all.get(alpha.rows[0]), alpha.memoryId);
    assert.equal(all.get(beta.rows[0]), beta.memoryId);

    // A workspace filter keeps the other memory's rows out.
    const onlyA = await owners({ ...active, workspaces: ["a"] });
    assert.deepEqual([...new Set(onlyA.values())], [alpha.memoryId]);

    // Another process retires beta: its rows are no longer current for `active`.
    const raw = new DatabaseSync(t.dbPath);
    raw.exec(`UPDATE memories SET status = 'retired' WHERE id = ${beta.memoryId}`);
    assert.deepEqual([...new Set((await owners()).values())], [alpha.memoryId]);

    // New content: alpha's old rows and vectors are gone; its new rows count once embedded.
    await updateMemory(t.ctx, {
      memoryId: alpha.memoryId,
      edit: { kind: "new_content", content: "Alpha now sails at noon." },
    });
    assert.equal((await owners()).size, 0);
    const fresh = (await t.store.rowsOfMemory(alpha.memoryId)).map((row) => row.id);
    await writeVectors(t.store, fresh);
    assert.deepEqual([...(await owners()).keys()].sort(), [...fresh].sort());
    assert.ok([...(await owners()).values()].every((id) => id === alpha.memoryId));

    // A newer version whose rows are not rebuilt yet: the rows are of an old version.
    raw.exec(`UPDATE memories SET version = version + 1 WHERE id = ${alpha.memoryId}`);
    raw.close();
    assert.equal((await owners()).size, 0);
  } finally {
    other.close();
    t.cleanup();
  }
});
