/**
 * On-disk size of a SQLite database a benchmark built, measured the same way for every
 * server: once the server has exited, the write-ahead log is checkpointed into the main file
 * (a server that exits without closing its connection leaves it full), then main file + WAL
 * are counted. Only a PRAGMA is run; nothing is read or changed.
 *
 * @example
 * ```ts
 * import { sqliteBytesAfterCheckpoint } from "./bench/helpers/disk.ts";
 * const { totalBytes } = sqliteBytesAfterCheckpoint("/tmp/b/mema.sqlite3");
 * ```
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { fileBytes } from "./stats.ts";

/** Sizes in bytes after a checkpoint; `checkpointed` is false when the checkpoint failed. */
export interface SqliteDiskSize {
  mainBytes: number;
  walBytes: number;
  totalBytes: number;
  checkpointed: boolean;
}

/** Checkpoints (TRUNCATE) the WAL of the database at `path`, then measures main + WAL. */
export function sqliteBytesAfterCheckpoint(path: string): SqliteDiskSize {
  let checkpointed = false;
  try {
    const db = new DatabaseSync(path);
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      checkpointed = true;
    } finally {
      db.close();
    }
  } catch (error) {
    console.error(`checkpoint of ${path} failed: ${error}`);
  }
  const mainBytes = fileBytes(path);
  const walBytes = fileBytes(`${path}-wal`);
  return { mainBytes, walBytes, totalBytes: mainBytes + walBytes, checkpointed };
}
