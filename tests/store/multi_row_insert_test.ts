/**
 * Multi-row inserts (src/store/multi_row_insert.ts) put every row in, in the order given,
 * whatever the count (full statements, the powers of two after them, none), and a conflict
 * clause acts row by row as separate inserts would (a later row meets the earlier ones).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { insertRows, ROWS_PER_INSERT } from "../../src/store/multi_row_insert.ts";

function table(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, n INTEGER)");
  return db;
}

Deno.test("every count of rows goes in, in order", () => {
  for (const count of [0, 1, 3, ROWS_PER_INSERT - 1, ROWS_PER_INSERT, ROWS_PER_INSERT * 3 + 7]) {
    const db = table();
    const rows = Array.from({ length: count }, (_, i) => [`k${i}`, i]);
    insertRows(db, { into: "INSERT INTO t (k, n)", columns: 2 }, rows);
    const stored = db.prepare("SELECT k, n FROM t ORDER BY id").all();
    assert.deepEqual(stored.map((row) => [row.k, row.n]), rows, `${count} rows`);
    db.close();
  }
});

Deno.test("a conflict clause meets the earlier rows of the same call", () => {
  const db = table();
  insertRows(db, {
    into: "INSERT INTO t (k, n)",
    columns: 2,
    tail: "ON CONFLICT (k) DO UPDATE SET n = n + excluded.n",
  }, [["a", 1], ["b", 10], ["a", 2], ["a", 4]]);
  const stored = db.prepare("SELECT k, n FROM t ORDER BY id").all();
  assert.deepEqual(stored.map((row) => [row.k, row.n]), [["a", 7], ["b", 10]]);
  db.close();
});
