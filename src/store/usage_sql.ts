/**
 * Access statistics of memories on SQLite: how often a memory was returned by `find`, `read` or
 * `batch_read`, and when last (the `access_count` and `last_accessed` columns of `memories`).
 * Written in batches by the usage ledger (src/recall/usage.ts), never per call. A change to
 * these columns alone is not counted as a change to memories (migration 13), so the caches of
 * what memories hold stay warm across a flush.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./mod.ts";
 * import { addAccesses, selectAccessStats } from "./usage_sql.ts";
 * import { openConnection } from "./sqlite_connection.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * (await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` })).close();
 * const connection = openConnection(`${dir}/mema.sqlite3`);
 * assert.equal(addAccesses(connection.db, [{ memoryId: 1, count: 2, at: "2026-01-01T00:00:00.000Z" }]), 0);
 * assert.equal(selectAccessStats(connection.db, [1]).size, 0); // no memory 1
 * connection.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** Accesses of one memory to add: `count` more, the latest at `at` (ISO 8601). */
export interface MemoryAccess {
  memoryId: number;
  count: number;
  at: string;
}

/** A memory's recorded use. */
export interface AccessStat {
  count: number;
  /** ISO 8601, or null when never recorded. */
  lastAccessed: string | null;
}

/**
 * Adds each memory's accesses; `last_accessed` only moves forward. Deleted (purged) memories
 * keep no trace of use. Resolves with the memories changed.
 */
export function addAccesses(db: DatabaseSync, accesses: readonly MemoryAccess[]): number {
  const statement = db.prepare(
    `UPDATE memories SET access_count = access_count + ?,
       last_accessed = CASE WHEN last_accessed IS NULL OR last_accessed < ? THEN ?
         ELSE last_accessed END
     WHERE id = ? AND status <> 'deleted'`,
  );
  let changed = 0;
  for (const access of accesses) {
    changed += Number(statement.run(access.count, access.at, access.at, access.memoryId).changes);
  }
  return changed;
}

/** The recorded use of those of `ids` that were ever accessed. */
export function selectAccessStats(
  db: DatabaseSync,
  ids: readonly number[],
): Map<number, AccessStat> {
  const stats = new Map<number, AccessStat>();
  if (ids.length === 0) return stats;
  const rows = db.prepare(
    `SELECT id, access_count, last_accessed FROM memories
     WHERE id IN (SELECT value FROM json_each(?)) AND access_count > 0`,
  ).all(JSON.stringify(ids)) as { id: number; access_count: number; last_accessed: string }[];
  for (const row of rows) {
    stats.set(Number(row.id), {
      count: Number(row.access_count),
      lastAccessed: row.last_accessed === null ? null : String(row.last_accessed),
    });
  }
  return stats;
}

/**
 * Migration 13: the change count of memories (change_counts_sql.ts) skips updates that move
 * `access_count`, which only the usage flush does; every other update is counted as before.
 */
export const ACCESS_NOT_A_CHANGE = `
DROP TRIGGER IF EXISTS memories_counted_update;
CREATE TRIGGER memories_counted_update AFTER UPDATE ON memories
WHEN old.access_count IS new.access_count
BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'memories'; END;
`;
