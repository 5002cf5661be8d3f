/**
 * SQL for conflict groups, notices and the scheduled scan.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Lifecycle of a conflict group (SPEC §8). */
export type ConflictStatus = "open" | "applying" | "resolved" | "not_a_conflict";

/** One member of a group: a memory at a version, and the row that disagrees. */
export interface ConflictMember {
  memory_id: number;
  version: number;
  row_text: string;
  start_offset: number | null;
  end_offset: number | null;
  /** The member's value as written in its row, when the detector read one (events of issue 14). */
  value?: string;
}

/**
 * One value group of an event: the members that state the same value, however written
 * ("3 days" and "72 hours" are one group). `value` is the first way it was written; `variants`
 * every way members wrote it; `normalized` the comparable amount ("259200 s"), when it has one.
 */
export interface ValueGroup {
  value: string;
  memory_ids: number[];
  variants?: string[];
  normalized?: string;
}

/** One step of a resolution plan. */
export interface PlanStep {
  memory_id: number;
  action:
    | "update_current_claim"
    | "append_superseded_context"
    | "preserve_historical_record"
    | "use_as_resolution";
  status: "pending" | "done" | "failed";
  error?: string;
  done_at?: string;
}

/** A stored conflict group. */
export interface ConflictRecord {
  id: number;
  workspaceCanonical: string;
  status: ConflictStatus;
  revision: number;
  source: "write_time" | "scan" | "agent";
  candidateKey: string;
  members: ConflictMember[];
  valueGroups: ValueGroup[];
  detection: Json;
  chosenValue: string | null;
  decidedBy: string | null;
  decisionRef: string | null;
  decisionReason: string | null;
  plan: PlanStep[];
  planHistory: Json[];
  resolutionMemoryId: number | null;
  createdAt: string;
  updatedAt: string;
}

function toConflict(row: Row): ConflictRecord {
  return {
    id: Number(row.id),
    workspaceCanonical: String(row.workspace_canonical),
    status: row.status as ConflictStatus,
    revision: Number(row.revision),
    source: row.source as ConflictRecord["source"],
    candidateKey: String(row.candidate_key),
    members: JSON.parse(String(row.members)),
    valueGroups: JSON.parse(String(row.value_groups)),
    detection: JSON.parse(String(row.detection)),
    chosenValue: row.chosen_value === null ? null : String(row.chosen_value),
    decidedBy: row.decided_by === null ? null : String(row.decided_by),
    decisionRef: row.decision_ref === null ? null : String(row.decision_ref),
    decisionReason: row.decision_reason === null ? null : String(row.decision_reason),
    plan: JSON.parse(String(row.plan)),
    planHistory: JSON.parse(String(row.plan_history)),
    resolutionMemoryId: row.resolution_memory_id === null ? null : Number(row.resolution_memory_id),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/** A new group; returns its id, or undefined when the same candidate was recorded before. */
export function insertConflict(
  db: DatabaseSync,
  group: Omit<
    ConflictRecord,
    | "id"
    | "revision"
    | "chosenValue"
    | "decidedBy"
    | "decisionRef"
    | "decisionReason"
    | "plan"
    | "planHistory"
    | "resolutionMemoryId"
    | "updatedAt"
  >,
): number | undefined {
  const result = db.prepare(
    `INSERT INTO conflicts (workspace_canonical, status, source, candidate_key, members, value_groups,
       detection, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(candidate_key) DO NOTHING`,
  ).run(
    group.workspaceCanonical,
    group.status,
    group.source,
    group.candidateKey,
    JSON.stringify(group.members),
    JSON.stringify(group.valueGroups),
    JSON.stringify(group.detection),
    group.createdAt,
    group.createdAt,
  );
  if (result.changes === 0) return undefined;
  const id = Number(result.lastInsertRowid);
  const member = db.prepare("INSERT OR IGNORE INTO conflict_members VALUES (?, ?)");
  for (const m of group.members) member.run(id, m.memory_id);
  return id;
}

/** Reads one group. */
export function selectConflict(db: DatabaseSync, id: number): ConflictRecord | undefined {
  const row = db.prepare("SELECT * FROM conflicts WHERE id = ?").get(id) as Row | undefined;
  return row ? toConflict(row) : undefined;
}

/**
 * A conflict lies wholly inside workspace `?` when every member memory is in it (strict
 * isolation shows a caller only those).
 */
const WHOLLY_IN_WORKSPACE = `NOT EXISTS (
  SELECT 1 FROM json_each(conflicts.members) AS member
  JOIN memories m ON m.id = json_extract(member.value, '$.memory_id')
  WHERE m.workspace_canonical != ?)`;

/** Groups by status (and, given one, wholly inside a workspace), newest first, with the total. */
export function selectConflicts(
  db: DatabaseSync,
  query: {
    statuses: readonly ConflictStatus[];
    limit: number;
    offset: number;
    workspace?: string;
  },
): { rows: ConflictRecord[]; total: number } {
  const values: SQLInputValue[] = [JSON.stringify(query.statuses)];
  let where = "status IN (SELECT value FROM json_each(?))";
  if (query.workspace !== undefined) {
    where += ` AND workspace_canonical = ? AND ${WHOLLY_IN_WORKSPACE}`;
    values.push(query.workspace, query.workspace);
  }
  const rows = db.prepare(
    `SELECT * FROM conflicts WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`,
  ).all(...values, query.limit, query.offset) as Row[];
  const total = Number(
    (db.prepare(`SELECT count(*) AS n FROM conflicts WHERE ${where}`).get(...values) as Row).n,
  );
  return { rows: rows.map(toConflict), total };
}

/** Fields a lifecycle step may change. */
export interface ConflictChange {
  status?: ConflictStatus;
  chosenValue?: string | null;
  decidedBy?: string | null;
  decisionRef?: string | null;
  decisionReason?: string | null;
  plan?: PlanStep[];
  planHistory?: Json[];
  resolutionMemoryId?: number | null;
  /** A member joining the event (its `conflict_members` row is added too). */
  members?: ConflictMember[];
  valueGroups?: ValueGroup[];
  now: string;
}

/** Applies a change if the group is still at `expectedRevision`; bumps the revision. */
export function updateConflict(
  db: DatabaseSync,
  id: number,
  expectedRevision: number,
  change: ConflictChange,
): boolean {
  const sets = ["revision = revision + 1", "updated_at = ?"];
  const values: SQLInputValue[] = [change.now];
  const column = (
    name: string,
    value: SQLInputValue,
  ) => (sets.push(`${name} = ?`), values.push(value));
  if (change.status !== undefined) column("status", change.status);
  if (change.chosenValue !== undefined) column("chosen_value", change.chosenValue);
  if (change.decidedBy !== undefined) column("decided_by", change.decidedBy);
  if (change.decisionRef !== undefined) column("decision_ref", change.decisionRef);
  if (change.decisionReason !== undefined) column("decision_reason", change.decisionReason);
  if (change.plan !== undefined) column("plan", JSON.stringify(change.plan));
  if (change.planHistory !== undefined) column("plan_history", JSON.stringify(change.planHistory));
  if (change.resolutionMemoryId !== undefined) {
    column("resolution_memory_id", change.resolutionMemoryId);
  }
  if (change.members !== undefined) column("members", JSON.stringify(change.members));
  if (change.valueGroups !== undefined) column("value_groups", JSON.stringify(change.valueGroups));
  const updated = db.prepare(
    `UPDATE conflicts SET ${sets.join(", ")} WHERE id = ? AND revision = ?`,
  ).run(...values, id, expectedRevision).changes > 0;
  if (updated && change.members !== undefined) {
    const member = db.prepare("INSERT OR IGNORE INTO conflict_members VALUES (?, ?)");
    for (const m of change.members) member.run(id, m.memory_id);
  }
  return updated;
}

/**
 * Keys a pair of rows to the event it went into; false when the key is already taken
 * (by this or another event, or by a group recorded under that candidate key).
 */
export function insertConflictKey(db: DatabaseSync, key: string, conflictId: number): boolean {
  const taken = db.prepare("SELECT 1 FROM conflicts WHERE candidate_key = ?").get(key);
  if (taken !== undefined) return false;
  return db.prepare(
    "INSERT INTO conflict_keys (candidate_key, conflict_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
  ).run(key, conflictId).changes > 0;
}

/** The event a pair key belongs to (its own group or the event it joined), if any. */
export function selectConflictByKey(db: DatabaseSync, key: string): number | undefined {
  const row = (db.prepare("SELECT id FROM conflicts WHERE candidate_key = ?").get(key) ??
    db.prepare("SELECT conflict_id AS id FROM conflict_keys WHERE candidate_key = ?").get(key)) as
      | Row
      | undefined;
  return row ? Number(row.id) : undefined;
}

/** A member a resolution left carrying the replaced claim (see {@link insertStaleClaim}). */
export interface StaleClaim {
  memoryId: number;
  conflictId: number;
  memoryVersion: number;
  holderIds: number[];
  chosenValue: string;
}

/** Records that `memoryId` at `memoryVersion` still carries the claim a resolution replaced. */
export function insertStaleClaim(
  db: DatabaseSync,
  claim: StaleClaim & { now: string },
): void {
  db.prepare(
    `INSERT INTO stale_claims (memory_id, conflict_id, memory_version, holder_ids, chosen_value,
       created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(memory_id, conflict_id) DO UPDATE SET memory_version = excluded.memory_version,
       holder_ids = excluded.holder_ids, chosen_value = excluded.chosen_value`,
  ).run(
    claim.memoryId,
    claim.conflictId,
    claim.memoryVersion,
    JSON.stringify(claim.holderIds),
    claim.chosenValue,
    claim.now,
  );
}

/** True when any claim was replaced (only resolved conflicts leave them). */
function anyStaleClaims(db: DatabaseSync): boolean {
  const row = db.prepare("SELECT EXISTS (SELECT 1 FROM stale_claims) AS found").get() as {
    found: number;
  };
  return row.found === 1;
}

/**
 * Of `memoryIds`, those whose current version still carries a replaced claim (an edit since
 * the resolution ends it: the memory says something new), with the memories holding the
 * chosen value.
 */
export function selectStaleClaims(
  db: DatabaseSync,
  memoryIds: readonly number[],
): Map<number, StaleClaim[]> {
  const found = new Map<number, StaleClaim[]>();
  // Most libraries have none.
  if (memoryIds.length === 0 || !anyStaleClaims(db)) return found;
  const rows = db.prepare(
    `SELECT s.memory_id AS memory_id, s.conflict_id AS conflict_id,
       s.memory_version AS memory_version, s.holder_ids AS holder_ids,
       s.chosen_value AS chosen_value
     FROM stale_claims s CROSS JOIN memories m ON m.id = s.memory_id
     WHERE s.memory_id IN (SELECT value FROM json_each(?)) AND m.version = s.memory_version`,
  ).all(JSON.stringify(memoryIds)) as Row[];
  for (const row of rows) {
    const list = found.get(Number(row.memory_id)) ?? [];
    list.push({
      memoryId: Number(row.memory_id),
      conflictId: Number(row.conflict_id),
      memoryVersion: Number(row.memory_version),
      holderIds: JSON.parse(String(row.holder_ids)),
      chosenValue: String(row.chosen_value),
    });
    found.set(Number(row.memory_id), list);
  }
  return found;
}

/**
 * Unresolved groups (open or applying) each memory belongs to. CROSS JOIN
 * pins the order (members of these memories first): with many open groups
 * the planner otherwise walks every open group.
 */
export function selectOpenConflictsOf(
  db: DatabaseSync,
  memoryIds: readonly number[],
): Map<number, { conflictId: number; status: ConflictStatus; revision: number }[]> {
  const found = new Map<
    number,
    { conflictId: number; status: ConflictStatus; revision: number }[]
  >();
  if (memoryIds.length === 0) return found;
  const rows = db.prepare(
    `SELECT cm.memory_id AS memory_id, c.id AS id, c.status AS status, c.revision AS revision
     FROM conflict_members cm CROSS JOIN conflicts c ON c.id = cm.conflict_id
     WHERE cm.memory_id IN (SELECT value FROM json_each(?)) AND c.status IN ('open', 'applying')`,
  ).all(JSON.stringify(memoryIds)) as Row[];
  for (const row of rows) {
    const list = found.get(Number(row.memory_id)) ?? [];
    list.push({
      conflictId: Number(row.id),
      status: row.status as ConflictStatus,
      revision: Number(row.revision),
    });
    found.set(Number(row.memory_id), list);
  }
  return found;
}

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

/** Counts for status, doctor and overview. */
export function countConflictBacklog(db: DatabaseSync): {
  openConflicts: number;
  applyingConflicts: number;
  pendingNotices: number;
  scanQueuePending: number;
} {
  const n = (sql: string) => Number((db.prepare(sql).get() as Row).n);
  return {
    openConflicts: n("SELECT count(*) AS n FROM conflicts WHERE status = 'open'"),
    applyingConflicts: n("SELECT count(*) AS n FROM conflicts WHERE status = 'applying'"),
    pendingNotices: n("SELECT count(*) AS n FROM notices WHERE status IN ('pending', 'delivered')"),
    scanQueuePending: n("SELECT count(*) AS n FROM scan_queue WHERE status = 'pending'"),
  };
}

/** Live memories to scan after `afterId`: all of them (full) or those changed since their watermark. */
export function selectMemoriesToScan(
  db: DatabaseSync,
  query: { afterId: number; full: boolean; round: string; limit: number },
): { id: number; version: number }[] {
  const rows = db.prepare(
    `SELECT m.id AS id, m.version AS version FROM memories m
     LEFT JOIN scan_state s ON s.memory_id = m.id
     WHERE m.status = 'active' AND m.id > ?
       AND (? = 1 OR s.memory_id IS NULL OR s.scanned_version < m.version)
       AND (s.scanned_round IS NULL OR s.scanned_round != ?)
     ORDER BY m.id LIMIT ?`,
  ).all(query.afterId, query.full ? 1 : 0, query.round, query.limit) as Row[];
  return rows.map((row) => ({ id: Number(row.id), version: Number(row.version) }));
}

/** Counts what a round still has to scan. */
export function countMemoriesToScan(
  db: DatabaseSync,
  query: { afterId: number; full: boolean; round: string },
): number {
  return Number(
    (db.prepare(
      `SELECT count(*) AS n FROM memories m LEFT JOIN scan_state s ON s.memory_id = m.id
       WHERE m.status = 'active' AND m.id > ?
         AND (? = 1 OR s.memory_id IS NULL OR s.scanned_version < m.version)
         AND (s.scanned_round IS NULL OR s.scanned_round != ?)`,
    ).get(query.afterId, query.full ? 1 : 0, query.round) as Row).n,
  );
}

/** Records that a memory version was scanned in a round. */
export function upsertScanState(
  db: DatabaseSync,
  state: { memoryId: number; version: number; round: string; now: string },
): void {
  db.prepare(
    `INSERT INTO scan_state (memory_id, scanned_version, scanned_round, scanned_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(memory_id) DO UPDATE SET scanned_version = excluded.scanned_version,
       scanned_round = excluded.scanned_round, scanned_at = excluded.scanned_at`,
  ).run(state.memoryId, state.version, state.round, state.now);
}

/** A suspect pair waiting for the agent's decision. */
export interface ScanItem {
  id: number;
  candidateKey: string;
  memoryA: number;
  memoryB: number;
  versionA: number;
  versionB: number;
  rowA: string;
  rowB: string;
  assessment: Json;
  score: number;
  status: "pending" | "confirmed" | "dismissed" | "voided";
  roundId: string;
  conflictId: number | null;
}

function toScanItem(row: Row): ScanItem {
  return {
    id: Number(row.id),
    candidateKey: String(row.candidate_key),
    memoryA: Number(row.memory_a),
    memoryB: Number(row.memory_b),
    versionA: Number(row.version_a),
    versionB: Number(row.version_b),
    rowA: String(row.row_a),
    rowB: String(row.row_b),
    assessment: JSON.parse(String(row.assessment)),
    score: Number(row.score),
    status: row.status as ScanItem["status"],
    roundId: String(row.round_id),
    conflictId: row.conflict_id === null ? null : Number(row.conflict_id),
  };
}

/** Queues a suspect pair unless the same candidate was queued before. */
export function insertScanItem(
  db: DatabaseSync,
  item: Omit<ScanItem, "id" | "status" | "conflictId"> & { now: string },
): boolean {
  return db.prepare(
    `INSERT INTO scan_queue (candidate_key, memory_a, memory_b, version_a, version_b, row_a, row_b,
       assessment, score, status, round_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT(candidate_key) DO NOTHING`,
  ).run(
    item.candidateKey,
    item.memoryA,
    item.memoryB,
    item.versionA,
    item.versionB,
    item.rowA,
    item.rowB,
    JSON.stringify(item.assessment),
    item.score,
    item.roundId,
    item.now,
  ).changes > 0;
}

/** Pending items, best first, after a cursor (score, id). */
export function selectScanItems(
  db: DatabaseSync,
  query: { limit: number; after?: { score: number; id: number } },
): ScanItem[] {
  const after = query.after;
  const rows = db.prepare(
    `SELECT * FROM scan_queue WHERE status = 'pending'
       AND (? IS NULL OR score < ? OR (score = ? AND id > ?))
     ORDER BY score DESC, id LIMIT ?`,
  ).all(
    after ? 1 : null,
    after?.score ?? 0,
    after?.score ?? 0,
    after?.id ?? 0,
    query.limit,
  ) as Row[];
  return rows.map(toScanItem);
}

/** Reads one queue item. */
export function selectScanItem(db: DatabaseSync, id: number): ScanItem | undefined {
  const row = db.prepare("SELECT * FROM scan_queue WHERE id = ?").get(id) as Row | undefined;
  return row ? toScanItem(row) : undefined;
}

/** Records the agent's decision on a pending item. */
export function decideScanItem(
  db: DatabaseSync,
  id: number,
  decision: {
    status: "confirmed" | "dismissed" | "voided";
    by: string;
    now: string;
    conflictId?: number;
  },
): boolean {
  return db.prepare(
    `UPDATE scan_queue SET status = ?, decided_by = ?, decided_at = ?, conflict_id = ?
     WHERE id = ? AND status = 'pending'`,
  ).run(decision.status, decision.by, decision.now, decision.conflictId ?? null, id).changes > 0;
}
