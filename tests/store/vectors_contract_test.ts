/**
 * The store contract for vectors, on both backends: SQLite (sqlite-vec) and PostgreSQL (portable
 * `real[]` vectors searched through each server's copy) find the same nearest rows at the same
 * distances, keep them to current rows passing the filters, and on PostgreSQL a server's copy
 * follows the vectors another server writes or drops.
 */
import assert from "node:assert/strict";
import { type NewMemory, openStore, type Store } from "../../src/store/mod.ts";
import { openPostgresStore } from "../../src/store/postgres/mod.ts";
import { openScratchPostgres, type RoomsStore } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";
const SPACE = "test-space:3";

type VectorStore = RoomsStore & Pick<Store, "recreateVecTable" | "vecTableExists">;

function memory(content: string, workspace = "w"): NewMemory {
  return testMemory(content, { workspace, workspaceCanonical: workspace });
}

const DIRECTIONS: [string, string, number[] | null][] = [
  ["east", "w", [1, 0, 0]],
  ["north-east", "w", [1, 1, 0]],
  ["north", "v", [0, 1, 0]],
  ["up", "w", [0, 0, 1]],
  ["nowhere", "w", null],
  ["west", "w", [-1, 0.1, 0]],
];

/** One memory per direction with one row each, embedded; resolves with row ids by name. */
async function embed(store: VectorStore): Promise<Record<string, number>> {
  await store.write((tx) => (tx as VectorStore).recreateVecTable(3));
  const rowIds: Record<string, number> = {};
  for (const [name, workspace, vector] of DIRECTIONS) {
    const id = await store.write(async (tx) => {
      const id = await tx.insertMemory(memory(name, workspace));
      await tx.replaceRows({ id, version: 1 }, [
        { kind: "subject", text: name, startOffset: null, endOffset: null, rowIndex: 0 },
      ]);
      return id;
    });
    const [row] = await store.rowsOfMemory(id);
    rowIds[name] = row.id;
    const written = await store.write((tx) =>
      tx.writeRowVectors(SPACE, [{
        rowId: row.id,
        vector: vector === null ? null : new Float32Array(vector),
      }])
    );
    assert.equal(written, 1);
  }
  return rowIds;
}

Deno.test({
  name: `SQLite and PostgreSQL find the same nearest rows at the same distances${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "mema-vectors-" });
    const sqlite = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
    const postgres = await openScratchPostgres();
    try {
      assert.ok(sqlite.capabilities.vec, sqlite.capabilities.vecError);
      const stores: VectorStore[] = [sqlite, postgres.store];
      assert.deepEqual(await Promise.all(stores.map((s) => s.vecTableExists())), [false, false]);
      const ids = await Promise.all(stores.map(embed));
      assert.deepEqual(await Promise.all(stores.map((s) => s.vecTableExists())), [true, true]);
      const names = ids.map((byName) =>
        new Map(Object.entries(byName).map(([name, id]) => [id, name]))
      );
      const query = new Float32Array([1, 0.2, 0]);
      const found = await Promise.all(stores.map((s) => s.nearestRows(query, 4)));
      const named = found.map((rows, i) => rows.map((row) => names[i].get(row.rowId)));
      assert.deepEqual(named[0], ["east", "north-east", "north", "up"]);
      assert.deepEqual(named[1], named[0]);
      for (let i = 0; i < found[0].length; i++) {
        assert.ok(Math.abs(found[0][i].distance - found[1][i].distance) < 1e-6);
      }
      // Kept to current rows passing the filters, with their memories.
      const filtered = await Promise.all(
        stores.map((s) =>
          s.nearestCurrentRows(query, 4, { statuses: ["active"], workspaces: ["w"] })
        ),
      );
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(filtered[i].map((row) => names[i].get(row.rowId)), [
          "east",
          "north-east",
          "up",
        ]);
      }
      const owners = await Promise.all(
        stores.map((s, i) =>
          s.currentRowOwners([ids[i]["east"], ids[i]["north"]], {
            statuses: ["active"],
            workspaces: ["v"],
          })
        ),
      );
      assert.deepEqual(owners.map((map) => map.size), [1, 1]);
      // The row without a direction counts as embedded.
      const counts = await Promise.all(stores.map((s) => s.countRowsToEmbed(SPACE)));
      assert.deepEqual(counts, [{ rows: 6, pending: 0 }, { rows: 6, pending: 0 }]);
      // A new space drops every vector and makes every row pending again.
      await Promise.all(
        stores.map((s) => s.write((tx) => (tx as VectorStore).recreateVecTable(3))),
      );
      assert.deepEqual(await Promise.all(stores.map((s) => s.nearestRows(query, 4))), [[], []]);
      const pending = await Promise.all(stores.map((s) => s.countRowsToEmbed(SPACE)));
      assert.deepEqual(pending, [{ rows: 6, pending: 6 }, { rows: 6, pending: 6 }]);
    } finally {
      sqlite.close();
      await postgres.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: `a PostgreSQL server's vector copy follows another server's writes${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const one = await openScratchPostgres();
    const two = await openPostgresStore(one.url, { poolMax: 2 });
    try {
      const ids = await embed(one.store);
      const query = new Float32Array([0, 1, 0]);
      // Server two loads its copy, then server one drops a row (its memory's rows replaced).
      assert.equal((await two.nearestRows(query, 1))[0].rowId, ids["north"]);
      // "north" is the one memory of workspace v.
      const [northId] = await one.store.workspaceMemoryIds("v");
      await one.store.write((tx) => tx.replaceRows({ id: northId, version: 1 }, []));
      assert.equal((await two.nearestRows(query, 1))[0].rowId, ids["north-east"]);
      const size = await two.vectorMirrorSize();
      assert.equal(size.vectors, 4);
      assert.ok(size.bytes > 0, "the copy reports the memory it holds");
      // Inside a unit, a lookup sees the unit's own new vector before it commits.
      await one.store.write(async (tx) => {
        await tx.writeRowVectors(SPACE, [{
          rowId: ids["up"],
          vector: new Float32Array([0, 1, 0]),
        }]);
        assert.equal((await tx.nearestRows(query, 1))[0].rowId, ids["up"]);
      });
      assert.equal((await two.nearestRows(query, 1))[0].rowId, ids["up"]);
      // A purge's scrub: VACUUM outside any transaction.
      assert.deepEqual(await two.scrubFreedSpace(), {
        vacuumed: true,
        walTruncated: false,
        problems: [],
      });
    } finally {
      await two.close();
      await one.close();
    }
  },
});

Deno.test({
  name:
    `a PostgreSQL server's copy loads thousands of vectors in pages and follows retires and purges${
      SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
    }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const one = await openScratchPostgres();
    const two = await openPostgresStore(one.url, { poolMax: 2 });
    try {
      const store = one.store as unknown as VectorStore;
      // More rows than one page of the copy's load (2,000), spread around the sphere.
      const count = 2_345;
      const { id, rows } = await spreadVectors(store, count);
      // A fresh server loads every vector; its answers are the exact ones up to rounding.
      const query = new Float32Array([0.2, 0.9, -0.1]);
      let exact: { rowId: number; distance: number }[] = [];
      await store.write(async (tx) => {
        exact = await tx.nearestRows(query, count);
      });
      // Lookups arriving together while the copy loads (pages are round trips) all see it whole.
      const together = await Promise.all(
        [1, 2, 3].map(() => two.nearestRows(query, count + 10)),
      );
      assert.deepEqual(together.map((answer) => answer.length), [count, count, count]);
      const found = await two.nearestRows(query, count + 10);
      assert.equal(found.length, count);
      assert.deepEqual(new Set(found.map((n) => n.rowId)), new Set(rows));
      assert.equal((await two.vectorMirrorSize()).vectors, count);
      const exactOf = new Map(exact.map((n) => [n.rowId, n.distance]));
      for (const { rowId, distance } of found) {
        assert.ok(Math.abs(distance - exactOf.get(rowId)!) < 5e-3);
      }
      const active = { statuses: ["active" as const] };
      assert.equal((await two.nearestCurrentRows(query, 5, active)).length, 5);
      // Retired by the other server: its rows keep their vectors but are no longer current.
      await store.write((tx) =>
        tx.setStatus(id, { status: "retired", supersededBy: null, now: new Date().toISOString() })
      );
      assert.deepEqual(await two.nearestCurrentRows(query, 5, active), []);
      // Purged: its rows and vectors are gone from the copy too.
      const record = (await store.getMemory(id))!;
      await store.write((tx) => tx.purgeMemoryContent(record, new Date().toISOString()));
      assert.deepEqual(await two.nearestRows(query, 5), []);
      assert.equal((await two.vectorMirrorSize()).vectors, 0);
    } finally {
      await two.close();
      await one.close();
    }
  },
});

/**
 * A second process's copy loaded in pages (as a serving process loads it between requests):
 * lookups answer at once from the vectors loaded so far, a vector written during the load is
 * seen whichever side of the pages read it falls, and the last page leaves the exact copy.
 */
/**
 * A fresh 3-dimensional space holding one memory of `count` rows whose vectors are spread around
 * the sphere (more than a page of a copy's load when `count` is large).
 */
async function spreadVectors(
  store: VectorStore,
  count: number,
): Promise<{ id: number; rows: number[] }> {
  await store.write((tx) => (tx as VectorStore).recreateVecTable(3));
  const { id, rows } = await store.write(async (tx) => {
    const id = await tx.insertMemory(memory("many rows"));
    await tx.replaceRows(
      { id, version: 1 },
      Array.from({ length: count }, (_, i) => ({
        kind: "sentence" as const,
        text: "many rows",
        startOffset: 0,
        endOffset: 9,
        rowIndex: i,
      })),
    );
    return { id, rows: (await tx.rowsOfMemory(id)).map((row) => row.id) };
  });
  const direction = (i: number) =>
    new Float32Array([Math.cos(i * 0.37), Math.sin(i * 0.37), Math.cos(i * 0.011)]);
  await store.write((tx) =>
    tx.writeRowVectors(SPACE, rows.map((rowId, i) => ({ rowId, vector: direction(i) })))
  );
  return { id, rows };
}

async function pagedLoadContract(one: VectorStore, two: VectorStore): Promise<void> {
  // Past two pages of 2,048 either way (SQLite reads chunks of 1,024, PostgreSQL rows).
  const count = 5_000;
  const { rows } = await spreadVectors(one, count);
  const query = new Float32Array([0.2, 0.9, -0.1]);
  const first = await two.loadVectorCopyPage(2_048);
  assert.equal(first.complete, false);
  assert.equal(first.total, count);
  assert.ok(first.loaded > 0 && first.loaded < count, `one page: ${first.loaded}`);
  assert.deepEqual(await two.vectorCopyLoad(), first);
  // A lookup meanwhile answers from the part loaded, without loading the rest.
  const partial = await two.nearestRows(query, count);
  assert.equal(partial.length, first.loaded);
  assert.equal((await two.vectorCopyLoad()).loaded, first.loaded);
  // Written during the load: a row already read turns to face the query, one not read yet
  // loses its vector, and a new memory's row gets one.
  const [early, late] = [rows[0], rows[count - 1]];
  const added = await one.write(async (tx) => {
    const id = await tx.insertMemory(memory("added"));
    await tx.replaceRows({ id, version: 1 }, [
      { kind: "subject", text: "added", startOffset: null, endOffset: null, rowIndex: 0 },
    ]);
    const [row] = await tx.rowsOfMemory(id);
    await tx.writeRowVectors(SPACE, [
      { rowId: early, vector: query },
      { rowId: late, vector: null },
      { rowId: row.id, vector: new Float32Array([0.2, 0.9, -0.12]) },
    ]);
    return row.id;
  });
  let pages = 1;
  for (let load = first; !load.complete; pages++) load = await two.loadVectorCopyPage(2_048);
  assert.ok(pages >= 3, `pages: ${pages}`);
  const complete = await two.vectorCopyLoad();
  assert.equal(complete.complete, true);
  const found = await two.nearestRows(query, count + 10);
  const expected = new Set([...rows.filter((rowId) => rowId !== late), added]);
  assert.deepEqual(new Set(found.map((n) => n.rowId)), expected);
  assert.equal(found[0].rowId, early);
  assert.ok(found[0].distance < 1e-3);
  // The exact scan (inside a write; sqlite-vec's k stops at 4,096): the same neighbours.
  let exact: { rowId: number; distance: number }[] = [];
  await one.write(async (tx) => {
    exact = await tx.nearestRows(query, 4_000);
  });
  for (const [i, { distance }] of exact.entries()) {
    assert.ok(Math.abs(distance - found[i].distance) < 5e-3);
  }
  // Once the paged load is complete, a copy that must start over (here: a new space) is
  // loaded by the lookup that finds it so, as in any process.
  await one.write(async (tx) => {
    await (tx as VectorStore).recreateVecTable(3);
    await tx.writeRowVectors(SPACE, rows.slice(0, 3).map((rowId) => ({ rowId, vector: query })));
  });
  assert.deepEqual((await two.nearestRows(query, 10)).map((n) => n.rowId), rows.slice(0, 3));
  assert.deepEqual(await two.vectorCopyLoad(), { complete: true, loaded: 3, total: 3 });
}

Deno.test("a SQLite process's vector copy loads in pages, answering from what it holds meanwhile", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mema-vectors-" });
  const one = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
  const two = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache-two` });
  try {
    assert.ok(one.capabilities.vec, one.capabilities.vecError);
    await pagedLoadContract(one, two);
  } finally {
    two.close();
    one.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: `a PostgreSQL server's vector copy loads in pages, answering from what it holds meanwhile${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const one = await openScratchPostgres();
    const two = await openPostgresStore(one.url, { poolMax: 2 });
    try {
      await pagedLoadContract(one.store as unknown as VectorStore, two as unknown as VectorStore);
    } finally {
      await two.close();
      await one.close();
    }
  },
});
