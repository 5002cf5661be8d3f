/**
 * The count of changes to `memories` (schema generation 11): one row of `change_counts`, kept by
 * triggers on every insert, update and delete of a memory, by any connection, in the same
 * transaction. The caches of what memories hold (records, the word index's answers) are valid
 * while it stays the same, whatever else is written: a background job's commit (a conflict
 * check, embeddings) leaves them in place. Every statement about the count lives here, but for
 * generation 13's update trigger, which skips the usage flush (src/store/usage_sql.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./mod.ts";
 * import { openConnection } from "./sqlite_connection.ts";
 * import { selectMemoryChanges } from "./change_counts_sql.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * (await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` })).close();
 * const connection = openConnection(`${dir}/mema.sqlite3`, { readOnly: true });
 * assert.equal(selectMemoryChanges(connection.db), 0); // no memory written yet
 * connection.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** The table, its row and the three triggers (idempotent: safe on a database that has them). */
export const CHANGE_COUNTS = `
CREATE TABLE IF NOT EXISTS change_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
INSERT OR IGNORE INTO change_counts VALUES ('memories', 0);
CREATE TRIGGER IF NOT EXISTS memories_counted_insert AFTER INSERT ON memories
BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'memories'; END;
CREATE TRIGGER IF NOT EXISTS memories_counted_update AFTER UPDATE ON memories
BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'memories'; END;
CREATE TRIGGER IF NOT EXISTS memories_counted_delete AFTER DELETE ON memories
BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'memories'; END;
`;

/** Whether the database keeps the count (generation 11 or later). */
export function keepsMemoryChanges(db: DatabaseSync): boolean {
  return db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'change_counts'",
  ).get() !== undefined;
}

/** The count now, or undefined when its row is missing. */
export function selectMemoryChanges(db: DatabaseSync): number | undefined {
  const row = db.prepare("SELECT n FROM change_counts WHERE name = 'memories'").get() as
    | { n: number }
    | undefined;
  return row === undefined ? undefined : Number(row.n);
}

/**
 * Counts a change to what the memories' caches hold that changed no memory row (a rebuild of
 * the word index); nothing on a database without the count.
 */
export function countMemoryChange(db: DatabaseSync): void {
  if (keepsMemoryChanges(db)) {
    db.exec("UPDATE change_counts SET n = n + 1 WHERE name = 'memories'");
  }
}
