/**
 * Conflict groups, notices and the scan queue on SQLite ({@linkcode ConflictTables}, reached as
 * `store.conflicts`), and whether a notice is pending ({@linkcode PendingNoticesRepository}).
 *
 * @module
 */
import * as conflicts from "./conflicts_sql.ts";
import * as notices from "./notices_sql.ts";
import * as scanQueue from "./scan_queue_sql.ts";
import type {
  ConflictGroupsRepository,
  NoticesRepository,
  PendingNoticesRepository,
  ScanQueueRepository,
} from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The conflict groups room over `core`'s connection. */
export function sqliteConflictGroups(core: SqliteCore): Sync<ConflictGroupsRepository> {
  const db = core.connection.db;
  return {
    insert: (group) => conflicts.insertConflict(db, group),
    get: (id) => conflicts.selectConflict(db, id),
    list: (query) => conflicts.selectConflicts(db, query),
    update: (id, expectedRevision, change) =>
      conflicts.updateConflict(db, id, expectedRevision, change),
    openOf: (memoryIds) => conflicts.selectOpenConflictsOf(db, memoryIds),
    addKey: (key, conflictId) => conflicts.insertConflictKey(db, key, conflictId),
    byKey: (key) => conflicts.selectConflictByKey(db, key),
    markStale: (claim) => conflicts.insertStaleClaim(db, claim),
    staleClaimsOf: (memoryIds) => conflicts.selectStaleClaims(db, memoryIds),
    backlog: () => conflicts.countConflictBacklog(db),
  };
}

/** The notices room over `core`'s connection. */
export function sqliteNotices(core: SqliteCore): Sync<NoticesRepository> {
  const db = core.connection.db;
  return {
    insertNotice: (notice) => notices.insertNotice(db, notice),
    notices: (query) => notices.selectNotices(db, query),
    notice: (id) => notices.selectNotice(db, id),
    setNoticeStatus: (ids, change) => notices.updateNoticeStatus(db, ids, change),
    noticesWhere: (filter, page) => notices.selectNoticesWhere(db, filter, page),
    countNotices: (filter) => notices.countNoticesWhere(db, filter),
    setNoticesWhere: (filter, change) => notices.updateNoticesWhere(db, filter, change),
    noticesOf: (conflictId) => notices.selectNoticesOfConflict(db, conflictId),
  };
}

/** The scan queue room over `core`'s connection. */
export function sqliteScanQueue(core: SqliteCore): Sync<ScanQueueRepository> {
  const db = core.connection.db;
  return {
    memoriesToScan: (query) => scanQueue.selectMemoriesToScan(db, query),
    countToScan: (query) => scanQueue.countMemoriesToScan(db, query),
    markScanned: (state) => scanQueue.upsertScanState(db, state),
    queueItem: (item) => scanQueue.insertScanItem(db, item),
    queueItems: (query) => scanQueue.selectScanItems(db, query),
    queueItemById: (id) => scanQueue.selectScanItem(db, id),
    decideItem: (id, decision) => scanQueue.decideScanItem(db, id, decision),
  };
}

/**
 * Whether any notice is pending. Every response asks; while the database is unchanged since
 * the answer was "none", that answer stands without a query.
 */
export function sqlitePendingNotices(core: SqliteCore): Sync<PendingNoticesRepository> {
  const connection = core.connection;
  return {
    hasPendingNotices() {
      const stamp = connection.changeStamp();
      if (stamp !== undefined && stamp === core.noPendingNoticesAt) return false;
      const any = notices.anyPendingNotice(connection.db);
      core.noPendingNoticesAt = any ? undefined : stamp;
      return any;
    },
  };
}
