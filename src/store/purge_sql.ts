/**
 * SQL for purging a memory for good (`memory_govern` `purge`): the content of every
 * version, its index entries, evidence rows and vectors, jobs, scan state, links and the
 * saved inputs of the replay log go; the `memories` row stays as a tombstone (status
 * `deleted`, no subject, content, tags or metadata) so the id is never reused and the
 * audit log's ids keep pointing at "a purged memory", not at a later one.
 *
 * Every connection runs with `PRAGMA secure_delete = ON` (sqlite_connection.ts), so the
 * bytes of deleted rows are overwritten with zeros in the pages that held them. A database
 * written before that may still hold old bytes in free space; {@linkcode scrubFreedSpace}
 * rebuilds it once (VACUUM) and records that it is clean from then on.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { replaceRows } from "./evidence_sql.ts";
import { type AuditRecord, toAuditRecord } from "./audit_sql.ts";
import { type IndexedFields, unindexMemoryTerms } from "./terms_sql.ts";

type Row = Record<string, unknown>;

/** `meta` key: set when every delete since then zeroed its bytes (fresh file, or after VACUUM). */
export const SECURE_DELETE_SINCE = "secure_delete_since";

/** What {@linkcode purgeMemoryContent} removed. */
export interface PurgedContent {
  /** Each earlier version's number and content hash (the content itself is gone). */
  history: { version: number; contentSha: string }[];
  rows: number;
  jobs: number;
  scanItems: number;
  /** JSONL backup entries the replay log tied to this memory (their lines must go too). */
  replayEntryIds: string[];
  followersUnlinked: number;
  supersededUnlinked: number;
}

/**
 * Removes a memory's content everywhere it is stored and leaves the tombstone. `fields` are
 * its current indexed fields (to take its tokens out of the word index and its document
 * frequencies); `hasFts`/`hasVec` say which of those tables exist.
 */
export function purgeMemoryContent(
  db: DatabaseSync,
  memory: { id: number; version: number; indexed: IndexedFields },
  options: { hasFts: boolean; hasVec: boolean; now: string },
): PurgedContent {
  const id = memory.id;
  const history = (db.prepare(
    "SELECT version, content_sha FROM memory_history WHERE memory_id = ? ORDER BY version",
  ).all(id) as Row[]).map((row) => ({
    version: Number(row.version),
    contentSha: String(row.content_sha),
  }));
  if (options.hasFts) unindexMemoryTerms(db, id, memory.indexed);
  const rows = Number(
    (db.prepare("SELECT count(*) AS n FROM memory_rows WHERE memory_id = ?").get(id) as Row).n,
  );
  // No rows of a new version: this deletes the rows and their vectors.
  replaceRows(db, memory, [], options.hasVec);
  db.prepare("DELETE FROM memory_history WHERE memory_id = ?").run(id);
  const jobs = Number(
    db.prepare("DELETE FROM jobs WHERE json_extract(payload, '$.memory_id') = ?").run(id).changes,
  );
  db.prepare("DELETE FROM scan_state WHERE memory_id = ?").run(id);
  // A planned check (check_plan) holds hashes of its words: read by the plan's order, not by
  // memory, so this reads the plan (it holds rows only while an import's checks drain).
  db.prepare("DELETE FROM check_plan WHERE memory_id = ?").run(id);
  // A replaced claim it carried (the chosen value it pointed to stays with the group).
  db.prepare("DELETE FROM stale_claims WHERE memory_id = ?").run(id);
  const scanItems = Number(
    db.prepare("DELETE FROM scan_queue WHERE memory_a = ? OR memory_b = ?").run(id, id).changes,
  );
  const replayEntryIds = (db.prepare(
    "SELECT entry_id FROM backup_replay_log WHERE memory_id = ? ORDER BY entry_id",
  ).all(id) as Row[]).map((row) => String(row.entry_id));
  // The log keeps each entry id (so a replay still skips it) but not the saved input.
  db.prepare("UPDATE backup_replay_log SET detail = '{\"purged\":true}' WHERE memory_id = ?").run(
    id,
  );
  const followersUnlinked = Number(
    db.prepare("UPDATE memories SET follows = NULL WHERE follows = ?").run(id).changes,
  );
  const supersededUnlinked = Number(
    db.prepare("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ? AND id != ?")
      .run(id, id).changes,
  );
  db.prepare("UPDATE conflicts SET resolution_memory_id = NULL WHERE resolution_memory_id = ?")
    .run(id);
  db.prepare(
    `UPDATE memories SET subject = '', content = '', tags = '[]', metadata = '{}',
       source_ref = NULL, follows = NULL, superseded_by = NULL, status = 'deleted',
       updated_at = ?, last_accessed = NULL
     WHERE id = ?`,
  ).run(options.now, id);
  return { history, rows, jobs, scanItems, replayEntryIds, followersUnlinked, supersededUnlinked };
}

/** Ids of the conflict groups a memory belongs to (any status). */
export function selectConflictIdsOf(db: DatabaseSync, memoryId: number): number[] {
  return (db.prepare(
    "SELECT conflict_id FROM conflict_members WHERE memory_id = ? ORDER BY conflict_id",
  ).all(memoryId) as Row[]).map((row) => Number(row.conflict_id));
}

/** Deletes a conflict group with its members, notices and scan-queue items. */
export function deleteConflict(db: DatabaseSync, conflictId: number): void {
  db.prepare("DELETE FROM notices WHERE conflict_id = ?").run(conflictId);
  db.prepare("DELETE FROM scan_queue WHERE conflict_id = ?").run(conflictId);
  db.prepare("DELETE FROM conflict_members WHERE conflict_id = ?").run(conflictId);
  db.prepare("DELETE FROM conflict_keys WHERE conflict_id = ?").run(conflictId);
  db.prepare("DELETE FROM stale_claims WHERE conflict_id = ?").run(conflictId);
  db.prepare("DELETE FROM conflicts WHERE id = ?").run(conflictId);
}

/** Takes one memory out of a group's membership table (the group's JSON is rewritten apart). */
export function deleteConflictMember(db: DatabaseSync, conflictId: number, memoryId: number): void {
  db.prepare("DELETE FROM conflict_members WHERE conflict_id = ? AND memory_id = ?").run(
    conflictId,
    memoryId,
  );
}

/** Replaces a group's JSON columns and free text after one member was purged; bumps the revision. */
export function rewriteConflict(
  db: DatabaseSync,
  conflictId: number,
  change: {
    status: string;
    candidateKey: string;
    members: unknown[];
    valueGroups: unknown[];
    detection: Record<string, unknown>;
    chosenValue: string | null;
    decisionReason: string | null;
    plan: unknown[];
    planHistory: unknown[];
    /**
     * `drop` when the group's chosen value was held only by the purged member: the replaced
     * claims its resolution recorded quote that value. `keep` only forgets the member as a holder.
     */
    staleClaims: "keep" | "drop";
    /** The purged member (taken out of the stale claims' holders). */
    memoryId: number;
    now: string;
  },
): void {
  if (change.staleClaims === "drop") {
    db.prepare("DELETE FROM stale_claims WHERE conflict_id = ?").run(conflictId);
  } else {
    db.prepare(
      `UPDATE stale_claims SET holder_ids =
         (SELECT json_group_array(value) FROM json_each(stale_claims.holder_ids) WHERE value != ?)
       WHERE conflict_id = ?`,
    ).run(change.memoryId, conflictId);
  }
  db.prepare(
    `UPDATE conflicts SET status = ?, candidate_key = ?, members = ?, value_groups = ?, detection = ?,
       chosen_value = ?, decision_reason = ?, plan = ?, plan_history = ?,
       revision = revision + 1, updated_at = ?
     WHERE id = ?`,
  ).run(
    change.status,
    change.candidateKey,
    JSON.stringify(change.members),
    JSON.stringify(change.valueGroups),
    JSON.stringify(change.detection),
    change.chosenValue,
    change.decisionReason,
    JSON.stringify(change.plan),
    JSON.stringify(change.planHistory),
    change.now,
    conflictId,
  );
}

/** Deletes the notices whose payload names the memory (`payload.memory_ids`); returns how many. */
export function deleteNoticesNaming(db: DatabaseSync, memoryId: number): number {
  return Number(
    db.prepare(
      `DELETE FROM notices WHERE EXISTS
         (SELECT 1 FROM json_each(notices.payload, '$.memory_ids') WHERE value = ?)`,
    ).run(memoryId).changes,
  );
}

/**
 * Audit rows about a memory: its own rows, and rows whose detail names it as a memory id
 * (`memory_id`, `survivor_id`, `superseded_by`, an id in a `*_ids` list, a key of
 * `loser_versions`, a plan step) or names one of `conflictIds`. SQLite 3.53's json_tree quotes
 * object keys in `path` (`$."merged_ids"`), older ones do not: both spellings are matched. The id
 * is bound as a double (node:sqlite), so it is made an integer before it is compared as text.
 */
export function selectAuditMentioning(
  db: DatabaseSync,
  memoryId: number,
  conflictIds: readonly number[],
): AuditRecord[] {
  const rows = db.prepare(
    `SELECT * FROM audit a WHERE a.memory_id = ?1 OR EXISTS (
       SELECT 1 FROM json_tree(a.detail) t WHERE
         (t.type = 'integer' AND t.atom = ?1 AND (
           t.key IN ('memory_id', 'survivor_id', 'superseded_by', 'resolution_memory_id')
           OR t.path LIKE '%\\_ids' ESCAPE '\\' OR t.path LIKE '%\\_ids"' ESCAPE '\\'))
         OR (t.path IN ('$.loser_versions', '$."loser_versions"') AND t.key = CAST(CAST(?1 AS INTEGER) AS TEXT))
         OR (t.key = 'conflict_id' AND t.type = 'integer'
             AND t.atom IN (SELECT value FROM json_each(?2))))
     ORDER BY a.id`,
  ).all(memoryId, JSON.stringify(conflictIds)) as Row[];
  return rows.map(toAuditRecord);
}

/** Replaces an audit row's reason and detail (the purge's scrub of text about a purged memory). */
export function updateAuditText(
  db: DatabaseSync,
  auditId: number,
  change: { reason: string | null; detail: Record<string, unknown> },
): void {
  db.prepare("UPDATE audit SET reason = ?, detail = ? WHERE id = ?").run(
    change.reason,
    JSON.stringify(change.detail),
    auditId,
  );
}

/**
 * Merges every segment of the word index into one. A contentless-delete FTS5 table only
 * marks a deleted row's entries as deleted; its tokens stay in the segments (and in earlier
 * versions' segments) until a merge rewrites them. Optimizing drops them, and the pages of
 * the old segments are zeroed as they are freed (secure_delete).
 */
export function optimizeTermsIndex(db: DatabaseSync): void {
  db.exec("INSERT INTO memories_terms(memories_terms) VALUES ('optimize')");
}

/** What {@linkcode scrubFreedSpace} did. */
export interface FreedSpaceScrub {
  /** The file was rebuilt (only when it may hold bytes deleted before secure_delete). */
  vacuumed: boolean;
  /** The WAL was checkpointed and truncated to zero bytes. */
  walTruncated: boolean;
  /** Why a step did not complete (another process reading, say). */
  problems: string[];
}

/**
 * Runs outside any transaction after a purge commits: rebuilds the file with VACUUM when
 * deletes may once have left bytes behind (no {@linkcode SECURE_DELETE_SINCE} in `meta`),
 * then checkpoints the WAL and truncates it, so neither file keeps the purged pages.
 */
export function scrubFreedSpace(db: DatabaseSync): FreedSpaceScrub {
  const problems: string[] = [];
  let vacuumed = false;
  const clean = db.prepare("SELECT value FROM meta WHERE key = ?").get(SECURE_DELETE_SINCE);
  if (clean === undefined) {
    try {
      db.exec("VACUUM");
      db.prepare(
        `INSERT INTO meta(key, value) VALUES (?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      ).run(SECURE_DELETE_SINCE, new Date().toISOString());
      vacuumed = true;
    } catch (error) {
      problems.push(`VACUUM did not run: ${error instanceof Error ? error.message : error}`);
    }
  }
  const wal = truncateWal(db);
  if (wal.problem !== undefined) problems.push(wal.problem);
  return { vacuumed, walTruncated: wal.truncated, problems };
}

/**
 * Folds the WAL into the database file and truncates it to zero bytes, so the log keeps no
 * page a purge freed. Blocked (not an error) while another connection reads an older snapshot.
 */
export function truncateWal(db: DatabaseSync): { truncated: boolean; problem?: string } {
  try {
    const result = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as Row | undefined;
    if (result !== undefined && Number(result.busy) === 0) return { truncated: true };
    return { truncated: false, problem: "the WAL checkpoint was blocked by another connection" };
  } catch (error) {
    return {
      truncated: false,
      problem: `the WAL checkpoint failed: ${error instanceof Error ? error.message : error}`,
    };
  }
}

/**
 * `meta` key: a purge committed and the scrub after it is owed (the WAL truncation, and the
 * removal of these backup entries from the JSONL file). Written in the purge's transaction,
 * so it is as durable as the purge; removed once both steps are done. JSON: `{backup_ids}`.
 */
export const PURGE_SCRUB_OWED = "purge_scrub_owed";

/** The owed scrub: the raw `meta` value (to clear exactly it) and the backup entries to drop. */
export interface OwedScrub {
  value: string;
  backupIds: string[];
}

/** The scrub purges left owed, or undefined when none is. */
export function selectOwedScrub(db: DatabaseSync): OwedScrub | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(PURGE_SCRUB_OWED) as
    | Row
    | undefined;
  if (row === undefined) return undefined;
  const value = String(row.value);
  let backupIds: string[] = [];
  try {
    const parsed = JSON.parse(value) as { backup_ids?: unknown };
    if (Array.isArray(parsed.backup_ids)) backupIds = parsed.backup_ids.map(String);
  } catch {
    // An unreadable value still owes the WAL truncation.
  }
  return { value, backupIds };
}

/** Records (inside the purge's transaction) that its scrub is owed, adding to any owed before. */
export function insertOwedScrub(db: DatabaseSync, backupIds: readonly string[]): void {
  const before = selectOwedScrub(db)?.backupIds ?? [];
  db.prepare(
    `INSERT INTO meta(key, value) VALUES (?, ?)
     ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
  ).run(PURGE_SCRUB_OWED, JSON.stringify({ backup_ids: [...new Set([...before, ...backupIds])] }));
}

/**
 * Clears the owed scrub if it is still `value`: a purge that committed after it was read
 * added to it, and its own scrub may still be owed.
 */
export function deleteOwedScrub(db: DatabaseSync, value: string): void {
  db.prepare("DELETE FROM meta WHERE key = ? AND value = ?").run(PURGE_SCRUB_OWED, value);
}
