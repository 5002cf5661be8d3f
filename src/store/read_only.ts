/**
 * Opening a database that cannot be written at all: a cleanly closed mema
 * database on a read-only file system (or a read-only file in a read-only
 * directory). Such a store serves reads; every write fails with SQLite's
 * "attempt to write a readonly database", which the write path sends to the
 * JSONL backup like any other storage failure.
 *
 * A WAL database normally needs its `-shm` file even to read. When that file
 * neither exists nor can be created, the database is opened with `immutable=1`:
 * SQLite then reads the file without shared memory or locks. That is sound only
 * while nobody writes the file, which holds while the file system is read-only,
 * and only when no `-wal` file holds committed changes (immutable ignores it): a
 * database that was not closed cleanly is refused with the way forward.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isReadOnlyFailure } from "./read_only.ts";
 *
 * assert.equal(isReadOnlyFailure(new Error("attempt to write a readonly database")), true);
 * ```
 * @module
 */
import { DatabaseUnreachable, MemaError } from "../errors/mod.ts";
import { isDirWritable } from "../platform/directories.ts";
import { fileSize, writeRefusal } from "../platform/file_info.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import { SCHEMA_GENERATION } from "./constants.ts";
import { notAMemaDatabase, readGeneration, type SchemaState } from "./schema.ts";
import { openConnection, type SqliteConnection } from "./sqlite_connection.ts";

/** A write-ahead log this size or smaller holds no frame (a log starts with a 32-byte header). */
const WAL_HEADER_BYTES = 32;

/** SQLite's words for "this file cannot be written here" (SQLITE_READONLY, SQLITE_CANTOPEN). */
const READ_ONLY_FAILURE =
  /attempt to write a readonly database|readonly database|read-only file system|unable to open database file/i;

/** True when opening or preparing a database read-write failed because it cannot be written. */
export function isReadOnlyFailure(error: unknown): boolean {
  return error instanceof Error && !(error instanceof MemaError) &&
    READ_ONLY_FAILURE.test(error.message);
}

/**
 * SQLite's words for the other failures of a write that mean "this file cannot take writes
 * now" (disk full, an I/O error), beside a file system that turned read-only; not bad input
 * or a bug.
 */
const STORAGE_FAILURE = /database or disk is full|disk I\/O error|no space left/i;

/** True when a write failed because the database cannot be written now. */
export function isStorageFailure(error: unknown): boolean {
  // A PostgreSQL database that cannot be reached, for a write that certainly did not commit
  // (postgres/unreachable.ts): the write goes to the backup as it would for this file.
  if (error instanceof DatabaseUnreachable) return true;
  return isReadOnlyFailure(error) ||
    (error instanceof Error && !(error instanceof MemaError) &&
      STORAGE_FAILURE.test(error.message));
}

/** A read-only connection and the reason the database is read-only, in words. */
export interface ReadOnlyOpen {
  connection: SqliteConnection;
  reason: string;
}

/**
 * Opens `path` read-only after a read-write open failed with `cause`; throws a
 * `storage_error` that says why when even reading is impossible.
 */
export function openReadOnly(
  path: string,
  cause: unknown,
  options: { busyTimeoutMs?: number },
): ReadOnlyOpen {
  if (!pathExists(path)) {
    throw new MemaError(
      "storage_error",
      `cannot create the database ${path}: ${messageOf(cause)}`,
      { hint: "set MEMA_DB_PATH to a writable location", cause },
    );
  }
  // "Read-only file system (os error 30): open '/path'": the path is said elsewhere.
  const refusal = writeRefusal(path)?.replace(/: open '.*'$/, "");
  if (
    refusal === undefined && isDirWritable(dirName(path)) && !/readonly/i.test(messageOf(cause))
  ) {
    // The file and its directory can be written: the failure was something else.
    throw new MemaError("storage_error", `cannot open the database ${path}: ${messageOf(cause)}`, {
      hint: "check that the file is a SQLite database and the directory is writable",
      cause,
    });
  }
  const reason = refusal ?? `${messageOf(cause)} (its directory cannot be written)`;
  // Frames in the log are commits not folded into the file yet: a database that cannot be
  // written cannot fold them in, and serving it would rest on a log nothing may ever fold
  // (the immutable open below would even ignore it). Refused, with the way forward.
  const wal = fileSize(`${path}-wal`) ?? 0;
  if (wal > WAL_HEADER_BYTES) {
    throw new MemaError(
      "storage_error",
      `cannot serve the database ${path}: it cannot be written (${reason}) and was not closed cleanly (its write-ahead log ${path}-wal holds ${wal} bytes of changes not yet folded into the database)`,
      {
        hint:
          "make the file system writable and start mema once (it folds the log into the database), or copy the database with its -wal and -shm files to a writable place and point MEMA_DB_PATH there",
        cause,
      },
    );
  }
  const plain = tryOpen(path, options);
  if (plain.connection) return { connection: plain.connection, reason };
  const immutable = tryOpen(immutableUri(path), options);
  if (immutable.connection) return { connection: immutable.connection, reason };
  throw new MemaError(
    "storage_error",
    `cannot open the database ${path}: ${messageOf(cause)}; read-only: ${
      messageOf(immutable.error)
    }`,
    { hint: "check that the file is a readable SQLite database", cause },
  );
}

/** The schema of a read-only database: it must already be this build's generation. */
export function readOnlySchema(connection: SqliteConnection, path: string): SchemaState {
  const generation = readGeneration(connection);
  if (generation === undefined) {
    throw notAMemaDatabase();
  }
  if (generation !== SCHEMA_GENERATION) {
    throw new MemaError(
      "schema_mismatch",
      `the database ${path} has schema generation ${generation}, this mema needs ${SCHEMA_GENERATION}, and it cannot be written to bring it up to date`,
      {
        hint: generation > SCHEMA_GENERATION
          ? "install the newer mema that wrote it"
          : "start mema once with the database writable (it upgrades it in place), then it can be served read-only",
      },
    );
  }
  return { generation, created: false, migrated: [] };
}

/** Opens read-only and reads once: SQLite reports a missing `-shm` only at the first read. */
function tryOpen(
  location: string,
  options: { busyTimeoutMs?: number },
): { connection?: SqliteConnection; error?: unknown } {
  let connection: SqliteConnection | undefined;
  try {
    connection = openConnection(location, { readOnly: true, busyTimeoutMs: options.busyTimeoutMs });
    connection.db.prepare("SELECT count(*) FROM sqlite_master").get();
    return { connection };
  } catch (error) {
    connection?.close();
    return { error };
  }
}

/** A SQLite URI for `path` with `immutable=1` (characters URIs reserve are escaped). */
function immutableUri(path: string): string {
  return `file:${path.split("/").map(encodeURIComponent).join("/")}?immutable=1`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
