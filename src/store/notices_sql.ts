/**
 * SQL for notices: what mema tells the agent about conflicts it found, from pending through
 * delivered to dismissed or resolved.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Notice lifecycle: pending → delivered (once) → dismissed/resolved. */
export type NoticeStatus = "pending" | "delivered" | "dismissed" | "resolved";

/** A stored notice. */
export interface NoticeRecord {
  id: number;
  kind: string;
  severity: "info" | "normal";
  conflictId: number | null;
  dedupeKey: string;
  title: string;
  message: string;
  payload: Json;
  status: NoticeStatus;
  createdAt: string;
}

function toNotice(row: Row): NoticeRecord {
  return {
    id: Number(row.id),
    kind: String(row.kind),
    severity: row.severity as NoticeRecord["severity"],
    conflictId: row.conflict_id === null ? null : Number(row.conflict_id),
    dedupeKey: String(row.dedupe_key),
    title: String(row.title),
    message: String(row.message),
    payload: JSON.parse(String(row.payload)),
    status: row.status as NoticeStatus,
    createdAt: String(row.created_at),
  };
}

/** Adds a notice unless one with the same dedupe key ever existed. */
export function insertNotice(
  db: DatabaseSync,
  notice: Omit<NoticeRecord, "id" | "status">,
): number | undefined {
  const result = db.prepare(
    `INSERT INTO notices (kind, severity, conflict_id, dedupe_key, title, message, payload, status,
       created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
     ON CONFLICT(dedupe_key) DO NOTHING`,
  ).run(
    notice.kind,
    notice.severity,
    notice.conflictId,
    notice.dedupeKey,
    notice.title,
    notice.message,
    JSON.stringify(notice.payload),
    notice.createdAt,
    notice.createdAt,
  );
  return result.changes > 0 ? Number(result.lastInsertRowid) : undefined;
}

/** Notices by status, oldest first. */
export function selectNotices(
  db: DatabaseSync,
  query: { statuses: readonly NoticeStatus[]; limit: number; offset: number },
): NoticeRecord[] {
  const rows = db.prepare(
    `SELECT * FROM notices WHERE status IN (SELECT value FROM json_each(?))
     ORDER BY id LIMIT ? OFFSET ?`,
  ).all(JSON.stringify(query.statuses), query.limit, query.offset) as Row[];
  return rows.map(toNotice);
}

/** True when some notice is pending (one step of the status index). */
export function anyPendingNotice(db: DatabaseSync): boolean {
  const row = db.prepare(
    "SELECT EXISTS (SELECT 1 FROM notices WHERE status = 'pending') AS found",
  ).get() as Row;
  return Number(row.found) === 1;
}

/** Reads one notice. */
export function selectNotice(db: DatabaseSync, id: number): NoticeRecord | undefined {
  const row = db.prepare("SELECT * FROM notices WHERE id = ?").get(id) as Row | undefined;
  return row ? toNotice(row) : undefined;
}

/** Moves notices to a status (optionally only those currently in `from`). */
export function updateNoticeStatus(
  db: DatabaseSync,
  ids: readonly number[],
  change: { status: NoticeStatus; from?: readonly NoticeStatus[]; now: string },
): number {
  const from = JSON.stringify(change.from ?? ["pending", "delivered", "dismissed", "resolved"]);
  return Number(
    db.prepare(
      `UPDATE notices SET status = ?, updated_at = ?
       WHERE id IN (SELECT value FROM json_each(?)) AND status IN (SELECT value FROM json_each(?))`,
    ).run(change.status, change.now, JSON.stringify(ids), from).changes,
  );
}

/**
 * Which notices a listing, a count or a bulk change takes. A notice has no workspace or
 * writer of its own: it names memories (`payload.memory_ids`), and the filters read those.
 */
export interface NoticeFilter {
  statuses: readonly NoticeStatus[];
  id?: number;
  /** Only notices that name this memory. */
  memoryId?: number;
  /**
   * Only notices every memory of which is in this canonical workspace (and that name at
   * least one): the rule strict isolation uses, so a filtered caller never reaches a notice
   * that also speaks of another workspace.
   */
  workspace?: string;
  kind?: string;
  severity?: NoticeRecord["severity"];
  conflictId?: number;
  /** Notices created before this ISO time. */
  createdBefore?: string;
  /** Notices created at or after this ISO time. */
  createdAfter?: string;
  /** Source filters: at least one named memory matches (the write that caused the notice). */
  sourceRefPrefix?: string;
  agentId?: string;
  client?: string;
}

function noticeWhere(filter: NoticeFilter): { sql: string; values: SQLInputValue[] } {
  const clauses = ["n.status IN (SELECT value FROM json_each(?))"];
  const values: SQLInputValue[] = [JSON.stringify(filter.statuses)];
  const add = (clause: string, ...more: SQLInputValue[]) => {
    clauses.push(clause);
    values.push(...more);
  };
  if (filter.id !== undefined) add("n.id = ?", filter.id);
  if (filter.memoryId !== undefined) {
    add(
      "EXISTS (SELECT 1 FROM json_each(n.payload, '$.memory_ids') AS j WHERE j.value = ?)",
      filter.memoryId,
    );
  }
  if (filter.kind !== undefined) add("n.kind = ?", filter.kind);
  if (filter.severity !== undefined) add("n.severity = ?", filter.severity);
  if (filter.conflictId !== undefined) add("n.conflict_id = ?", filter.conflictId);
  if (filter.createdBefore !== undefined) add("n.created_at < ?", filter.createdBefore);
  if (filter.createdAfter !== undefined) add("n.created_at >= ?", filter.createdAfter);
  if (filter.workspace !== undefined) {
    add(
      `json_array_length(n.payload, '$.memory_ids') > 0 AND NOT EXISTS (
         SELECT 1 FROM json_each(n.payload, '$.memory_ids') AS j
         LEFT JOIN memories AS m ON m.id = j.value
         WHERE m.id IS NULL OR m.workspace_canonical <> ?)`,
      filter.workspace,
    );
  }
  const source: string[] = [];
  const sourceValues: SQLInputValue[] = [];
  if (filter.sourceRefPrefix !== undefined) {
    source.push("substr(m.source_ref, 1, length(?)) = ?");
    sourceValues.push(filter.sourceRefPrefix, filter.sourceRefPrefix);
  }
  if (filter.agentId !== undefined) {
    source.push("m.agent_id = ?");
    sourceValues.push(filter.agentId);
  }
  if (filter.client !== undefined) {
    source.push("m.client = ?");
    sourceValues.push(filter.client);
  }
  if (source.length > 0) {
    add(
      `EXISTS (SELECT 1 FROM json_each(n.payload, '$.memory_ids') AS j
         JOIN memories AS m ON m.id = j.value WHERE ${source.join(" AND ")})`,
      ...sourceValues,
    );
  }
  return { sql: clauses.join(" AND "), values };
}

/** Notices matching a filter, oldest first. */
export function selectNoticesWhere(
  db: DatabaseSync,
  filter: NoticeFilter,
  page: { limit: number; offset: number },
): NoticeRecord[] {
  const where = noticeWhere(filter);
  const rows = db.prepare(
    `SELECT n.* FROM notices AS n WHERE ${where.sql} ORDER BY n.id LIMIT ? OFFSET ?`,
  ).all(...where.values, page.limit, page.offset) as Row[];
  return rows.map(toNotice);
}

/** How many notices match a filter, by severity and by kind. */
export function countNoticesWhere(
  db: DatabaseSync,
  filter: NoticeFilter,
): { total: number; bySeverity: Record<string, number>; byKind: Record<string, number> } {
  const where = noticeWhere(filter);
  const rows = db.prepare(
    `SELECT n.severity AS severity, n.kind AS kind, count(*) AS n FROM notices AS n
     WHERE ${where.sql} GROUP BY n.severity, n.kind`,
  ).all(...where.values) as Row[];
  const counts = {
    total: 0,
    bySeverity: {} as Record<string, number>,
    byKind: {} as Record<string, number>,
  };
  for (const row of rows) {
    const n = Number(row.n);
    counts.total += n;
    const [severity, kind] = [String(row.severity), String(row.kind)];
    counts.bySeverity[severity] = (counts.bySeverity[severity] ?? 0) + n;
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + n;
  }
  return counts;
}

/** Moves at most `limit` notices matching a filter (oldest first) to a status; returns how many. */
export function updateNoticesWhere(
  db: DatabaseSync,
  filter: NoticeFilter,
  change: { status: NoticeStatus; now: string; limit: number },
): number {
  const where = noticeWhere(filter);
  return Number(
    db.prepare(
      `UPDATE notices SET status = ?, updated_at = ? WHERE id IN (
         SELECT n.id FROM notices AS n WHERE ${where.sql} ORDER BY n.id LIMIT ?)`,
    ).run(change.status, change.now, ...where.values, change.limit).changes,
  );
}

/** Ids of the live notices of a group. */
export function selectNoticesOfConflict(db: DatabaseSync, conflictId: number): number[] {
  const rows = db.prepare(
    "SELECT id FROM notices WHERE conflict_id = ? AND status IN ('pending', 'delivered')",
  ).all(conflictId) as Row[];
  return rows.map((row) => Number(row.id));
}
