/**
 * The store's public face: the repository interfaces every service is typed against
 * (repositories.ts) and {@linkcode openStore}, which opens a SQLite database and implements them
 * (sqlite_core.ts and one `*_room.ts` per room). The only folder that knows SQL. Services run
 * their calls inside {@linkcode UnitOfWork.write} (one `BEGIN IMMEDIATE` transaction, retried on
 * SQLITE_BUSY) or {@linkcode UnitOfWork.read} (one snapshot).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/demo.sqlite3`, { cacheDir: `${dir}/cache` });
 * await store.write(async (tx) => await tx.setMeta("demo", "1"));
 * assert.equal(await store.read(async () => await store.getMeta("demo")), "1");
 * assert.equal(store.capabilities.fts, true);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { ensureDir } from "../platform/directories.ts";
import { writeRefusal } from "../platform/file_info.ts";
import { logWarn } from "../platform/log.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import { FTS_WORDS, getMeta, prepareSchema, repairFtsIfNeeded } from "./schema.ts";
import { isReadOnlyFailure, openReadOnly, readOnlySchema } from "./read_only.ts";
import { openConnection, type SqliteConnection } from "./sqlite_connection.ts";
import { asyncRoom, SqliteCore } from "./sqlite_core.ts";
import { loadVecExtension } from "./vec_extension.ts";
import { sqliteHistory, sqliteMemories, sqlitePortability } from "./memories_room.ts";
import { sqliteRecall, sqliteWordIndex } from "./word_index_room.ts";
import { sqliteEvidenceRows, sqliteVectors } from "./vectors_room.ts";
import { sqliteJobs } from "./jobs_room.ts";
import {
  sqliteConflictGroups,
  sqliteNotices,
  sqlitePendingNotices,
  sqliteScanQueue,
} from "./conflicts_room.ts";
import { sqliteWorkspaces } from "./workspaces_room.ts";
import { sqliteEntities } from "./entities_room.ts";
import { sqliteAudit, sqliteMeta, sqliteReplayLog } from "./audit_room.ts";
import { sqliteUsage } from "./usage_room.ts";
import { sqlitePurge } from "./purge_room.ts";
import { sqliteMaintenance, sqliteUpgrade } from "./maintenance_room.ts";
import type { PostgresProbe } from "./postgres/facts.ts";
import type {
  ConflictTables,
  Store,
  StoreCapabilities,
  StoreRepositories,
} from "./repositories.ts";

export type * from "./repositories.ts";
export type { WriteOptions } from "./sqlite_connection.ts";
export * from "./types.ts";
export type { JobRecord, JobStatus, PlannedCheck } from "./jobs_sql.ts";
export type { AuditQuery, AuditRecord, CoalesceWindow } from "./audit_sql.ts";
export type { AccessStat, MemoryAccess } from "./usage_sql.ts";
export type {
  ConflictChange,
  ConflictMember,
  ConflictRecord,
  ConflictStatus,
  PlanStep,
  StaleClaim,
  ValueGroup,
} from "./conflicts_sql.ts";
export type { NoticeFilter, NoticeRecord, NoticeStatus } from "./notices_sql.ts";
export type { ScanItem } from "./scan_queue_sql.ts";
export type { EvidenceRowRecord, NewEvidenceRow } from "./evidence_sql.ts";
export type { MemoryPageQuery } from "./portability_sql.ts";
export type {
  EntityListQuery,
  EntityPage,
  EntityRecord,
  EntitySummary,
  MemoryGraph,
  MentionRecord,
  RelationOrigin,
  RelationRecord,
} from "./entities_sql.ts";
export { fingerprintRows, UpgradeSource } from "./upgrade_sql.ts";
export type {
  ContentFingerprints,
  CopiedVectors,
  CopySource,
  DatabaseKind,
} from "./upgrade_sql.ts";
export type { PostgresCopySource } from "./postgres/copy_source.ts";
export type { FreedSpaceScrub, OwedScrub, PurgedContent } from "./purge_sql.ts";
export type {
  MoveOutcome,
  WorkspaceRecord,
  WorkspaceState,
  WorkspaceSummary,
} from "./workspaces_sql.ts";
export { SCHEMA_GENERATION } from "./constants.ts";
export { isStorageFailure } from "./read_only.ts";
export { recordPassesFilters } from "./recall_sql.ts";
export { PG_UNSUPPORTED, postgresUnsupported } from "./postgres/readiness.ts";
export type { PostgresProbe } from "./postgres/facts.ts";
export {
  type DatabaseProbe,
  inspectDatabase,
  probeDatabase,
  probeFts5,
  probeVecExtension,
} from "./probes.ts";

/** Options for {@linkcode openStore}. */
export interface OpenStoreOptions {
  cacheDir: string;
  busyTimeoutMs?: number;
  /** `full` (default) syncs every acknowledged write; `normal` syncs at checkpoints. */
  durability?: "full" | "normal";
  /** Skip loading sqlite-vec (tests of the degraded path). */
  skipVec?: boolean;
  /**
   * `db_url`: a `postgres://` database instead of the file at `path` (src/store/postgres/,
   * loaded only then).
   */
  dbUrl?: string;
  /**
   * With `dbUrl`, for a serving process: start even while the database cannot be reached;
   * reads fail and writes go to the local backup until it answers (postgres/mod.ts).
   */
  waitForDatabase?: boolean;
  /**
   * Leave the word index's count check to the caller (a serving process runs it in slices
   * after its first answer, src/recall/word_index_check.ts); by default it runs here.
   */
  deferWordIndexCheck?: boolean;
  /** Internal: a read-write open failed with this because the database cannot be written. */
  readOnlyCause?: unknown;
}

/** Reads a PostgreSQL database for `mema doctor` without changing it (postgres/probe.ts). */
export async function probePostgresDatabase(
  url: string,
): Promise<PostgresProbe> {
  const { probePostgres } = await import("./postgres/probe.ts");
  return await probePostgres(url);
}

/**
 * `mema upgrade` on PostgreSQL: applies the pending schema migrations, or with `dryRun` names
 * them (postgres/schema_upgrade.ts).
 */
export async function upgradePostgresDatabase(
  url: string,
  options: { dryRun?: boolean },
): Promise<import("./postgres/schema_upgrade.ts").PostgresSchemaUpgrade> {
  const { upgradePostgresSchema } = await import("./postgres/schema_upgrade.ts");
  return await upgradePostgresSchema(url, options);
}

/** Opens a PostgreSQL database read-only as the source of `mema copy` (postgres/copy_source.ts). */
export async function openPostgresCopySource(
  url: string,
): Promise<import("./postgres/copy_source.ts").PostgresCopySource> {
  const { PostgresCopySource } = await import("./postgres/copy_source.ts");
  return await PostgresCopySource.open(url);
}

/**
 * Opens (creating when missing) the database at `path`, brings its schema to
 * this build's generation, and loads sqlite-vec. A missing sqlite-vec is
 * recorded in `capabilities`, never thrown. With `dbUrl`, opens that PostgreSQL database
 * instead (migrating it to this build's schema version).
 */
export async function openStore(path: string, options: OpenStoreOptions): Promise<Store> {
  if (options.dbUrl !== undefined) {
    // A dynamic import: neither the PostgreSQL store nor its driver is read on a SQLite start.
    const { openPostgresAsStore } = await import("./postgres/app_store.ts");
    return await openPostgresAsStore(options.dbUrl, { waitForDatabase: options.waitForDatabase });
  }
  const dir = dirName(path);
  if (!pathExists(dir)) {
    try {
      ensureDir(dir);
    } catch (error) {
      throw new MemaError(
        "storage_error",
        `cannot create the database directory ${dir}: ${error}`,
        {
          hint: "set MEMA_DB_PATH to a writable location",
        },
      );
    }
  }
  let connection: SqliteConnection;
  let readOnly: string | undefined;
  try {
    if (options.readOnlyCause !== undefined) throw options.readOnlyCause;
    connection = openConnection(path, {
      busyTimeoutMs: options.busyTimeoutMs,
      durability: options.durability,
    });
  } catch (error) {
    if (!isReadOnlyFailure(error)) {
      throw new MemaError("storage_error", `cannot open the database ${path}: ${error}`, {
        hint: "check that the file is a SQLite database and the directory is writable",
        cause: error,
      });
    }
    // A database that cannot be written still serves reads; writes go to the JSONL backup.
    ({ connection, reason: readOnly } = openReadOnly(path, error, options));
  }
  // SQLite opens a file it may not write read-only without a word when its -wal and -shm exist
  // (a read-only mount after a crash): asked of the file system, so it takes no lock.
  const refusal = readOnly === undefined ? writeRefusal(path) : undefined;
  if (refusal !== undefined) {
    connection.close();
    ({ connection, reason: readOnly } = openReadOnly(path, new Error(refusal), options));
  }
  try {
    const schema = readOnly === undefined
      ? prepareSchema(connection)
      : readOnlySchema(connection, path);
    // At 1M memories the count is ~400 ms with the file in the page cache, and reads the whole table.
    if (readOnly === undefined && !options.deferWordIndexCheck && repairFtsIfNeeded(connection)) {
      logWarn(`rebuilt the full-text index of ${path}`);
    }
    const capabilities: StoreCapabilities = {
      fts: getMeta(connection, "fts") === FTS_WORDS,
      vec: false,
      readOnly,
    };
    if (!options.skipVec) {
      const vec = await loadVecExtension(connection.db, { cacheDir: options.cacheDir });
      if (vec.loaded) [capabilities.vec, capabilities.vecVersion] = [true, vec.version];
      else capabilities.vecError = vec.error;
    } else {
      capabilities.vecError = "sqlite-vec loading was skipped";
    }
    return sqliteStore(new SqliteCore(path, connection, { capabilities, schema }));
  } catch (error) {
    connection.close();
    if (error instanceof MemaError) throw error;
    // Opened, but preparing it needed a write the file cannot take: open it read-only.
    if (readOnly === undefined && isReadOnlyFailure(error)) {
      return await openStore(path, { ...options, readOnlyCause: error });
    }
    throw new MemaError("storage_error", `cannot prepare the database ${path}: ${error}`, {
      cause: error,
    });
  }
}

/** The repositories of every room over `core`, behind its units of work. */
function sqliteStore(core: SqliteCore): Store {
  const connection = core.connection;
  const conflicts: ConflictTables = {
    ...asyncRoom(connection, sqliteConflictGroups(core)),
    ...asyncRoom(connection, sqliteNotices(core)),
    ...asyncRoom(connection, sqliteScanQueue(core)),
  };
  const repositories: StoreRepositories = {
    conflicts,
    ...asyncRoom(connection, sqliteMemories(core)),
    ...asyncRoom(connection, sqliteUsage(core)),
    ...asyncRoom(connection, sqliteHistory(core)),
    ...asyncRoom(connection, sqliteWordIndex(core)),
    ...asyncRoom(connection, sqliteRecall(core)),
    ...asyncRoom(connection, sqliteEvidenceRows(core)),
    ...asyncRoom(connection, sqliteVectors(core)),
    ...asyncRoom(connection, sqliteJobs(core)),
    ...asyncRoom(connection, sqlitePendingNotices(core)),
    ...asyncRoom(connection, sqliteWorkspaces(core)),
    ...asyncRoom(connection, sqliteAudit(core)),
    ...asyncRoom(connection, sqliteReplayLog(core)),
    ...asyncRoom(connection, sqliteMeta(core)),
    ...asyncRoom(connection, sqlitePurge(core)),
    ...asyncRoom(connection, sqlitePortability(core)),
    ...asyncRoom(connection, sqliteUpgrade(core)),
    ...asyncRoom(connection, sqliteMaintenance(core)),
    ...asyncRoom(connection, sqliteEntities(core)),
    // Every SQLite write unit runs alone: nothing else can claim a key meanwhile.
    claimKeys: () => Promise.resolve(false),
  };
  const store: Store = {
    ...repositories,
    path: core.path,
    capabilities: core.capabilities,
    schema: core.schema,
    write: (body, options) => core.write(body, options),
    writeBlocking: (body) => core.writeBlocking(body),
    read: (body) => core.read(body),
    withinUnit: (body) => core.withinUnit(body),
    bulkWrites: (body) => core.bulkWrites(body),
    close: () => core.close(),
  };
  // A unit's body is handed the store itself: on SQLite every call inside the unit runs on its
  // transaction already (the connection routes by async context, sqlite_connection.ts).
  core.repositories = store;
  return store;
}
