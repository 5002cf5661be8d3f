/**
 * Purging a memory's content on SQLite: {@linkcode PurgeRepository}.
 *
 * @module
 */
import * as purge from "./purge_sql.ts";
import type { PurgeRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The purge room over `core`'s connection. */
export function sqlitePurge(core: SqliteCore): Sync<PurgeRepository> {
  const db = core.connection.db;
  return {
    purgeMemoryContent: (memory, now) =>
      purge.purgeMemoryContent(db, { ...memory, indexed: memory }, {
        hasFts: core.capabilities.fts,
        hasVec: core.vecTableExists(),
        now,
      }),
    conflictIdsOf: (memoryId) => purge.selectConflictIdsOf(db, memoryId),
    deleteConflict: (conflictId) => purge.deleteConflict(db, conflictId),
    rewriteConflictWithout(conflictId, memoryId, change) {
      purge.deleteConflictMember(db, conflictId, memoryId);
      purge.rewriteConflict(db, conflictId, change);
    },
    deleteNoticesNaming: (memoryId) => purge.deleteNoticesNaming(db, memoryId),
    owedScrub: () => purge.selectOwedScrub(db),
    markScrubOwed: (backupIds) => purge.insertOwedScrub(db, backupIds),
    clearOwedScrub: (value) => purge.deleteOwedScrub(db, value),
  };
}
