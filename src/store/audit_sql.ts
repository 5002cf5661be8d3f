/**
 * SQL of the audit log: reading it (filtered, newest first) and appending a row that a
 * stream of like rows is counted in (refused requests), so a flood stays bounded.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { insertAudit } from "./memories_sql.ts";
import type { AuditEntry } from "./types.ts";

type Row = Record<string, unknown>;

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
