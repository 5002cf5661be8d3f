/**
 * Counts of the tables that grow with the library (schema generation 16): memories by status
 * (and by workspace and status; active ones by workspace and source, and by workspace and
 * protection level, for the overview), history versions, evidence rows and jobs by kind and status,
 * kept in `library_counts` by triggers in the same transaction as the change, by any connection and any path (remember,
 * update, retire, purge, import, copy, jobs). `status` reads a few rows instead of counting
 * a million (docs/ARCHITECTURE.md "Counts that grow with the library"). A row whose count fell to
 * zero stays, and readers leave it out, so the answers match `count(*) ... GROUP BY`.
 *
 * A database opened read-only below generation 16 has no table: the readers then count by scan.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./mod.ts";
 * import { openConnection } from "./sqlite_connection.ts";
 * import { selectStatusCounts } from "./library_counts_sql.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * (await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` })).close();
 * const connection = openConnection(`${dir}/mema.sqlite3`, { readOnly: true });
 * assert.deepEqual(selectStatusCounts(connection.db), {}); // no memory written yet
 * connection.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { RecallFilters } from "./types.ts";

type Row = Record<string, unknown>;

/** What one trigger adds: `counted` names the table's count, `kind`/`status` its part. */
function bump(counted: string, kind: string, status: string, delta: 1 | -1): string {
  return `INSERT INTO library_counts (counted, kind, status, n) VALUES ('${counted}', ${kind}, ${status}, ${delta})
  ON CONFLICT (counted, kind, status) DO UPDATE SET n = n + excluded.n;`;
}

/** {@linkcode bump} when `condition` holds of the row. */
function bumpIf(
  condition: string,
  counted: string,
  part: { kind: string; status: string },
  delta: 1 | -1,
): string {
  return `INSERT INTO library_counts (counted, kind, status, n)
  SELECT '${counted}', ${part.kind}, ${part.status}, ${delta} WHERE ${condition}
  ON CONFLICT (counted, kind, status) DO UPDATE SET n = n + excluded.n;`;
}

/**
 * The parts one memory row counts in (`row` is NEW or OLD): its status, its workspace and status,
 * and, while active, its workspace and source, and its workspace and protection level.
 */
function memoryBumps(row: "NEW" | "OLD", delta: 1 | -1): string {
  const active = `${row}.status = 'active'`;
  const workspace = `${row}.workspace_canonical`;
  return [
    bump("memories", "''", `${row}.status`, delta),
    bump("workspaces", workspace, `${row}.status`, delta),
    bumpIf(active, "sources", { kind: workspace, status: `${row}.source_type` }, delta),
    bumpIf(active, "protections", { kind: workspace, status: `${row}.protection_level` }, delta),
  ].join("\n");
}

/** An evidence row embedded in a space counts in that space's part of `embedded`. */
function embeddedBump(row: "NEW" | "OLD", delta: 1 | -1): string {
  return bumpIf(
    `${row}.embedding_space IS NOT NULL`,
    "embedded",
    { kind: `${row}.embedding_space`, status: "''" },
    delta,
  );
}

const TRIGGERS = [
  "memories_insert",
  "memories_delete",
  "memories_status",
  "history_insert",
  "history_delete",
  "rows_insert",
  "rows_delete",
  "rows_space",
  "jobs_insert",
  "jobs_delete",
  "jobs_status",
];

/**
 * The statements that count the tables afresh (a migration's first counts), on both backends:
 * `shard` is the PostgreSQL shard they go to (postgres/library_counts.ts); SQLite has none.
 */
export function firstCountsSql(shard?: number): string {
  const into = shard === undefined
    ? "INSERT INTO library_counts (counted, kind, status, n)\n  SELECT "
    : `INSERT INTO library_counts (shard, counted, kind, status, n)\n  SELECT ${shard}, `;
  return `${into}'memories', '', status, count(*) FROM memories GROUP BY status;
${into}'workspaces', workspace_canonical, status, count(*) FROM memories
  GROUP BY workspace_canonical, status;
${into}'sources', workspace_canonical, source_type, count(*) FROM memories
  WHERE status = 'active' GROUP BY workspace_canonical, source_type;
${into}'protections', workspace_canonical, protection_level, count(*) FROM memories
  WHERE status = 'active' GROUP BY workspace_canonical, protection_level;
${into}'history', '', '', count(*) FROM memory_history;
${into}'rows', '', '', count(*) FROM memory_rows;
${into}'embedded', embedding_space, '', count(*) FROM memory_rows
  WHERE embedding_space IS NOT NULL GROUP BY embedding_space;
${into}'jobs', kind, status, count(*) FROM jobs GROUP BY kind, status;
`;
}

/**
 * The table, its triggers and its first counts (inside the migration's transaction). Run again on
 * a database that has them, it counts afresh: the counts are derived data.
 */
export const LIBRARY_COUNTS = `
${TRIGGERS.map((name) => `DROP TRIGGER IF EXISTS library_counts_${name};`).join("\n")}
DROP TABLE IF EXISTS library_counts;
CREATE TABLE library_counts (
  counted TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (counted, kind, status)
) WITHOUT ROWID;
CREATE TRIGGER library_counts_memories_insert AFTER INSERT ON memories
BEGIN ${memoryBumps("NEW", 1)} END;
CREATE TRIGGER library_counts_memories_delete AFTER DELETE ON memories
BEGIN ${memoryBumps("OLD", -1)} END;
CREATE TRIGGER library_counts_memories_status
AFTER UPDATE OF status, workspace_canonical, source_type, protection_level ON memories
WHEN OLD.status IS NOT NEW.status OR OLD.workspace_canonical IS NOT NEW.workspace_canonical
  OR OLD.source_type IS NOT NEW.source_type OR OLD.protection_level IS NOT NEW.protection_level
BEGIN ${memoryBumps("OLD", -1)} ${memoryBumps("NEW", 1)} END;
CREATE TRIGGER library_counts_history_insert AFTER INSERT ON memory_history
BEGIN ${bump("history", "''", "''", 1)} END;
CREATE TRIGGER library_counts_history_delete AFTER DELETE ON memory_history
BEGIN ${bump("history", "''", "''", -1)} END;
CREATE TRIGGER library_counts_rows_insert AFTER INSERT ON memory_rows
BEGIN ${bump("rows", "''", "''", 1)} ${embeddedBump("NEW", 1)} END;
CREATE TRIGGER library_counts_rows_delete AFTER DELETE ON memory_rows
BEGIN ${bump("rows", "''", "''", -1)} ${embeddedBump("OLD", -1)} END;
CREATE TRIGGER library_counts_rows_space AFTER UPDATE OF embedding_space ON memory_rows
WHEN OLD.embedding_space IS NOT NEW.embedding_space
BEGIN ${embeddedBump("OLD", -1)} ${embeddedBump("NEW", 1)} END;
CREATE TRIGGER library_counts_jobs_insert AFTER INSERT ON jobs
BEGIN ${bump("jobs", "NEW.kind", "NEW.status", 1)} END;
CREATE TRIGGER library_counts_jobs_delete AFTER DELETE ON jobs
BEGIN ${bump("jobs", "OLD.kind", "OLD.status", -1)} END;
CREATE TRIGGER library_counts_jobs_status AFTER UPDATE OF kind, status ON jobs
WHEN OLD.status IS NOT NEW.status OR OLD.kind IS NOT NEW.kind
BEGIN ${bump("jobs", "OLD.kind", "OLD.status", -1)} ${
  bump("jobs", "NEW.kind", "NEW.status", 1)
} END;
${firstCountsSql()}`;

/** Whether the database keeps the counts (generation 16 or later). */
function keepsCounts(db: DatabaseSync): boolean {
  return db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'library_counts'",
  ).get() !== undefined;
}

/** The non-zero parts of one count: from the table, or by scan (`scan`) without it. */
function parts(db: DatabaseSync, counted: string, scan: string): Row[] {
  return keepsCounts(db)
    ? db.prepare(
      "SELECT kind, status, n FROM library_counts WHERE counted = ? AND n != 0",
    ).all(counted) as Row[]
    : db.prepare(scan).all() as Row[];
}

/** Memories by status (statuses without a memory left out), of one workspace when given. */
export function selectStatusCounts(db: DatabaseSync, workspace?: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const rows = workspace === undefined
    ? parts(
      db,
      "memories",
      "SELECT '' AS kind, status, count(*) AS n FROM memories GROUP BY status",
    )
    : selectWorkspaceCounts(db).filter((part) => part.kind === workspace);
  for (const row of rows) counts[String(row.status)] = Number(row.n);
  return counts;
}

/** One part of a kept count: `kind` is a workspace or a job kind, `status` a status. */
export interface KeptPart {
  kind: string;
  status: string;
  n: number;
}

/** Memories by workspace (`kind`) and status. */
export function selectWorkspaceCounts(db: DatabaseSync): KeptPart[] {
  return parts(
    db,
    "workspaces",
    `SELECT workspace_canonical AS kind, status, count(*) AS n FROM memories
     GROUP BY workspace_canonical, status`,
  ).map((row) => ({ kind: String(row.kind), status: String(row.status), n: Number(row.n) }));
}

/**
 * How many memories pass `filters`, summed from the kept counts by workspace and status, when the
 * filters name nothing else (no tags, times, sources or protection levels); undefined otherwise.
 * The total of a browse (`find` without a query) is thus read, not counted.
 */
export function countFromKept(
  byWorkspace: readonly KeptPart[],
  filters: RecallFilters,
): number | undefined {
  if (
    (filters.tagsAll?.length ?? 0) > 0 || filters.after !== undefined ||
    filters.before !== undefined || (filters.sourceTypes?.length ?? 0) > 0 ||
    (filters.protectionLevels?.length ?? 0) > 0
  ) return undefined;
  const statuses = new Set<string>(filters.statuses);
  const only = filters.workspaces === undefined ? undefined : new Set(filters.workspaces);
  const left = new Set(filters.excludeWorkspaces ?? []);
  return byWorkspace.reduce(
    (sum, part) =>
      statuses.has(part.status) && (only?.has(part.kind) ?? true) && !left.has(part.kind)
        ? sum + part.n
        : sum,
    0,
  );
}

/** What the overview shows: live memories by status, active ones by source, workspace, protection. */
export interface OverviewCounts {
  byStatus: Record<string, number>;
  bySource: Record<string, number>;
  byWorkspace: Record<string, number>;
  byProtection: Record<string, number>;
}

/** The kept parts the overview is made of (each `kind` a workspace). */
export interface OverviewParts {
  workspaces: readonly KeptPart[];
  sources: readonly KeptPart[];
  protections: readonly KeptPart[];
}

/** At most this many keys per overview count, largest first (as the scan's `LIMIT 200`). */
const OVERVIEW_KEYS = 200;

/** The overview (of one workspace, when given) summed from its kept parts. */
export function overviewFromParts(parts: OverviewParts, workspace?: string): OverviewCounts {
  const total = (
    from: readonly KeptPart[],
    key: (part: KeptPart) => string | undefined,
  ): Record<string, number> => {
    const sums = new Map<string, number>();
    for (const part of from) {
      const name = workspace === undefined || part.kind === workspace ? key(part) : undefined;
      if (name !== undefined) sums.set(name, (sums.get(name) ?? 0) + part.n);
    }
    const largest = [...sums].filter(([, n]) => n !== 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, OVERVIEW_KEYS);
    return Object.fromEntries(largest);
  };
  return {
    byStatus: total(parts.workspaces, (p) => p.status === "deleted" ? undefined : p.status),
    bySource: total(parts.sources, (p) => p.status),
    byWorkspace: total(parts.workspaces, (p) => p.status === "active" ? p.kind : undefined),
    byProtection: total(parts.protections, (p) => p.status),
  };
}

/** The overview from the kept counts, or undefined on a database without them. */
export function selectKeptOverview(
  db: DatabaseSync,
  workspace?: string,
): OverviewCounts | undefined {
  if (!keepsCounts(db)) return undefined;
  const of = (counted: string) =>
    (db.prepare("SELECT kind, status, n FROM library_counts WHERE counted = ? AND n != 0")
      .all(counted) as Row[]).map((row) => ({
        kind: String(row.kind),
        status: String(row.status),
        n: Number(row.n),
      }));
  return overviewFromParts(
    { workspaces: of("workspaces"), sources: of("sources"), protections: of("protections") },
    workspace,
  );
}

/** Versions in `memory_history`. */
export function selectHistoryCount(db: DatabaseSync): number {
  const rows = parts(
    db,
    "history",
    "SELECT '' AS kind, '' AS status, count(*) AS n FROM memory_history",
  );
  return rows.reduce((sum, row) => sum + Number(row.n), 0);
}

/** Evidence rows in `memory_rows`. */
export function selectRowCount(db: DatabaseSync): number {
  const rows = parts(db, "rows", "SELECT '' AS kind, '' AS status, count(*) AS n FROM memory_rows");
  return rows.reduce((sum, row) => sum + Number(row.n), 0);
}

/** Evidence rows embedded in `space`. */
export function selectEmbeddedCount(db: DatabaseSync, space: string): number {
  if (!keepsCounts(db)) {
    return Number(
      (db.prepare("SELECT count(*) AS n FROM memory_rows WHERE embedding_space = ?").get(
        space,
      ) as Row).n,
    );
  }
  const row = db.prepare(
    "SELECT n FROM library_counts WHERE counted = 'embedded' AND kind = ? AND status = ''",
  ).get(space) as Row | undefined;
  return row === undefined ? 0 : Number(row.n);
}

/** Jobs by kind, then status. */
export function selectJobCounts(db: DatabaseSync): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  const rows = parts(
    db,
    "jobs",
    "SELECT kind, status, count(*) AS n FROM jobs GROUP BY kind, status",
  );
  for (const row of rows) (counts[String(row.kind)] ??= {})[String(row.status)] = Number(row.n);
  return counts;
}
