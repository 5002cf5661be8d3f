/**
 * The filtered reads of recall on PostgreSQL: {@linkcode RecallRepository}, and the filter every
 * recall channel applies, answering as the SQLite room does (src/store/recall_sql.ts).
 *
 * @module
 */
import type { PendingQuery, Row as DriverRow } from "postgres";
import type { PgCore, PgQuery } from "./core.ts";
import type { RecallRepository } from "../repositories.ts";
import type { RecallFilters } from "../types.ts";
import { countFromKept } from "../library_counts_sql.ts";
import { selectLibraryCounts } from "./library_counts.ts";

/** A query fragment the driver splices into a statement, its values sent as parameters. */
export type Fragment = PendingQuery<DriverRow[]>;

/**
 * The condition every channel applies (alias `m` is `memories`). Times compare as text in
 * byte order (`COLLATE "C"`), as ISO 8601 strings sort, whatever the database's collation.
 */
export function filterCondition(sql: PgQuery, filters: RecallFilters): Fragment {
  const parts: Fragment[] = [sql`m.status = ANY(${filters.statuses as string[]}::text[])`];
  if (filters.workspaces) {
    parts.push(sql`m.workspace_canonical = ANY(${filters.workspaces as string[]}::text[])`);
  }
  if (filters.excludeWorkspaces && filters.excludeWorkspaces.length > 0) {
    parts.push(
      sql`m.workspace_canonical != ALL(${filters.excludeWorkspaces as string[]}::text[])`,
    );
  }
  if (filters.tagsAll && filters.tagsAll.length > 0) {
    parts.push(sql`m.tags @> ${JSON.stringify(filters.tagsAll)}::text::jsonb`);
  }
  if (filters.after) {
    const byTime = sql`coalesce(m.event_time, m.ingest_time) COLLATE "C" >= ${filters.after}`;
    parts.push(
      filters.byValidity
        ? sql`(CASE WHEN m.valid_from IS NULL AND m.valid_to IS NULL THEN ${byTime}
            ELSE m.valid_to IS NULL OR m.valid_to COLLATE "C" > ${filters.after} END)`
        : byTime,
    );
  }
  if (filters.before) {
    const byTime = sql`coalesce(m.event_time, m.ingest_time) COLLATE "C" < ${filters.before}`;
    parts.push(
      filters.byValidity
        ? sql`(CASE WHEN m.valid_from IS NULL AND m.valid_to IS NULL THEN ${byTime}
            ELSE m.valid_from IS NULL OR m.valid_from COLLATE "C" < ${filters.before} END)`
        : byTime,
    );
  }
  if (filters.sourceTypes && filters.sourceTypes.length > 0) {
    parts.push(sql`m.source_type = ANY(${filters.sourceTypes as string[]}::text[])`);
  }
  if (filters.protectionLevels && filters.protectionLevels.length > 0) {
    parts.push(sql`m.protection_level = ANY(${filters.protectionLevels as string[]}::text[])`);
  }
  return parts.reduce((all, part) => sql`${all} AND ${part}`);
}

/** The recall reads over `core`'s pool. */
export function pgRecall(core: PgCore<unknown>): RecallRepository {
  return {
    async browse(filters, page) {
      const sql = core.q();
      const rows = await sql`SELECT m.id FROM memories m WHERE ${filterCondition(sql, filters)}
        ORDER BY coalesce(m.event_time, m.ingest_time) COLLATE "C" DESC, m.id DESC
        LIMIT ${page.limit} OFFSET ${page.offset}`;
      return rows.map((row) => Number(row.id));
    },
    async filterMemoryIds(ids, filters) {
      const found = new Map<number, number>();
      if (ids.length === 0) return found;
      const sql = core.q();
      const rows = await sql`SELECT m.id, m.version FROM memories m
        WHERE m.id = ANY(${ids as number[]}::bigint[]) AND ${filterCondition(sql, filters)}`;
      for (const row of rows) found.set(Number(row.id), Number(row.version));
      return found;
    },
    async followersOf(ids, filters) {
      const found = new Map<number, number>();
      if (ids.length === 0) return found;
      const sql = core.q();
      const rows = await sql`SELECT m.id, m.follows FROM memories m
        WHERE m.follows = ANY(${ids as number[]}::bigint[]) AND ${filterCondition(sql, filters)}`;
      for (const row of rows) found.set(Number(row.id), Number(row.follows));
      return found;
    },
    async countFiltered(filters) {
      const sql = core.q();
      const kept = countFromKept(await selectLibraryCounts(sql, "workspaces"), filters);
      if (kept !== undefined) return kept;
      const [row] = await sql`SELECT count(*) AS n FROM memories m
        WHERE ${filterCondition(sql, filters)}`;
      return Number(row.n);
    },
  };
}
