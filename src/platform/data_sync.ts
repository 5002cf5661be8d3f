/**
 * Flushing a file's written data to stable storage without blocking the thread, through a
 * handle kept open (the SQLite connection syncs its database file this way).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDataSync } from "./data_sync.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/memory.db`;
 * assert.equal(openDataSync(path), undefined); // nothing to open yet
 * Deno.writeTextFileSync(path, "written");
 * const handle = openDataSync(path);
 * assert.ok(handle);
 * await handle.sync();
 * handle.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */

/** A file kept open to flush its written data to disk without blocking the thread. */
export interface DataSyncHandle {
  /** Flushes what was written to the file (through any handle) to stable storage. */
  sync(): Promise<void>;
  close(): void;
}

/** Opens `path` for {@linkcode DataSyncHandle.sync}; undefined when it cannot be opened. */
export function openDataSync(path: string): DataSyncHandle | undefined {
  try {
    // Opened for writing (nothing is written): Windows flushes only handles that may write.
    const file = Deno.openSync(path, { read: true, write: true });
    return {
      sync: () => file.syncData(),
      close: () => {
        try {
          file.close();
        } catch {
          // Already closed.
        }
      },
    };
  } catch {
    return undefined;
  }
}
