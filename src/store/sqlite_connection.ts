/**
 * Opens a SQLite database with mema's pragmas and runs write transactions
 * under `BEGIN IMMEDIATE`, retrying when another process holds the lock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openConnection } from "./sqlite_connection.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/x.sqlite3`;
 * const connection = openConnection(path, { busyTimeoutMs: 5000 });
 * await connection.write(async () => connection.db.exec("CREATE TABLE t (x)"));
 * assert.equal(connection.db.prepare("SELECT count(*) AS n FROM t").get()?.n, 0);
 * connection.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import { keepsMemoryChanges, selectMemoryChanges } from "./change_counts_sql.ts";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { MemaError } from "../errors/mod.ts";
import { sleepSync } from "../platform/clock.ts";
import { type DataSyncHandle, openDataSync } from "../platform/data_sync.ts";
import { logWarn } from "../platform/log.ts";
import { GroupSync } from "./group_sync.ts";
import { OpenUnit } from "./open_unit.ts";
import { BUSY_RETRY_BASE_MS, BUSY_RETRY_MAX_MS, WRITE_LOCK_WAIT_MS } from "./constants.ts";

/** Options for {@linkcode openConnection}. */
export interface ConnectionOptions {
  readOnly?: boolean;
  busyTimeoutMs?: number;
  /**
   * `full` (default): every write syncs the WAL, so an acknowledged write survives an OS crash
   * or power loss. `normal`: the WAL is synced at checkpoints only; a killed process loses
   * nothing, a power cut may lose the last writes (never corrupts).
   */
  durability?: "full" | "normal";
}

/**
 * Options of one write transaction. `durable: false` is for background bookkeeping that a
 * re-run redoes (claiming and finishing jobs, a job's findings): its commit skips the fsync,
 * which made up a fifth of the background drain (one sync per 8 ms slice, ~1.2 ms each).
 */
export interface WriteOptions<T = unknown> {
  durable?: boolean;
  /**
   * `false`: the body needs no other writer kept out between its reads and its writes, because
   * each of its statements locks the rows it changes (the job queue's claims, completions and
   * failures). On PostgreSQL such a unit skips the write lock every other write unit takes, so
   * background bookkeeping never queues behind (or holds up) a `remember`. SQLite runs every
   * write unit alone whatever this says.
   */
  serialized?: boolean;
  /**
   * `true`: the body may run beside other concurrent units, because it claims by key
   * (`claimKeys`) whatever it reads before writing (a `remember`: the text's duplicate check, a
   * new workspace, a new entity name). On PostgreSQL such units share the write lock, so they
   * run together across servers but never beside an ordinary (exclusive) unit. SQLite runs every
   * write unit alone whatever this says.
   */
  concurrent?: boolean;
  /**
   * Work to run once the transaction committed, before the write resolves, given its result (a
   * hint computed from what was just written). With `durability: full` in WAL mode the disk sync
   * then runs off the thread meanwhile: the commit leaves its WAL frames unsynced, the WAL file is
   * flushed in the background, and the write resolves only after both (an async hint is awaited
   * too; it reads through the store as any request does, after the unit ended). It must not
   * throw (an error is logged, the write still succeeds) and must not write.
   */
  whileSyncing?: (value: T) => void | Promise<void>;
  /**
   * Runs right after the transaction committed, before anything else (`whileSyncing`, the disk
   * sync): this process's caches are brought up to the commit before any read can ask for it.
   * Only for the outermost write. An error is logged and the write still succeeds, so it must
   * leave things as they were when it fails.
   */
  afterCommit?: () => void;
}

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** True when a node:sqlite error means "another connection holds the lock". */
export function isBusyError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { errcode?: number }).errcode;
  if (typeof code === "number") {
    const primary = code & 0xff;
    return primary === SQLITE_BUSY || primary === SQLITE_LOCKED;
  }
  return /database is locked|database table is locked/i.test(error.message);
}

/** A SQLite connection plus mema's transaction discipline. */
export class SqliteConnection {
  readonly db: DatabaseSync;
  readonly readOnly: boolean;
  #depth = 0;
  #writing = false;
  /** The unit of work open now, if any, and who may use the connection meanwhile. */
  readonly #unit = new OpenUnit();
  /** Write transactions ended (committed or rolled back): part of {@linkcode changeStamp}. */
  #writesEnded = 0;
  /** The stamp of the read transaction open now, once asked ({@linkcode changeStamp}). */
  #readStamp: string | undefined;
  /** The memories stamp of the read transaction open now, once asked ({@linkcode memoriesStamp}). */
  #readMemoriesStamp: string | undefined;
  /** Whether the database keeps the count of memory changes (generation 11); asked once. */
  #countsMemories: boolean | undefined;
  /** Writes running inside an open transaction (their rows change under the read's stamp). */
  #nestedWrites = 0;
  /** The busy_timeout reads use (WAL readers rarely wait; recovery can make them). */
  readonly #busyTimeoutMs: number;
  #currentBusyTimeoutMs: number;
  /** The sync level of acknowledged writes (`durability`). */
  readonly #synchronousDefault: "FULL" | "NORMAL";
  #synchronous: "FULL" | "NORMAL";
  /**
   * The WAL file, for syncs off the thread (`whileSyncing`); only under `durability: full`.
   * Undefined: commits sync themselves.
   */
  readonly #wal: { handle: DataSyncHandle; group: GroupSync } | undefined;

  constructor(
    db: DatabaseSync,
    options: {
      readOnly: boolean;
      busyTimeoutMs: number;
      synchronous: "FULL" | "NORMAL";
      wal?: DataSyncHandle;
    },
  ) {
    this.db = db;
    this.readOnly = options.readOnly;
    this.#busyTimeoutMs = options.busyTimeoutMs;
    this.#currentBusyTimeoutMs = options.busyTimeoutMs;
    this.#synchronousDefault = options.synchronous;
    this.#synchronous = options.synchronous;
    const handle = options.wal;
    this.#wal = handle ? { handle, group: new GroupSync(() => handle.sync()) } : undefined;
  }

  /**
   * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` and resolves with its result.
   * Waiting for another process's write lock never blocks this thread: the lock
   * is tried without SQLite's busy handler and, while it is taken, the call
   * sleeps with a timer so other requests keep being served. After
   * {@linkcode WRITE_LOCK_WAIT_MS} it fails with `storage_busy`. Once the lock is
   * held, `fn` runs as this connection's open unit ({@linkcode SqliteConnection.admits}):
   * calls from outside it wait until it ends, so no other request reads its uncommitted rows
   * or lands a statement in its transaction. On SQLITE_BUSY mid-transaction everything is
   * rolled back and `fn` runs again, so it must only touch the database and its own locals.
   */
  async write<T>(fn: () => Promise<T>, options: WriteOptions<T> = {}): Promise<T> {
    if (this.#depth > 0 && this.#unit.inside()) {
      const value = await this.#nested(fn);
      await meanwhile(options, value);
      return value;
    }
    const durable = options.durable ?? true;
    // A durable commit with work to do after it syncs the WAL off the thread while that runs
    // (the WAL handle exists only under `durability: full`).
    const wal = durable && options.whileSyncing !== undefined ? this.#wal : undefined;
    const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
    for (let attempt = 1;; attempt++) {
      while (!this.admits()) await this.turn();
      const outcome = await this.#tryWrite(fn, 0, durable && wal === undefined, () => {
        // Still the open unit: nothing else runs between the commit and these.
        afterCommit(options);
      });
      if (outcome.done) {
        const synced = wal?.group.sync();
        const hinted = meanwhile(options, outcome.value);
        if (synced) {
          await synced.catch((error) => {
            throw new MemaError(
              "storage_error",
              "the write was saved but could not be synced to disk",
              {
                hint: "check the disk holding the database; the write may be lost on power loss",
                cause: error,
              },
            );
          });
        }
        await hinted;
        return outcome.value;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw storageError(outcome.error);
      await sleep(Math.min(remaining, backoffMs(attempt)));
    }
  }

  /**
   * The same transaction, waiting for the lock on this thread (SQLite's busy
   * handler, then blocking retries). Only for work that runs before any request
   * is served: opening and migrating the database, one-shot CLI commands.
   */
  async writeBlocking<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#depth > 0 && this.#unit.inside()) return await this.#nested(fn);
    const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
    for (let attempt = 1;; attempt++) {
      while (!this.admits()) await this.turn();
      const outcome = await this.#tryWrite(fn, Math.max(0, deadline - Date.now()));
      if (outcome.done) return outcome.value;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw storageError(outcome.error);
      sleepSync(Math.min(remaining, backoffMs(attempt)));
    }
  }

  /**
   * {@linkcode writeBlocking} for a synchronous body, for preparing the schema when the database
   * opens: it runs to its end in this turn of the event loop, before any unit can exist.
   */
  writeNow<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
    for (let attempt = 1;; attempt++) {
      this.#setBusyTimeout(Math.max(0, deadline - Date.now()));
      let begun = false;
      try {
        this.db.exec("BEGIN IMMEDIATE");
        begun = true;
        this.#depth++;
        this.#writing = true;
        const value = fn();
        this.db.exec("COMMIT");
        return value;
      } catch (error) {
        if (begun) rollbackQuietly(this.db);
        if (!isBusyError(error)) throw storageError(error);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw storageError(error);
        sleepSync(Math.min(remaining, backoffMs(attempt)));
      } finally {
        this.#setBusyTimeout(this.#busyTimeoutMs);
        if (begun) {
          this.#depth--;
          this.#writing = false;
          this.#writesEnded++;
        }
      }
    }
  }

  /**
   * True when a call may use the connection now: no unit is open, or the caller runs inside the
   * open one (open_unit.ts). Everything else waits for {@linkcode turn}.
   */
  admits(): boolean {
    return this.#unit.admits();
  }

  /**
   * Resolves once the open unit, if any, has ended; ask {@linkcode admits} again before using the
   * connection (another waiter may have taken it first).
   */
  turn(): Promise<void> {
    return this.#unit.turn();
  }

  /**
   * A write inside an open transaction runs in it. Inside a read, the rows it changes make the
   * read's stamp stale: it is asked again afterwards (`total_changes()` has moved).
   */
  async #nested<T>(fn: () => Promise<T>): Promise<T> {
    this.#forgetReadStamps();
    this.#nestedWrites++;
    try {
      return await fn();
    } finally {
      this.#nestedWrites--;
      this.#forgetReadStamps();
    }
  }

  #forgetReadStamps(): void {
    this.#readStamp = undefined;
    this.#readMemoriesStamp = undefined;
  }

  /**
   * One attempt: the result, or the busy error that says "try again later". The attempt is
   * the open unit from `BEGIN` to the end of `committed`; a lock wait is not.
   */
  #tryWrite<T>(
    fn: () => Promise<T>,
    lockWaitMs = 0,
    durable = true,
    committed?: () => void,
  ): Promise<{ done: true; value: T } | { done: false; error: unknown }> {
    // The sync level can only change outside a transaction; it applies to this one's COMMIT.
    this.#setSynchronous(durable ? this.#synchronousDefault : "NORMAL");
    try {
      this.#setBusyTimeout(lockWaitMs);
      this.db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      this.#setSynchronous(this.#synchronousDefault);
      if (isBusyError(error)) return Promise.resolve({ done: false, error });
      return Promise.reject(storageError(error));
    } finally {
      this.#setBusyTimeout(this.#busyTimeoutMs);
    }
    return this.#unit.run(async () => {
      this.#depth++;
      this.#writing = true;
      try {
        const value = await fn();
        this.db.exec("COMMIT");
        this.#depth--;
        this.#writing = false;
        this.#writesEnded++;
        committed?.();
        return { done: true as const, value };
      } catch (error) {
        rollbackQuietly(this.db);
        if (this.#writing) {
          this.#depth--;
          this.#writing = false;
          this.#writesEnded++;
        }
        if (isBusyError(error)) return { done: false as const, error };
        throw storageError(error);
      } finally {
        this.#setSynchronous(this.#synchronousDefault);
      }
    });
  }

  /**
   * `NORMAL` writes a commit's WAL frames without syncing them. WAL keeps commit order, so the
   * next synced commit (or checkpoint) makes such a commit durable too, and a power loss
   * before it loses only a suffix of unsynced commits, never a synced one.
   */
  #setSynchronous(level: "FULL" | "NORMAL"): void {
    if (level === this.#synchronous || this.readOnly) return;
    this.db.exec(`PRAGMA synchronous = ${level}`);
    this.#synchronous = level;
  }

  #setBusyTimeout(ms: number): void {
    if (ms === this.#currentBusyTimeoutMs) return;
    this.db.exec(`PRAGMA busy_timeout = ${Math.trunc(ms)}`);
    this.#currentBusyTimeoutMs = ms;
  }

  /**
   * True when a durable write given `whileSyncing` work syncs the WAL off the thread meanwhile
   * (`durability: full`, WAL mode, the WAL file opened); otherwise its commit syncs itself.
   */
  get syncsOffThread(): boolean {
    return this.#wal !== undefined;
  }

  /** True inside a write transaction: reads may see changes that are not committed yet. */
  get inWrite(): boolean {
    return this.#writing;
  }

  /**
   * A value that changes whenever what this connection reads may have changed: another
   * connection committed (`PRAGMA data_version`), this one changed a row (`total_changes()`)
   * or ended a write transaction. Undefined inside a write transaction, or one this class did
   * not open, where reads may see changes that are not committed yet. Read it before the rows
   * it vouches for: a commit landing in between then only gives the next call a new stamp.
   */
  changeStamp(): string | undefined {
    if (this.#readsUncommitted()) return undefined;
    // Inside a read transaction the snapshot, and so its stamp, holds until it ends (SQLite
    // moves `data_version` only when a read transaction starts): asked once per read.
    if (this.#readStamp !== undefined) return this.#readStamp;
    const row = this.db.prepare(
      "SELECT (SELECT data_version FROM pragma_data_version) AS version, total_changes() AS changes",
    ).get() as { version: number; changes: number };
    const stamp = `${row.version}:${row.changes}:${this.#writesEnded}`;
    if (this.#keepsReadStamps()) this.#readStamp = stamp;
    return stamp;
  }

  /**
   * {@linkcode changeStamp} for what the `memories` table holds: it moves only when a memory
   * is inserted, updated or deleted (by any connection; the count the generation-11 triggers
   * keep), so caches of records and of the word index's answers outlive the commits of work
   * that changes no memory (a conflict check, embeddings, the job queue). Undefined where
   * {@linkcode changeStamp} is; a database without the count (an older one opened read-only)
   * answers with {@linkcode changeStamp}.
   */
  memoriesStamp(): string | undefined {
    if (this.#readsUncommitted()) return undefined;
    if (this.#readMemoriesStamp !== undefined) return this.#readMemoriesStamp;
    const changes = this.memoryChanges();
    if (changes === undefined) return this.changeStamp();
    const stamp = memoriesStampAt(changes);
    if (this.#keepsReadStamps()) this.#readMemoriesStamp = stamp;
    return stamp;
  }

  /**
   * The count of memory changes as this connection sees it now (inside a write: with its own
   * uncommitted changes), or undefined on a database without the count.
   */
  memoryChanges(): number | undefined {
    this.#countsMemories ??= keepsMemoryChanges(this.db);
    return this.#countsMemories ? selectMemoryChanges(this.db) : undefined;
  }

  /**
   * True inside a write transaction, or one this class did not open: reads may see changes that
   * are not committed, so no stamp can vouch for them.
   */
  #readsUncommitted(): boolean {
    return this.#writing || (this.#depth === 0 && this.db.isTransaction);
  }

  /** True inside a read transaction with no write nested in it: its stamps hold to its end. */
  #keepsReadStamps(): boolean {
    return this.#depth > 0 && this.#nestedWrites === 0;
  }

  /**
   * Runs `fn` in one read transaction so it sees a single snapshot, as the connection's open
   * unit ({@linkcode SqliteConnection.admits}); inside another unit it joins that one.
   */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#depth > 0 && this.#unit.inside()) return await fn();
    while (!this.admits()) await this.turn();
    return await this.#unit.run(async () => {
      this.#beginRead();
      try {
        return await fn();
      } finally {
        this.#endRead();
      }
    });
  }

  /**
   * {@linkcode read} for a synchronous body, for the store's own use: it runs to its end in this
   * turn of the event loop, so it needs no unit. Only for callers already admitted.
   */
  readNow<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    this.#beginRead();
    try {
      return fn();
    } finally {
      this.#endRead();
    }
  }

  #beginRead(): void {
    this.db.exec("BEGIN");
    this.#depth++;
  }

  #endRead(): void {
    this.#depth--;
    this.#forgetReadStamps();
    rollbackQuietly(this.db);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
    this.#wal?.handle.close();
  }
}

/** The {@linkcode SqliteConnection.memoriesStamp} of a database whose memory change count is `changes`. */
export function memoriesStampAt(changes: number): string {
  return `memories:${changes}`;
}

/** Runs a write's `afterCommit` work; the write committed, so its failure is never the write's. */
function afterCommit<T>(options: WriteOptions<T>): void {
  try {
    options.afterCommit?.();
  } catch (error) {
    logWarn(`work after a commit failed (the write is saved): ${error}`);
  }
}

/** Runs a write's `whileSyncing` work; its failure is the hint's, never the write's. */
function meanwhile<T>(options: WriteOptions<T>, value: T): Promise<void> | undefined {
  const failed = (error: unknown) =>
    logWarn(`work after a write failed (the write is saved): ${error}`);
  try {
    return options.whileSyncing?.(value)?.catch(failed);
  } catch (error) {
    failed(error);
  }
}

function rollbackQuietly(db: DatabaseSync): void {
  try {
    if (db.isTransaction) db.exec("ROLLBACK");
  } catch {
    // The transaction is already gone (SQLite rolls back itself on some errors).
  }
}

/** Jittered exponential backoff: half the ceiling plus a random share of the other half. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(BUSY_RETRY_MAX_MS, BUSY_RETRY_BASE_MS * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * ceiling / 2;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function storageError(error: unknown): unknown {
  if (error instanceof MemaError) return error;
  if (isBusyError(error)) {
    return new MemaError("storage_busy", "the database stayed locked by another process", {
      hint: "retry the call; if it persists, look for a stuck process holding the database",
      cause: error,
    });
  }
  return error;
}

/** SQLite's own spacing of automatic checkpoints, in WAL pages (`wal_autocheckpoint`). */
const CHECKPOINT_PAGES_DEFAULT = 1000;

/**
 * Lets the connection's WAL grow to `pages` pages before a commit folds it into the database
 * (undefined: SQLite's default). Per connection; other processes keep their own.
 */
export function setCheckpointSpacing(db: DatabaseSync, pages: number | undefined): void {
  const spacing = pages === undefined ? CHECKPOINT_PAGES_DEFAULT : Math.max(1, Math.trunc(pages));
  db.exec(`PRAGMA wal_autocheckpoint = ${spacing}`);
}

/** Opens `path` with WAL, busy_timeout and foreign keys (read-only connections skip WAL setup). */
export function openConnection(path: string, options: ConnectionOptions = {}): SqliteConnection {
  const readOnly = options.readOnly ?? false;
  const synchronous = options.durability === "normal" ? "NORMAL" : "FULL";
  const db = new DatabaseSync(path, {
    readOnly,
    allowExtension: true,
    enableForeignKeyConstraints: true,
    timeout: options.busyTimeoutMs ?? 5000,
  });
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    if (!readOnly) {
      db.exec("PRAGMA journal_mode = WAL");
      // FULL syncs the WAL on every commit, so an acknowledged write survives an OS crash or
      // power loss too, not only a killed process (NORMAL only guarantees the latter).
      db.exec(`PRAGMA synchronous = ${synchronous}`);
    }
    db.exec("PRAGMA foreign_keys = ON");
    db.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
    // Deleted and overwritten bytes are zeroed in the pages that held them, so a purged fact
    // does not linger in free space of the file (see purge_sql.ts). Measured on 3,000
    // remembers and 1,000 updates: within the run-to-run noise (~1.4 vs ~1.6 ms a write).
    if (!readOnly) db.exec("PRAGMA secure_delete = ON");
  } catch (error) {
    db.close();
    throw error;
  }
  cacheStatements(db);
  return new SqliteConnection(db, {
    readOnly,
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    synchronous,
    wal: readOnly || synchronous !== "FULL" ? undefined : walHandle(db, path),
  });
}

/**
 * The database's WAL file, opened to sync it off the thread, when the database is in WAL mode
 * (not, e.g., in memory or on a file system without shared memory) and the file exists. The file
 * stays in place while this connection is open: SQLite removes it only when the last connection
 * closes, and leaving WAL mode needs every other connection closed.
 */
function walHandle(db: DatabaseSync, path: string): DataSyncHandle | undefined {
  const mode = db.prepare("PRAGMA journal_mode").get() as { journal_mode?: string } | undefined;
  if (mode?.journal_mode !== "wal") return undefined;
  // A read opens the WAL (SQLite creates it on first access).
  db.prepare("SELECT count(*) FROM sqlite_master").get();
  return openDataSync(`${path}-wal`);
}

/**
 * The connection's page cache, in KiB. SQLite's default (2 MiB) is a small share of the index
 * pages a write touches once a library passes ~100k memories (~200 MB on disk). Measured once
 * each on a loaded machine, importing 100k memories took 31.3 CPU-seconds with 64 MiB and 33.3
 * with the default; it is a bound, not an allocation, and at 1.1M the server stayed at ~320 MB
 * RSS (bench/million.ts).
 */
const PAGE_CACHE_KIB = 64 * 1024;

/** Statements kept prepared per connection; past this, the oldest is dropped. */
const STATEMENT_CACHE_MAX = 256;

/**
 * Makes `db.prepare` reuse statements: the store's SQL is a small, fixed set of strings, and
 * preparing one costs about as much as running it (11% of write-time conflict detection's
 * time at 10k memories went to `prepare`). node:sqlite statements are re-runnable, and every
 * use runs to completion before the next, so sharing one per SQL string is safe.
 */
function cacheStatements(db: DatabaseSync): void {
  const prepare = db.prepare.bind(db);
  const cache = new BoundedMap<string, StatementSync>(STATEMENT_CACHE_MAX);
  db.prepare = (sql: string): StatementSync => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
