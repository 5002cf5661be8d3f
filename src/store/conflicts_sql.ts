/**
 * SQL for conflict groups: the groups and their members, the pair keys that say which event a
 * pair joined, the claims a resolution left stale, and the backlog counts.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Lifecycle of a conflict group (docs/SPEC.md §8). */
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
  const members = change.members === undefined ? undefined : JSON.stringify(change.members);
  if (members !== undefined) column("members", members);
  if (change.valueGroups !== undefined) column("value_groups", JSON.stringify(change.valueGroups));
  const updated = db.prepare(
    `UPDATE conflicts SET ${sets.join(", ")} WHERE id = ? AND revision = ?`,
  ).run(...values, id, expectedRevision).changes > 0;
  if (updated && members !== undefined) {
    // One statement for the whole list: an event joined one member at a time by an import's
    // checks grows to hundreds, and a statement a member was most of the join.
    db.prepare(
      `INSERT OR IGNORE INTO conflict_members
       SELECT ?, json_extract(value, '$.memory_id') FROM json_each(?)`,
    ).run(id, members);
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
