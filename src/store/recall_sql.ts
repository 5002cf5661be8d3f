/**
 * SQL behind recall: full-text candidates, bounded LIKE candidates, filtered
 * browsing and honest counts. Every channel applies the same filters in SQL.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { MemoryRecord, RecallFilters } from "./types.ts";
import { countFromKept, selectWorkspaceCounts } from "./library_counts_sql.ts";

type Row = Record<string, unknown>;

interface FilterSql {
  where: string;
  values: SQLInputValue[];
}

/** Builds the WHERE clause shared by every channel (alias `m` is `memories`). */
export function filterSql(filters: RecallFilters): FilterSql {
  const clauses: string[] = [];
  const values: SQLInputValue[] = [];
  clauses.push(`m.status IN (SELECT value FROM json_each(?))`);
  values.push(JSON.stringify(filters.statuses));
  if (filters.workspaces) {
    clauses.push(`m.workspace_canonical IN (SELECT value FROM json_each(?))`);
    values.push(JSON.stringify(filters.workspaces));
  }
  if (filters.excludeWorkspaces && filters.excludeWorkspaces.length > 0) {
    clauses.push(`m.workspace_canonical NOT IN (SELECT value FROM json_each(?))`);
    values.push(JSON.stringify(filters.excludeWorkspaces));
  }
  for (const tag of filters.tagsAll ?? []) {
    clauses.push(`EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?)`);
    values.push(tag);
  }
  if (filters.after) {
    clauses.push(
      filters.byValidity
        ? `(CASE WHEN m.valid_from IS NULL AND m.valid_to IS NULL
             THEN coalesce(m.event_time, m.ingest_time) >= ?
             ELSE m.valid_to IS NULL OR m.valid_to > ? END)`
        : `coalesce(m.event_time, m.ingest_time) >= ?`,
    );
    values.push(filters.after);
    if (filters.byValidity) values.push(filters.after);
  }
  if (filters.before) {
    clauses.push(
      filters.byValidity
        ? `(CASE WHEN m.valid_from IS NULL AND m.valid_to IS NULL
             THEN coalesce(m.event_time, m.ingest_time) < ?
             ELSE m.valid_from IS NULL OR m.valid_from < ? END)`
        : `coalesce(m.event_time, m.ingest_time) < ?`,
    );
    values.push(filters.before);
    if (filters.byValidity) values.push(filters.before);
  }
  if (filters.sourceTypes && filters.sourceTypes.length > 0) {
    clauses.push(`m.source_type IN (SELECT value FROM json_each(?))`);
    values.push(JSON.stringify(filters.sourceTypes));
  }
  if (filters.protectionLevels && filters.protectionLevels.length > 0) {
    clauses.push(`m.protection_level IN (SELECT value FROM json_each(?))`);
    values.push(JSON.stringify(filters.protectionLevels));
  }
  return { where: clauses.join(" AND "), values };
}

/**
 * Whether a memory passes the filters: {@linkcode filterSql}'s test on a record already in
 * hand (tests/store/filter_match_test.ts holds the two to the same answers).
 */
export function recordPassesFilters(memory: MemoryRecord, filters: RecallFilters): boolean {
  if (!filters.statuses.includes(memory.status)) return false;
  const workspace = memory.workspaceCanonical;
  if (filters.workspaces && !filters.workspaces.includes(workspace)) return false;
  if (filters.excludeWorkspaces?.includes(workspace)) return false;
  if (filters.tagsAll?.some((tag) => !memory.tags.includes(tag))) return false;
  const windowed = filters.byValidity && (memory.validFrom !== null || memory.validTo !== null);
  if (windowed) {
    if (filters.after && !(memory.validTo === null || memory.validTo > filters.after)) return false;
    if (filters.before && !(memory.validFrom === null || memory.validFrom < filters.before)) {
      return false;
    }
  } else {
    const time = memory.eventTime ?? memory.ingestTime;
    if (filters.after && !(time >= filters.after)) return false;
    if (filters.before && !(time < filters.before)) return false;
  }
  if (filters.sourceTypes?.length && !filters.sourceTypes.includes(memory.sourceType)) {
    return false;
  }
  if (
    filters.protectionLevels?.length && !filters.protectionLevels.includes(memory.protectionLevel)
  ) return false;
  return true;
}

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function likeSql(terms: readonly string[]): FilterSql {
  const fields = ["m.subject", "m.tags", "m.content"];
  const ors: string[] = [];
  const values: string[] = [];
  for (const term of terms) {
    for (const field of fields) {
      ors.push(`${field} LIKE ? ESCAPE '\\'`);
      values.push(`%${escapeLike(term)}%`);
    }
  }
  return { where: ors.join(" OR "), values };
}

/**
 * Memories whose subject, tags or content contain any of `terms`, newest first,
 * bounded by `limit`: the whole lexical channel when FTS5 is absent.
 */
export function selectLikeHits(
  db: DatabaseSync,
  terms: readonly string[],
  filters: RecallFilters,
  limit: number,
): number[] {
  if (terms.length === 0) return [];
  const { where, values } = filterSql(filters);
  const like = likeSql(terms);
  const rows = db.prepare(
    `SELECT m.id AS id FROM memories m WHERE (${like.where}) AND ${where}
     ORDER BY m.ingest_time DESC, m.id DESC LIMIT ?`,
  ).all(...like.values, ...values, limit) as Row[];
  return rows.map((row) => Number(row.id));
}

/** A page of memories matching only the filters, newest first. */
export function selectBrowsePage(
  db: DatabaseSync,
  filters: RecallFilters,
  page: { limit: number; offset: number },
): number[] {
  const { where, values } = filterSql(filters);
  const rows = db.prepare(
    `SELECT m.id AS id FROM memories m WHERE ${where}
     ORDER BY coalesce(m.event_time, m.ingest_time) DESC, m.id DESC LIMIT ? OFFSET ?`,
  ).all(...values, page.limit, page.offset) as Row[];
  return rows.map((row) => Number(row.id));
}

/** Counts memories matching only the filters (read from the kept counts when they can say). */
export function countFiltered(db: DatabaseSync, filters: RecallFilters): number {
  const kept = countFromKept(selectWorkspaceCounts(db), filters);
  if (kept !== undefined) return kept;
  const { where, values } = filterSql(filters);
  const row = db.prepare(`SELECT count(*) AS n FROM memories m WHERE ${where}`).get(
    ...values,
  ) as Row;
  return Number(row.n);
}

/** Of `ids`, those passing the filters, with their current version. */
export function selectFilteredVersions(
  db: DatabaseSync,
  ids: readonly number[],
  filters: RecallFilters,
): Map<number, number> {
  const found = new Map<number, number>();
  if (ids.length === 0) return found;
  const { where, values } = filterSql(filters);
  const rows = db.prepare(
    `SELECT m.id AS id, m.version AS version FROM memories m
     WHERE m.id IN (SELECT value FROM json_each(?)) AND ${where}`,
  ).all(JSON.stringify(ids), ...values) as Row[];
  for (const row of rows) found.set(Number(row.id), Number(row.version));
  return found;
}

/**
 * Of the evidence rows `rowIds`, those of their memory's current version whose memory passes
 * the filters: row id → memory id (one query for what the vector channel keeps).
 */
export function selectCurrentRowOwners(
  db: DatabaseSync,
  rowIds: readonly number[],
  filters: RecallFilters,
): Map<number, number> {
  const found = new Map<number, number>();
  if (rowIds.length === 0) return found;
  const { where, values } = filterSql(filters);
  // Driven by the id list (CROSS JOIN keeps that order): written as `r.id IN (…)`, SQLite
  // first built an index of the list, twice the time for the vector channel's 100 rows.
  const rows = db.prepare(
    `SELECT r.id AS id, r.memory_id AS memory_id
     FROM (SELECT value AS row_id FROM json_each(?)) wanted
     CROSS JOIN memory_rows r ON r.id = wanted.row_id
     CROSS JOIN memories m ON m.id = r.memory_id
     WHERE r.memory_version = m.version AND ${where}`,
  ).all(JSON.stringify(rowIds), ...values) as Row[];
  for (const row of rows) found.set(Number(row.id), Number(row.memory_id));
  return found;
}

/**
 * True when some memory follows another (one step of the partial index on `follows`): most
 * libraries have none, and `find` then skips the sequence lookups.
 */
function anyFollows(db: DatabaseSync): boolean {
  const row = db.prepare(
    "SELECT EXISTS (SELECT 1 FROM memories WHERE follows IS NOT NULL) AS found",
  ).get() as { found: number };
  return row.found === 1;
}

/** Memories passing the filters that follow one of `ids`: follower id → the id it follows. */
export function selectFollowers(
  db: DatabaseSync,
  ids: readonly number[],
  filters: RecallFilters,
): Map<number, number> {
  const found = new Map<number, number>();
  if (ids.length === 0 || !anyFollows(db)) return found;
  const { where, values } = filterSql(filters);
  const rows = db.prepare(
    `SELECT m.id AS id, m.follows AS follows FROM memories m
     WHERE m.follows IN (SELECT value FROM json_each(?)) AND ${where}`,
  ).all(JSON.stringify(ids), ...values) as Row[];
  for (const row of rows) found.set(Number(row.id), Number(row.follows));
  return found;
}
