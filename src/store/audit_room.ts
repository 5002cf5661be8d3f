/**
 * The audit trail, the backup replay log and the meta table on SQLite:
 * {@linkcode AuditRepository}, {@linkcode ReplayLogRepository} and {@linkcode MetaRepository}.
 *
 * @module
 */
import * as audit from "./audit_sql.ts";
import * as replayLog from "./replay_log_sql.ts";
import * as memories from "./memories_sql.ts";
import * as purge from "./purge_sql.ts";
import { getMeta, setMeta } from "./schema.ts";
import type { AuditRepository, MetaRepository, ReplayLogRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The audit room over `core`'s connection. */
export function sqliteAudit(core: SqliteCore): Sync<AuditRepository> {
  const db = core.connection.db;
  return {
    appendAudit: (entry) => memories.insertAudit(db, entry),
    recordCoalescedAudit: (entry, window) => audit.recordCoalescedAudit(db, entry, window),
    listAudit: (query) => audit.selectAudit(db, query),
    auditMentioning: (memoryId, conflictIds) =>
      purge.selectAuditMentioning(db, memoryId, conflictIds),
    scrubAuditRow: (auditId, change) => purge.updateAuditText(db, auditId, change),
  };
}

/** The replay log over `core`'s connection. */
export function sqliteReplayLog(core: SqliteCore): Sync<ReplayLogRepository> {
  const db = core.connection.db;
  return {
    replayOutcome: (entryId) => replayLog.selectReplay(db, entryId),
    logReplay: (entry) => replayLog.insertReplay(db, entry),
  };
}

/** The meta table over `core`'s connection. */
export function sqliteMeta(core: SqliteCore): Sync<MetaRepository> {
  const connection = core.connection;
  return {
    getMeta: (key) => getMeta(connection, key),
    setMeta: (key, value) => setMeta(connection, key, value),
  };
}
