/**
 * Counts of the tables that grow with the library on PostgreSQL (migration 13), as on SQLite
 * (src/store/library_counts_sql.ts): memories by status and by workspace and status (active ones
 * by workspace and source, and by workspace and protection level), history versions, evidence
 * rows (and those embedded, by space), jobs by kind and status, written by statement triggers in
 * the same transaction as the change.
 *
 * Several servers write at once, so one counter row per count would make every write wait for
 * the last writer's commit. Each writing transaction instead takes one shard of
 * `library_count_shards` with `FOR UPDATE SKIP LOCKED` at its first counted statement (the one its
 * backend id points at when free, else the next free one, else a new shard from a sequence),
 * remembers it in a transaction-local setting, and adds its deltas to that shard's rows of
 * `library_counts`; only the shard's holder writes them, so no write ever
 * waits on another's counts and no two transactions take locks in opposite orders. A reader
 * sums the shards: at most a few hundred rows, whatever the library holds. Statement triggers
 * with transition tables add one aggregated delta per statement, so a bulk insert of a thousand
 * rows costs one upsert, not a thousand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LIBRARY_COUNTS_PG } from "./library_counts.ts";
 *
 * assert.ok(LIBRARY_COUNTS_PG.includes("FOR UPDATE SKIP LOCKED"));
 * ```
 * @module
 */
import type { PgQuery } from "./core.ts";
import { PG_COUNT_SHARDS } from "./constants.ts";
import { firstCountsSql } from "../library_counts_sql.ts";

/** One count a table's rows make: its name, and SQL over a row giving its part. */
interface Counted {
  counted: string;
  kind: string;
  status: string;
  /** Which rows count (all when absent). */
  where?: string;
}

/**
 * The trigger functions of one table, adding to each of `counts`; `updates` adds the trigger that
 * moves a row between parts.
 */
function countedTable(table: string, counts: readonly Counted[], updates: boolean): string {
  const changed = (rows: string, d: number) =>
    counts.map((count) =>
      `SELECT '${count.counted}' AS counted, ${count.kind} AS kind, ${count.status} AS status,
        ${d} AS d FROM ${rows}${count.where === undefined ? "" : ` WHERE ${count.where}`}`
    );
  const fn = (op: "insert" | "delete" | "update") => {
    const sources = op === "insert"
      ? changed("new_rows", 1)
      : op === "delete"
      ? changed("old_rows", -1)
      : [...changed("new_rows", 1), ...changed("old_rows", -1)];
    const tables = op === "insert"
      ? "NEW TABLE AS new_rows"
      : op === "delete"
      ? "OLD TABLE AS old_rows"
      : "OLD TABLE AS old_rows NEW TABLE AS new_rows";
    return `
DROP FUNCTION IF EXISTS mema_counted_${table}_${op}() CASCADE;
CREATE FUNCTION mema_counted_${table}_${op}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM mema_count_deltas(array_agg(counted), array_agg(kind), array_agg(status), array_agg(n))
    FROM (SELECT counted, kind, status, sum(d)::bigint AS n
      FROM (${sources.join(" UNION ALL ")}) AS c
      GROUP BY counted, kind, status HAVING sum(d) <> 0) AS parts
    HAVING count(*) > 0;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER library_counts_${op} AFTER ${op.toUpperCase()} ON ${table}
  REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION mema_counted_${table}_${op}();`;
  };
  return [fn("insert"), fn("delete"), updates ? fn("update") : ""].join("\n");
}

/**
 * Migration 13's statements: the tables, the shard taker, the triggers, then the first counts. Run
 * again on a database that has them (a test rewinding the schema), it counts afresh.
 * The triggers come before the counts: creating one locks its table against writers until the
 * migration commits, so no write falls between the count and the trigger.
 */
export const LIBRARY_COUNTS_PG = `
DROP TABLE IF EXISTS library_counts, library_count_shards;
DROP SEQUENCE IF EXISTS library_count_shard_seq;
DROP FUNCTION IF EXISTS mema_count_deltas CASCADE;
CREATE TABLE library_count_shards (shard INTEGER PRIMARY KEY);
INSERT INTO library_count_shards SELECT generate_series(0, ${PG_COUNT_SHARDS - 1});
CREATE SEQUENCE library_count_shard_seq START ${PG_COUNT_SHARDS};
CREATE TABLE library_counts (
  shard INTEGER NOT NULL,
  counted TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (shard, counted, kind, status)
);
CREATE FUNCTION mema_count_deltas(
  counteds TEXT[], kinds TEXT[], statuses TEXT[], deltas BIGINT[])
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  -- The shard this transaction took at its first counted statement (a setting local to it,
  -- undone with it or with the savepoint that took the shard, as the row lock is).
  taken INTEGER := nullif(current_setting('mema.count_shard', true), '')::integer;
  home INTEGER := pg_backend_pid() % ${PG_COUNT_SHARDS};
BEGIN
  IF taken IS NULL THEN
    SELECT shard INTO taken FROM library_count_shards
      ORDER BY (shard < home), shard
      FOR UPDATE SKIP LOCKED LIMIT 1;
    IF taken IS NULL THEN
      taken := nextval('library_count_shard_seq');
      INSERT INTO library_count_shards VALUES (taken);
    END IF;
    PERFORM set_config('mema.count_shard', taken::text, true);
  END IF;
  INSERT INTO library_counts (shard, counted, kind, status, n)
    SELECT taken, c, k, s, d FROM unnest(counteds, kinds, statuses, deltas) AS u(c, k, s, d)
    ON CONFLICT (shard, counted, kind, status) DO UPDATE SET n = library_counts.n + excluded.n;
END
$fn$;
${
  countedTable("memories", [
    { counted: "memories", kind: "''", status: "status" },
    { counted: "workspaces", kind: "workspace_canonical", status: "status" },
    {
      counted: "sources",
      kind: "workspace_canonical",
      status: "source_type",
      where: "status = 'active'",
    },
    {
      counted: "protections",
      kind: "workspace_canonical",
      status: "protection_level",
      where: "status = 'active'",
    },
  ], true)
}
${countedTable("memory_history", [{ counted: "history", kind: "''", status: "''" }], false)}
${
  countedTable("memory_rows", [
    { counted: "rows", kind: "''", status: "''" },
    {
      counted: "embedded",
      kind: "embedding_space",
      status: "''",
      where: "embedding_space IS NOT NULL",
    },
  ], true)
}
${countedTable("jobs", [{ counted: "jobs", kind: "kind", status: "status" }], true)}
${firstCountsSql(0)}`;

/** One count's non-zero parts, summed over the shards. */
export async function selectLibraryCounts(
  sql: PgQuery,
  counted:
    | "memories"
    | "workspaces"
    | "sources"
    | "protections"
    | "history"
    | "rows"
    | "embedded"
    | "jobs",
): Promise<{ kind: string; status: string; n: number }[]> {
  const rows = await sql`SELECT kind, status, sum(n) AS n FROM library_counts
    WHERE counted = ${counted} GROUP BY kind, status HAVING sum(n) <> 0`;
  return rows.map((row) => ({
    kind: String(row.kind),
    status: String(row.status),
    n: Number(row.n),
  }));
}
