/**
 * Opens a SQLite database with mema's pragmas and runs write transactions
 * under `BEGIN IMMEDIATE`, retrying when another process holds the lock.
 *
 * @example
 * ```ts
 * import { openConnection } from "./src/store/sqlite_connection.ts";
 * const connection = openConnection("/tmp/x.sqlite3", { busyTimeoutMs: 5000 });
 * connection.write(() => connection.db.exec("select 1"));
 * ```
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { MemaError } from "../errors/mod.ts";
import { sleepSync } from "../platform/mod.ts";
import { BUSY_RETRY_ATTEMPTS, BUSY_RETRY_BASE_MS, BUSY_RETRY_MAX_MS } from "./constants.ts";

/** Options for {@linkcode openConnection}. */
export interface ConnectionOptions {
  readOnly?: boolean;
  busyTimeoutMs?: number;
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

  constructor(db: DatabaseSync, readOnly: boolean) {
    this.db = db;
    this.readOnly = readOnly;
  }

  /**
   * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`. On SQLITE_BUSY the whole
   * transaction is rolled back and `fn` runs again after a jittered backoff, so
   * `fn` must only touch the database and its own locals.
   */
  write<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    for (let attempt = 1;; attempt++) {
      try {
        this.db.exec("BEGIN IMMEDIATE");
      } catch (error) {
        if (isBusyError(error) && attempt < BUSY_RETRY_ATTEMPTS) {
          backoff(attempt);
          continue;
        }
        throw storageError(error);
      }
      this.#depth++;
      try {
        const result = fn();
        this.db.exec("COMMIT");
        return result;
      } catch (error) {
        rollbackQuietly(this.db);
        if (isBusyError(error) && attempt < BUSY_RETRY_ATTEMPTS) {
          backoff(attempt);
          continue;
        }
        throw storageError(error);
      } finally {
        this.#depth--;
      }
    }
  }

  /** Runs `fn` in one read transaction so it sees a single snapshot. */
  read<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    this.db.exec("BEGIN");
    this.#depth++;
    try {
      return fn();
    } finally {
      this.#depth--;
      rollbackQuietly(this.db);
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

function rollbackQuietly(db: DatabaseSync): void {
  try {
    if (db.isTransaction) db.exec("ROLLBACK");
  } catch {
    // The transaction is already gone (SQLite rolls back itself on some errors).
  }
}

function backoff(attempt: number): void {
  const ceiling = Math.min(BUSY_RETRY_MAX_MS, BUSY_RETRY_BASE_MS * 2 ** (attempt - 1));
  sleepSync(ceiling / 2 + Math.random() * ceiling / 2);
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

/** Opens `path` with WAL, busy_timeout and foreign keys (read-only connections skip WAL setup). */
export function openConnection(path: string, options: ConnectionOptions = {}): SqliteConnection {
  const readOnly = options.readOnly ?? false;
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
      // power loss too, not only a killed process (NORMAL would only guarantee the latter).
      db.exec("PRAGMA synchronous = FULL");
    }
    db.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteConnection(db, readOnly);
}
