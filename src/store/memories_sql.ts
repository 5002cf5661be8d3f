/**
 * SQL for memories, their history and the audit log.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { selectHistoryCount, selectStatusCounts } from "./library_counts_sql.ts";
import type {
  AuditEntry,
  HistoryEntry,
  MemoryChange,
  MemoryRecord,
  MemoryStatus,
  NewMemory,
  ProtectionLevel,
  SourceType,
} from "./types.ts";

type Row = Record<string, unknown>;

/** The `memories` columns every reader selects, in {@linkcode toMemoryRecord}'s terms. */
export const MEMORY_COLUMNS =
  `id, subject, content, content_sha, tags, workspace, workspace_canonical,
  source_type, source_ref, event_time, ingest_time, confidence, protection_level, status, version,
  agent_id, client, metadata, superseded_by, follows, created_at, updated_at, valid_from, valid_to`;

/** Converts a `memories` row into a record. */
export function toMemoryRecord(row: Row): MemoryRecord {
  return {
    id: Number(row.id),
    subject: String(row.subject),
    content: String(row.content),
    contentSha: String(row.content_sha),
    tags: JSON.parse(String(row.tags)) as string[],
    workspace: String(row.workspace),
    workspaceCanonical: String(row.workspace_canonical),
    sourceType: row.source_type as SourceType,
    sourceRef: row.source_ref === null ? null : String(row.source_ref),
    eventTime: row.event_time === null ? null : String(row.event_time),
    ingestTime: String(row.ingest_time),
    validFrom: row.valid_from == null ? null : String(row.valid_from),
    validTo: row.valid_to == null ? null : String(row.valid_to),
    confidence: Number(row.confidence),
    protectionLevel: row.protection_level as ProtectionLevel,
    status: row.status as MemoryStatus,
    version: Number(row.version),
    agentId: String(row.agent_id),
    client: String(row.client),
    metadata: JSON.parse(String(row.metadata)) as Record<string, unknown>,
    supersededBy: row.superseded_by === null ? null : Number(row.superseded_by),
    follows: row.follows === null ? null : Number(row.follows),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/** Inserts a memory and returns its id. */
export function insertMemory(db: DatabaseSync, memory: NewMemory): number {
  const result = db.prepare(
    `INSERT INTO memories (subject, content, content_sha, tags, workspace, workspace_canonical,
       source_type, source_ref, event_time, ingest_time, confidence, protection_level, status,
       version, agent_id, client, metadata, follows, created_at, updated_at, valid_from, valid_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    memory.subject,
    memory.content,
    memory.contentSha,
    JSON.stringify(memory.tags),
    memory.workspace,
    memory.workspaceCanonical,
    memory.sourceType,
    memory.sourceRef,
    memory.eventTime,
    memory.ingestTime,
    memory.confidence,
    memory.protectionLevel,
    memory.status,
    memory.agentId,
    memory.client,
    JSON.stringify(memory.metadata),
    memory.follows,
    memory.createdAt,
    memory.updatedAt,
    memory.validFrom,
    memory.validTo,
  );
  return Number(result.lastInsertRowid);
}

/** Reads one memory by id. */
export function selectMemory(db: DatabaseSync, id: number): MemoryRecord | undefined {
  const row = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ?`).get(id) as
    | Row
    | undefined;
  return row ? toMemoryRecord(row) : undefined;
}

/** Reads several memories by id; missing ids are absent from the map. */
export function selectMemories(
  db: DatabaseSync,
  ids: readonly number[],
): Map<number, MemoryRecord> {
  const found = new Map<number, MemoryRecord>();
  if (ids.length === 0) return found;
  const statement = db.prepare(
    `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id IN (SELECT value FROM json_each(?))`,
  );
  for (const row of statement.all(JSON.stringify(ids)) as Row[]) {
    const record = toMemoryRecord(row);
    found.set(record.id, record);
  }
  return found;
}

/** The active memory holding exactly this content in a workspace, if any. */
export function selectActiveByContent(
  db: DatabaseSync,
  workspaceCanonical: string,
  contentSha: string,
): MemoryRecord | undefined {
  const row = db.prepare(
    `SELECT ${MEMORY_COLUMNS} FROM memories
     WHERE workspace_canonical = ? AND content_sha = ? AND status = 'active'`,
  ).get(workspaceCanonical, contentSha) as Row | undefined;
  return row ? toMemoryRecord(row) : undefined;
}

/** Applies a change to a memory row. */
export function updateMemoryRow(db: DatabaseSync, id: number, change: MemoryChange): void {
  const sets: string[] = ["updated_at = ?"];
  const values: (string | number | null)[] = [change.updatedAt];
  if (change.subject !== undefined) sets.push("subject = ?"), values.push(change.subject);
  if (change.content !== undefined) sets.push("content = ?"), values.push(change.content);
  if (change.contentSha !== undefined) sets.push("content_sha = ?"), values.push(change.contentSha);
  if (change.tags !== undefined) sets.push("tags = ?"), values.push(JSON.stringify(change.tags));
  if (change.version !== undefined) sets.push("version = ?"), values.push(change.version);
  if (change.validFrom !== undefined) sets.push("valid_from = ?"), values.push(change.validFrom);
  if (change.validTo !== undefined) sets.push("valid_to = ?"), values.push(change.validTo);
  db.prepare(`UPDATE memories SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
}

/** Appends one earlier version. */
export function insertHistory(db: DatabaseSync, entry: HistoryEntry): void {
  db.prepare(
    `INSERT INTO memory_history (memory_id, version, subject, content, content_sha, tags, status,
       changed_at, changed_by, changed_by_client, reason, valid_from, valid_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    entry.memoryId,
    entry.version,
    entry.subject,
    entry.content,
    entry.contentSha,
    JSON.stringify(entry.tags),
    entry.status,
    entry.changedAt,
    entry.changedBy,
    entry.changedByClient,
    entry.reason,
    entry.validFrom,
    entry.validTo,
  );
}

/** Every earlier version of a memory, oldest first. */
export function selectHistory(db: DatabaseSync, memoryId: number): HistoryEntry[] {
  const rows = db.prepare(
    `SELECT ${HISTORY_COLUMNS} FROM memory_history WHERE memory_id = ? ORDER BY version`,
  ).all(memoryId) as Row[];
  return rows.map(toHistoryEntry);
}

/** The `memory_history` columns every reader selects, in {@linkcode toHistoryEntry}'s terms. */
export const HISTORY_COLUMNS = `memory_id, version, subject, content, content_sha, tags, status,
  changed_at, changed_by, changed_by_client, reason, valid_from, valid_to`;

/** Converts a `memory_history` row into an entry. */
export function toHistoryEntry(row: Row): HistoryEntry {
  return {
    memoryId: Number(row.memory_id),
    version: Number(row.version),
    subject: String(row.subject),
    content: String(row.content),
    contentSha: String(row.content_sha),
    tags: JSON.parse(String(row.tags)) as string[],
    status: row.status as MemoryStatus,
    changedAt: String(row.changed_at),
    changedBy: String(row.changed_by),
    changedByClient: String(row.changed_by_client),
    reason: row.reason === null ? null : String(row.reason),
    validFrom: row.valid_from == null ? null : String(row.valid_from),
    validTo: row.valid_to == null ? null : String(row.valid_to),
  };
}

/** Appends one audit row. */
export function insertAudit(db: DatabaseSync, entry: AuditEntry): void {
  db.prepare(
    `INSERT INTO audit (at, action, memory_id, agent_id, client, reason, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    entry.at,
    entry.action,
    entry.memoryId,
    entry.agentId,
    entry.client,
    entry.reason,
    JSON.stringify(entry.detail),
  );
}

/** Counts of memories by status, of one workspace when given (kept: library_counts_sql.ts). */
export function countByStatus(db: DatabaseSync, workspace?: string): Record<string, number> {
  return selectStatusCounts(db, workspace);
}

/** Number of history rows. */
export function countHistory(db: DatabaseSync): number {
  return selectHistoryCount(db);
}

/** The content of each memory of `ids` that exists. */
export function selectContents(db: DatabaseSync, ids: readonly number[]): Map<number, string> {
  const found = new Map<number, string>();
  if (ids.length === 0) return found;
  const rows = db.prepare(
    "SELECT id, content FROM memories WHERE id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as { id: number; content: string }[];
  for (const row of rows) found.set(Number(row.id), String(row.content));
  return found;
}
