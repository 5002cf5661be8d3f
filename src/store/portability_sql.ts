/**
 * SQL for data that leaves and comes back (`mema export`, `mema import`): memories in pages
 * by id, their history in bulk, and the active memory a source was imported into.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { HISTORY_COLUMNS, MEMORY_COLUMNS, toHistoryEntry, toMemoryRecord } from "./memories_sql.ts";
import { deferFrequencies, deferringFrequencies } from "./terms_sql.ts";
import type { HistoryEntry, MemoryRecord, MemoryStatus } from "./types.ts";

type Row = Record<string, unknown>;

/** Which memories a page walks. */
export interface MemoryPageQuery {
  statuses: readonly MemoryStatus[];
  /** Canonical workspace names; undefined spans the library. */
  workspaces?: readonly string[];
  /** Only ids greater than this (the previous page's last id). */
  afterId: number;
  limit: number;
}

/**
 * The filters of a walk. With `rowidOrder`, the unary `+` keeps SQLite off the status and
 * workspace indexes: through them it read every remaining match and sorted it for each
 * page (a temp B-tree per page, quadratic over a million-memory export); walking the table
 * in rowid order from `afterId` reads only what the page needs.
 */
function pageWhere(query: Omit<MemoryPageQuery, "limit" | "afterId">, rowidOrder = false): {
  sql: string;
  values: string[];
} {
  const plus = rowidOrder ? "+" : "";
  const clauses = [`${plus}status IN (SELECT value FROM json_each(?))`];
  const values = [JSON.stringify(query.statuses)];
  if (query.workspaces !== undefined) {
    clauses.push(`${plus}workspace_canonical IN (SELECT value FROM json_each(?))`);
    values.push(JSON.stringify(query.workspaces));
  }
  return { sql: clauses.join(" AND "), values };
}

/** One page of memories in id order (keyset paging: stable while others write). */
export function selectMemoryPage(db: DatabaseSync, query: MemoryPageQuery): MemoryRecord[] {
  const where = pageWhere(query, true);
  const rows = db.prepare(
    `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id > ? AND ${where.sql} ORDER BY id LIMIT ?`,
  ).all(query.afterId, ...where.values, query.limit) as Row[];
  return rows.map(toMemoryRecord);
}

/** How many memories a walk with these filters visits. */
export function countMemories(
  db: DatabaseSync,
  query: Omit<MemoryPageQuery, "limit" | "afterId">,
): number {
  const where = pageWhere(query);
  const row = db.prepare(`SELECT count(*) AS n FROM memories WHERE ${where.sql}`)
    .get(...where.values) as { n: number };
  return Number(row.n);
}

/** The history of several memories, each list oldest version first. */
export function selectHistoryOf(
  db: DatabaseSync,
  memoryIds: readonly number[],
): Map<number, HistoryEntry[]> {
  const found = new Map<number, HistoryEntry[]>();
  if (memoryIds.length === 0) return found;
  const rows = db.prepare(
    `SELECT ${HISTORY_COLUMNS}
     FROM memory_history WHERE memory_id IN (SELECT value FROM json_each(?))
     ORDER BY memory_id, version`,
  ).all(JSON.stringify(memoryIds)) as Row[];
  for (const row of rows) {
    const entry = toHistoryEntry(row);
    const list = found.get(entry.memoryId) ?? [];
    list.push(entry);
    found.set(entry.memoryId, list);
  }
  return found;
}

/** The active memory imported from `sourceRef` into a workspace (the newest, if several). */
export function selectActiveBySourceRef(
  db: DatabaseSync,
  workspaceCanonical: string,
  sourceRef: string,
): MemoryRecord | undefined {
  const row = db.prepare(
    `SELECT ${MEMORY_COLUMNS} FROM memories
     WHERE workspace_canonical = ? AND source_ref = ? AND status = 'active' AND source_ref IS NOT NULL
     ORDER BY id DESC LIMIT 1`,
  ).get(workspaceCanonical, sourceRef) as Row | undefined;
  return row ? toMemoryRecord(row) : undefined;
}

/**
 * Runs `fn` inside a SAVEPOINT of the current write transaction: when it throws, only its own
 * changes are undone (index frequencies held back by a bulk write included) and the error
 * goes on to the caller; the transaction stays usable. One name serves every level: SQLite
 * releases or rolls back the innermost savepoint of that name, and the prepared statements
 * are reused.
 */
export async function withinSavepoint<T>(db: DatabaseSync, fn: () => Promise<T>): Promise<T> {
  db.prepare("SAVEPOINT mema_unit").run();
  try {
    const result = deferringFrequencies(db) ? await deferFrequencies(db, fn) : await fn();
    db.prepare("RELEASE mema_unit").run();
    return result;
  } catch (error) {
    db.prepare("ROLLBACK TO mema_unit").run();
    db.prepare("RELEASE mema_unit").run();
    throw error;
  }
}

/** Runs a bulk write body with index frequencies summed and written once (terms_sql.ts). */
export function withBulkFrequencies<T>(db: DatabaseSync, fn: () => Promise<T>): Promise<T> {
  return deferFrequencies(db, fn);
}
