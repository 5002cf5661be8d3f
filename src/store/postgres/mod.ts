/**
 * The PostgreSQL store (docs/SPEC.md §15, issue 33): {@linkcode openPostgresStore} connects to a
 * `postgres://` URL, brings the schema to this build's version (migrations.ts) and serves every
 * room of the store ({@linkcode PostgresRepositories}) behind the same units of work as SQLite.
 *
 * Loaded only by a dynamic `import()` when `db_url` names PostgreSQL, so neither this folder nor
 * the driver (npm:postgres) is read on a SQLite user's start path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PG_UNSUPPORTED } from "./mod.ts";
 *
 * // What this version does not do on PostgreSQL is named, and refused when asked for: nothing.
 * assert.deepEqual(PG_UNSUPPORTED, []);
 * ```
 * @module
 */
import { redactDbSecrets, redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";
import type { StoreRepositories } from "../repositories.ts";
import type { WriteOptions } from "../sqlite_connection.ts";
import { PG_POOL_MAX } from "./constants.ts";
import { connectPostgres } from "./connect.ts";
import { PgCore } from "./core.ts";
import { pgHistory, pgMemories, pgPortability } from "./memories_room.ts";
import { pgMeta } from "./meta_room.ts";
import { pgJobs } from "./jobs_room.ts";
import { pgAudit, pgReplayLog } from "./audit_room.ts";
import { pgUsage } from "./usage_room.ts";
import { pgRecall } from "./recall_room.ts";
import { pgEvidenceRows } from "./evidence_room.ts";
import { pgWordIndex } from "./word_index_room.ts";
import { pgMaintenance, pgVectors } from "./vectors_room.ts";
import { VectorCopy } from "./vector_copy.ts";
import { pgPurge } from "./purge_room.ts";
import { pgUpgrade } from "./upgrade_room.ts";
import { pgConflictGroups, pgNotices, pgPendingNotices } from "./conflicts_room.ts";
import { pgScanQueue } from "./scan_queue_room.ts";
import { migratePostgres, type PgSchemaState } from "./migrations.ts";
import { type PgExtensions, readExtensions } from "./extensions.ts";
import { isUnreachable } from "./unreachable.ts";
import { aroundRoomCalls } from "./room_calls.ts";
import { pgWorkspaces } from "./workspaces_room.ts";
import { pgEntities } from "./entities_room.ts";

export { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "./migrations.ts";
export { PG_UNSUPPORTED, postgresUnsupported } from "./readiness.ts";

/** Every room of the store, on PostgreSQL: the SQLite store's interface, whole. */
export type PostgresRepositories = StoreRepositories;

/** An open PostgreSQL store: every room and the units of work. */
export interface PostgresStore extends PostgresRepositories {
  /** The URL without its password (for messages). */
  readonly description: string;
  readonly schema: PgSchemaState;
  /** The server's version, as it reports it (`server_version`). */
  readonly serverVersion: string;
  /** The extensions mema looks for, read when the store opened. */
  readonly extensions: PgExtensions;
  write<T>(
    body: (tx: PostgresRepositories) => Promise<T>,
    options?: WriteOptions<T>,
  ): Promise<T>;
  writeBlocking<T>(body: (tx: PostgresRepositories) => Promise<T>): Promise<T>;
  read<T>(body: (tx: PostgresRepositories) => Promise<T>): Promise<T>;
  withinUnit<T>(body: () => Promise<T>): Promise<T>;
  bulkWrites<T>(body: () => Promise<T>): Promise<T>;
  /** Closes the pool once running queries finish. */
  close(): Promise<void>;
}

/** Options for {@linkcode openPostgresStore}. */
export interface OpenPostgresOptions {
  /** Connections this process keeps (default {@linkcode PG_POOL_MAX}). */
  poolMax?: number;
  /** Seconds a connection may take to open (default `PG_CONNECT_TIMEOUT_S`). */
  connectTimeoutS?: number;
  /**
   * A serving process: when the database cannot be reached, open anyway. Every unit of work
   * then tries to reach it first (and fails with the connection's error while it cannot); the
   * first that does migrates the schema and reads the server's facts, as an open would have.
   */
  waitForDatabase?: boolean;
  /** Called with each statement as it is sent (profiling: bench/find_profile.ts). */
  onQuery?: (query: string) => void;
}

/**
 * Connects to the database at `url` (credentials from the URL, `PGPASSWORD` or the password
 * file, as libpq takes them; TLS options such as `sslmode` pass through) and migrates it.
 * Failures are `storage_error`s whose text names the database without its password.
 */
export async function openPostgresStore(
  url: string,
  options: OpenPostgresOptions = {},
): Promise<PostgresStore> {
  const description = redactDbUrl(url);
  const fail = (doing: string, error: unknown) =>
    new MemaError(
      "storage_error",
      `cannot ${doing} PostgreSQL at ${description}: ${
        redactDbSecrets(error instanceof Error ? error.message : String(error), url)
      }`,
      { hint: "check that the server is up, the URL and the credentials (PGPASSWORD, ~/.pgpass)" },
    );
  const sql = await connectPostgres(url, {
    max: options.poolMax ?? PG_POOL_MAX,
    connectTimeoutS: options.connectTimeoutS,
    onQuery: options.onQuery,
  });
  const facts = {
    schema: { version: 0, applied: [] } as PgSchemaState,
    serverVersion: "not reached yet",
    extensions: {
      pg_trgm: null,
      vector: null,
      vectorAvailable: false,
      vectorIndex: null,
    } as PgExtensions,
  };
  let stage = "connect to";
  /** What opening does once the server answers; raw errors, for the caller to word. */
  const open = async (): Promise<void> => {
    const [row] = await sql`SHOW server_version`;
    const serverVersion = String(row.server_version);
    stage = "migrate the schema of";
    const schema = await migratePostgres(sql);
    stage = "read the extensions of";
    const extensions = await readExtensions(sql);
    Object.assign(facts, { schema, serverVersion, extensions });
  };
  let opened: Promise<void> | undefined;
  try {
    await open();
    opened = Promise.resolve();
  } catch (error) {
    if (!(options.waitForDatabase && isUnreachable(error))) {
      await sql.end({ timeout: 1 }).catch(() => {});
      if (error instanceof MemaError) throw error;
      throw fail(stage, error);
    }
  }
  /** Before each unit while the server has not answered yet: one attempt at a time. */
  const whenOpen = (): Promise<void> => {
    opened ??= (async () => {
      await open();
      // A copy cut short while this server waited is never served (portability/copy.ts).
      const [mark] = await sql`SELECT value FROM meta WHERE key = 'copy_incomplete'`;
      if (mark && String(mark.value) !== "") {
        throw new MemaError(
          "storage_error",
          `PostgreSQL at ${description} holds an unfinished mema copy (started ${mark.value})`,
          { hint: "run the same mema copy again to finish it, then restart this server" },
        );
      }
    })().catch((error) => {
      // Unreachable again: the next unit tries again. Anything else stays the answer.
      if (isUnreachable(error)) opened = undefined;
      throw error;
    });
    return opened;
  };
  const core = new PgCore<PostgresRepositories>(sql, whenOpen);
  const vectors = new VectorCopy();
  const repositories: PostgresRepositories = {
    ...pgMemories(core),
    ...pgUsage(core),
    ...pgHistory(core),
    ...pgWorkspaces(core),
    ...pgMeta(core),
    ...pgJobs(core),
    ...pgAudit(core),
    ...pgReplayLog(core),
    ...pgRecall(core),
    ...pgEvidenceRows(core),
    ...pgPortability(core),
    ...pgWordIndex(core),
    ...pgVectors(core, vectors, facts),
    ...pgMaintenance(core, vectors, facts),
    ...pgPendingNotices(core),
    ...pgPurge(core),
    ...pgUpgrade(core),
    ...pgEntities(core),
    conflicts: { ...pgConflictGroups(core), ...pgNotices(core), ...pgScanQueue(core) },
    claimKeys: (keys) => core.claimKeys(keys),
  };
  core.repositories = repositories;
  return {
    // A call outside a unit waits for the database to be opened too (waitForDatabase).
    ...aroundRoomCalls(repositories, (call) => whenOpen().then(call)),
    description,
    get schema() {
      return facts.schema;
    },
    get serverVersion() {
      return facts.serverVersion;
    },
    get extensions() {
      return facts.extensions;
    },
    write: (body, writeOptions) => core.write(body, writeOptions),
    writeBlocking: (body) => core.writeBlocking(body),
    read: (body) => core.read(body),
    withinUnit: (body) => core.withinUnit(body),
    bulkWrites: (body) => core.bulkWrites(body),
    close: () => core.close(),
  };
}
