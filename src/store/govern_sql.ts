/**
 * SQL for governance: status and provenance changes, audit reading, history
 * cleanup, counts for the overview, the todo links and the backup replay log.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { insertAudit } from "./memories_sql.ts";
import type { AuditEntry, MemoryStatus, ProtectionLevel, SourceType } from "./types.ts";

type Row = Record<string, unknown>;

/** Sets status (and superseded_by) of a memory. */
export function updateStatus(
  db: DatabaseSync,
  id: number,
  change: { status: MemoryStatus; supersededBy: number | null; now: string },
): void {
  db.prepare("UPDATE memories SET status = ?, superseded_by = ?, updated_at = ? WHERE id = ?")
    .run(change.status, change.supersededBy, change.now, id);
}

/** Sets provenance trust of a memory. */
export function updateTrust(
  db: DatabaseSync,
  id: number,
  change: { sourceType: SourceType; protectionLevel: ProtectionLevel; now: string },
): void {
  db.prepare(
    "UPDATE memories SET source_type = ?, protection_level = ?, updated_at = ? WHERE id = ?",
  ).run(change.sourceType, change.protectionLevel, change.now, id);
}

/** Sets a memory's metadata object. */
export function updateMetadata(
  db: DatabaseSync,
  id: number,
  metadata: Record<string, unknown>,
): void {
  db.prepare("UPDATE memories SET metadata = ? WHERE id = ?").run(JSON.stringify(metadata), id);
}

/** Filters for reading the audit log. */
export interface AuditQuery {
  memoryId?: number;
  action?: string;
  agentId?: string;
  after?: string;
  /** Only rows about memories of this workspace (strict isolation). */
  workspace?: string;
  limit: number;
  offset: number;
}

/** One stored audit row. */
export interface AuditRecord extends AuditEntry {
  id: number;
}

/** Audit rows, newest first, plus the total matching. */
export function selectAudit(
  db: DatabaseSync,
  query: AuditQuery,
): { rows: AuditRecord[]; total: number } {
  const clauses: string[] = ["1 = 1"];
  const values: SQLInputValue[] = [];
  if (query.memoryId !== undefined) clauses.push("memory_id = ?"), values.push(query.memoryId);
  if (query.action !== undefined) clauses.push("action = ?"), values.push(query.action);
  if (query.agentId !== undefined) clauses.push("agent_id = ?"), values.push(query.agentId);
  if (query.after !== undefined) clauses.push("at >= ?"), values.push(query.after);
  if (query.workspace !== undefined) {
    clauses.push("memory_id IN (SELECT id FROM memories WHERE workspace_canonical = ?)");
    values.push(query.workspace);
  }
  const where = clauses.join(" AND ");
  const rows = db.prepare(
    `SELECT * FROM audit WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
  ).all(...values, query.limit, query.offset) as Row[];
  const total = Number(
    (db.prepare(`SELECT count(*) AS n FROM audit WHERE ${where}`).get(...values) as Row).n,
  );
  return {
    total,
    rows: rows.map(toAuditRecord),
  };
}

/** Converts an `audit` row into a record. */
export function toAuditRecord(row: Row): AuditRecord {
  return {
    id: Number(row.id),
    at: String(row.at),
    action: String(row.action),
    memoryId: row.memory_id === null ? null : Number(row.memory_id),
    agentId: String(row.agent_id),
    client: String(row.client),
    reason: row.reason === null ? null : String(row.reason),
    detail: JSON.parse(String(row.detail)) as Record<string, unknown>,
  };
}

/** Deletes history rows of a memory; returns the versions removed. */
export function deleteHistory(
  db: DatabaseSync,
  memoryId: number,
  versions: readonly number[],
): number[] {
  const removed: number[] = [];
  const remove = db.prepare("DELETE FROM memory_history WHERE memory_id = ? AND version = ?");
  for (const version of versions) {
    if (remove.run(memoryId, version).changes > 0) removed.push(version);
  }
  return removed;
}

/** Counts for the overview: by status, source type and workspace (live memories). */
export function selectOverviewCounts(db: DatabaseSync, workspace?: string): {
  byStatus: Record<string, number>;
  bySource: Record<string, number>;
  byWorkspace: Record<string, number>;
  byProtection: Record<string, number>;
} {
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

/** Memories that were superseded by (merged or retired into) `memoryId`. */
export function selectSupersededBy(db: DatabaseSync, memoryId: number): number[] {
  const rows = db.prepare("SELECT id FROM memories WHERE superseded_by = ? ORDER BY id").all(
    memoryId,
  ) as Row[];
  return rows.map((row) => Number(row.id));
}

/**
 * Active `todo` memories sharing at least one of `tags`, excluding `exclude`,
 * most shared tags first, then newest. `todoMatch`, when the word index exists, is a MATCH
 * expression for the todo tag's tokens in the tags column: the candidates come from the index
 * instead of a scan of every memory's tags (18% of find's time at 10k memories).
 */
export function selectLinkedTodos(
  db: DatabaseSync,
  options: {
    tags: readonly string[];
    exclude: readonly number[];
    todoTag: string;
    limit: number;
    todoMatch?: string;
  },
): { id: number; shared: number }[] {
  if (options.tags.length === 0) return [];
  // With the word index the todo memories come from it first and are joined by id: written as
  // `m.id IN (… MATCH …)` SQLite walked every active memory (15 ms per find at 100k).
  const source = options.todoMatch === undefined ? "memories m" : `(SELECT rowid AS id
       FROM memories_terms WHERE memories_terms MATCH ?) todo
     CROSS JOIN memories m ON m.id = todo.id`;
  const rows = db.prepare(
    `SELECT m.id AS id,
       (SELECT count(*) FROM json_each(m.tags) t WHERE t.value IN (SELECT value FROM json_each(?)))
         AS shared
     FROM ${source}
     WHERE m.status = 'active'
       AND EXISTS (SELECT 1 FROM json_each(m.tags) t WHERE t.value = ?)
       AND m.id NOT IN (SELECT value FROM json_each(?))
       AND shared > 0
     ORDER BY shared DESC, m.ingest_time DESC LIMIT ?`,
  ).all(
    JSON.stringify(options.tags),
    ...(options.todoMatch === undefined ? [] : [options.todoMatch]),
    options.todoTag,
    JSON.stringify(options.exclude),
    options.limit,
  ) as Row[];
  return rows.map((row) => ({ id: Number(row.id), shared: Number(row.shared) }));
}

/** The outcome of an already replayed backup entry, if any. */
export function selectReplay(db: DatabaseSync, entryId: string): string | undefined {
  const row = db.prepare("SELECT outcome FROM backup_replay_log WHERE entry_id = ?").get(entryId) as
    | Row
    | undefined;
  return row ? String(row.outcome) : undefined;
}

/** Logs a replayed backup entry. */
export function insertReplay(
  db: DatabaseSync,
  entry: {
    entryId: string;
    at: string;
    outcome: "applied" | "rejected";
    memoryId: number | null;
    detail: Record<string, unknown>;
  },
): void {
  db.prepare(
    `INSERT INTO backup_replay_log (entry_id, applied_at, outcome, memory_id, detail)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(entry.entryId, entry.at, entry.outcome, entry.memoryId, JSON.stringify(entry.detail));
}

/** How {@linkcode recordCoalescedAudit} bounds a stream of like rows. */
export interface CoalesceWindow {
  /** Rows at or after this time (ISO 8601) are in the current window. */
  since: string;
  /** Most distinct rows of this action in one window; the rest go to `overflow`. */
  maxRows: number;
  /** The row every refusal past `maxRows` is counted in. */
  overflow: AuditEntry;
}

/**
 * Appends an audit row, or counts it in the like row already written in this window: same
 * action, client, agent, reason and `detail.peer`. A counted row's `detail.count` grows by one
 * and `detail.last_at` moves to `entry.at`. Past `maxRows` distinct rows in the window, every
 * further entry counts in the one `overflow` row, so a flood adds at most `maxRows + 1` rows
 * per window, whatever it varies. `detail` must carry `count: 1`.
 */
export function recordCoalescedAudit(
  db: DatabaseSync,
  entry: AuditEntry,
  window: CoalesceWindow,
): "added" | "counted" {
  const find = db.prepare(
    `SELECT id FROM audit
     WHERE action = ? AND at >= ? AND client = ? AND agent_id = ? AND reason IS ?
       AND json_extract(detail, '$.peer') IS ?
     ORDER BY id DESC LIMIT 1`,
  );
  const count = db.prepare(
    `UPDATE audit SET detail = json_set(detail,
       '$.count', coalesce(json_extract(detail, '$.count'), 1) + 1, '$.last_at', ?)
     WHERE id = ?`,
  );
  const like = (candidate: AuditEntry) =>
    find.get(
      candidate.action,
      window.since,
      candidate.client,
      candidate.agentId,
      candidate.reason,
      (candidate.detail.peer as string | undefined) ?? null,
    ) as Row | undefined;
  let target = entry;
  let existing = like(entry);
  if (existing === undefined) {
    const rows = Number(
      (db.prepare("SELECT count(*) AS n FROM audit WHERE action = ? AND at >= ?")
        .get(entry.action, window.since) as Row).n,
    );
    if (rows >= window.maxRows) {
      target = { ...window.overflow, at: entry.at };
      existing = like(target);
    }
  }
  if (existing !== undefined) {
    count.run(entry.at, Number(existing.id));
    return "counted";
  }
  insertAudit(db, target);
  return "added";
}
