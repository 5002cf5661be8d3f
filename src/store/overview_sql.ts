/**
 * SQL of the overview's counts: live memories by status, source type, workspace and protection.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { type OverviewCounts, selectKeptOverview } from "./library_counts_sql.ts";

type Row = Record<string, unknown>;

/**
 * Counts for the overview: by status, source type and workspace (live memories); read from the
 * kept counts (library_counts_sql.ts), counted only on a database without them.
 */
export function selectOverviewCounts(db: DatabaseSync, workspace?: string): OverviewCounts {
  const kept = selectKeptOverview(db, workspace);
  if (kept !== undefined) return kept;
  const group = (column: string, where: string) => {
    const counts: Record<string, number> = {};
    const scoped = workspace === undefined ? where : `${where} AND workspace_canonical = ?`;
    const rows = db.prepare(
      `SELECT ${column} AS k, count(*) AS n FROM memories WHERE ${scoped} GROUP BY ${column}
       ORDER BY n DESC LIMIT 200`,
    ).all(...(workspace === undefined ? [] : [workspace])) as Row[];
    for (const row of rows) counts[String(row.k)] = Number(row.n);
    return counts;
  };
  return {
    byStatus: group("status", "status != 'deleted'"),
    bySource: group("source_type", "status = 'active'"),
    byWorkspace: group("workspace_canonical", "status = 'active'"),
    byProtection: group("protection_level", "status = 'active'"),
  };
}
