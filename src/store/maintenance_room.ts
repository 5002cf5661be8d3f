/**
 * Upkeep of the SQLite file and copying an older database in: {@linkcode MaintenanceRepository}
 * (WAL checkpoints, VACUUM, the FTS5 `optimize`, the word index's check, the sqlite-vec table) and
 * {@linkcode UpgradeRepository}.
 *
 * @module
 */
import * as evidence from "./evidence_sql.ts";
import * as purge from "./purge_sql.ts";
import * as terms from "./terms_sql.ts";
import * as upgrade from "./upgrade_sql.ts";
import type { MaintenanceRepository, UpgradeRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";
import { setCheckpointSpacing } from "./sqlite_connection.ts";

/** The maintenance room over `core`'s connection. */
export function sqliteMaintenance(core: SqliteCore): Sync<MaintenanceRepository> {
  const db = core.connection.db;
  return {
    checkpoint: () => upgrade.checkpointTruncate(db),
    spaceCheckpoints: (pages) => setCheckpointSpacing(db, pages),
    // VACUUM when the file may hold bytes deleted before secure_delete, then a truncating
    // WAL checkpoint (purge_sql.ts).
    scrubFreedSpace: () => purge.scrubFreedSpace(db),
    truncateWal: () => purge.truncateWal(db),
    compactTermsIndex() {
      if (core.capabilities.fts) purge.optimizeTermsIndex(db);
    },
    vecTableExists: () => core.vecTableExists(),
    recreateVecTable: (dim) => evidence.recreateVecTable(db, dim),
    wordIndexSlice: (afterId, span) =>
      core.capabilities.fts
        ? terms.countWordIndexSlice(db, afterId, span)
        : { throughId: afterId, last: true, memories: 0, indexed: 0 },
    vectorMirrorSize: () => ({
      vectors: core.vectors?.size ?? 0,
      bytes: core.vectors?.bytes ?? 0,
    }),
  };
}

/** Copying an older database into this one, over `core`'s connection. */
export function sqliteUpgrade(core: SqliteCore): Sync<UpgradeRepository> {
  const db = core.connection.db;
  return {
    tablesToCopyFrom: (source, options) => upgrade.tablesToCopy(db, source.schema(), options),
    copyTableFrom: (source, table, columns) =>
      upgrade.copyRows(db, table, columns, source.iterate(table, columns)),
    restoreMemory: (memory) => upgrade.insertRestoredMemory(db, memory),
    restoreWorkspace: (row) => upgrade.upsertWorkspace(db, row),
    registerMemoryWorkspaces: () => upgrade.registerMemoryWorkspaces(db),
    rebuildWordIndex: () => core.capabilities.fts ? terms.rebuildTermsIndex(db) : 0,
    contentFingerprints: () => upgrade.targetFingerprints(db),
  };
}
