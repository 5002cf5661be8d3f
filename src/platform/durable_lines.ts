/**
 * Line files that survive a crash: an append is synced before it returns and is all or nothing,
 * a rewrite replaces the file atomically; appenders and rewriters of several processes share
 * one exclusive lock on the file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { appendLineDurable, rewriteLinesDurable } from "./durable_lines.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/backup.jsonl`;
 * appendLineDurable(path, '{"id":"m1"}');
 * appendLineDurable(path, '{"id":"m2"}');
 * assert.equal(rewriteLinesDurable(path, (line) => !line.includes("m1")), 1);
 * assert.equal(Deno.readTextFileSync(path), '{"id":"m2"}\n');
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { dirName, pathExists } from "./paths.ts";

/**
 * Appends one line to a file and syncs it to disk before returning, so an
 * acknowledged append survives a crash. The line is all or nothing: when the
 * write fails part way (disk full, I/O error) the bytes it got onto the file are
 * cut off again before the error is thrown. A torn last line left by a process
 * that died mid-append is skipped past (the new line starts on a fresh line), so
 * it never swallows the next entry; readers report it as unreadable. Appenders
 * of several processes take an exclusive lock on the file for the check, the
 * write and the cut (without locks, as on some network file systems, nothing is
 * cut: another process's line may follow). `line` may instead be composed from the
 * file's current text, read under that lock.
 */
export function appendLineDurable(
  path: string,
  line: string | ((current: string) => string),
): void {
  const created = !pathExists(path);
  const { file, locked } = openLockedCurrent(path);
  try {
    const end = file.seekSync(0, Deno.SeekMode.End);
    // A line that depends on the file's lines is composed under the lock, so a line another
    // process appends cannot slip in between reading the file and appending to it.
    const text = typeof line === "string" ? line : line(readFrom(file, end));
    const bytes = new TextEncoder().encode(`${endsTorn(file, end) ? "\n" : ""}${text}\n`);
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      file.syncSync();
    } catch (error) {
      // Unlocked, another process may have appended after `end`: leave the tail to be skipped.
      if (locked) cutBackQuietly(file, end);
      throw error;
    }
  } finally {
    file.close();
  }
  // A new file's name lives in its directory: sync that too, or a crash can lose the file.
  if (created) syncDirQuietly(dirName(path));
}

/** The first `size` bytes of an open file, as text (the file position is left at the end). */
function readFrom(file: Deno.FsFile, size: number): string {
  const bytes = new Uint8Array(size);
  file.seekSync(0, Deno.SeekMode.Start);
  let read = 0;
  while (read < size) {
    const n = file.readSync(bytes.subarray(read));
    if (n === null) break;
    read += n;
  }
  file.seekSync(0, Deno.SeekMode.End);
  return new TextDecoder().decode(bytes.subarray(0, read));
}

/** How often an appender reopens a file that {@linkcode rewriteLinesDurable} replaced meanwhile. */
const REPLACED_FILE_RETRIES = 8;

/**
 * Opens `path` for appending and locks it. A rewrite replaces the file by a rename while
 * holding the old file's lock, so an appender that got that lock afterwards holds a file
 * that no longer has the name: it opens the name again (else its line would go to the
 * unlinked file and be lost).
 */
function openLockedCurrent(
  path: string,
  mode: "append" | "rewrite" = "append",
): { file: Deno.FsFile; locked: boolean } {
  for (let attempt = 0;; attempt++) {
    const file = Deno.openSync(
      path,
      mode === "append" ? { read: true, append: true, create: true } : { read: true, write: true },
    );
    const locked = lockQuietly(file);
    if (!locked || attempt >= REPLACED_FILE_RETRIES || sameFile(file, path)) {
      return { file, locked };
    }
    file.close();
  }
}

function sameFile(file: Deno.FsFile, path: string): boolean {
  try {
    const open = file.statSync();
    const named = Deno.statSync(path);
    return open.ino === null || (open.ino === named.ino && open.dev === named.dev);
  } catch {
    return false;
  }
}

/**
 * Rewrites a line file keeping only the lines `keep` accepts, atomically: under the
 * same exclusive lock appenders take, the kept lines go to a temporary sibling that is
 * synced and renamed over the file, and the directory is synced. The old file's bytes
 * are then overwritten with zeros and synced before it is closed, so the removed lines
 * do not stay readable in its blocks (on file systems that write in place). Returns the
 * number of lines removed; a missing file removes nothing.
 */
export function rewriteLinesDurable(path: string, keep: (line: string) => boolean): number {
  if (!pathExists(path)) return 0;
  const { file, locked } = openLockedCurrent(path, "rewrite");
  try {
    const size = file.seekSync(0, Deno.SeekMode.End);
    file.seekSync(0, Deno.SeekMode.Start);
    const bytes = new Uint8Array(size);
    let read = 0;
    while (read < size) {
      const n = file.readSync(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    const text = new TextDecoder().decode(bytes.subarray(0, read));
    const lines = text.split("\n");
    const tail = lines.pop() ?? "";
    const kept = lines.filter((line) => line === "" || keep(line));
    const keptTail = tail === "" || keep(tail) ? tail : "";
    const removed = lines.length - kept.length + (keptTail === tail ? 0 : 1);
    if (removed === 0) return 0;
    const next = kept.map((line) => `${line}\n`).join("") + keptTail;
    const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
    const out = Deno.openSync(temporary, { write: true, createNew: true });
    try {
      const encoded = new TextEncoder().encode(next);
      let written = 0;
      while (written < encoded.length) written += out.writeSync(encoded.subarray(written));
      out.syncSync();
    } catch (error) {
      out.close();
      Deno.removeSync(temporary);
      throw error;
    }
    out.close();
    Deno.renameSync(temporary, path);
    syncDirQuietly(dirName(path));
    zeroQuietly(file, read);
    return removed;
  } finally {
    if (locked) file.unlockSync();
    file.close();
  }
}

/** Overwrites the first `size` bytes of a file with zeros and syncs it. */
function zeroQuietly(file: Deno.FsFile, size: number): void {
  try {
    const zeros = new Uint8Array(Math.min(size, 1 << 20));
    file.truncateSync(size);
    let at = 0;
    while (at < size) {
      file.seekSync(at, Deno.SeekMode.Start);
      at += file.writeSync(zeros.subarray(0, Math.min(zeros.length, size - at)));
    }
    file.syncSync();
  } catch {
    // The file is already replaced; zeroing is a courtesy to the disk's free blocks.
  }
}

/** Takes an exclusive lock on the file; false where the file system has no locks. */
function lockQuietly(file: Deno.FsFile): boolean {
  try {
    file.lockSync(true);
    return true;
  } catch {
    return false;
  }
}

/** True when the file has content that does not end with a newline. */
function endsTorn(file: Deno.FsFile, end: number): boolean {
  if (end === 0) return false;
  const last = new Uint8Array(1);
  file.seekSync(end - 1, Deno.SeekMode.Start);
  return file.readSync(last) === 1 && last[0] !== 0x0a;
}

/** Truncates back to `size`; if even that fails, the next append skips past the tail. */
function cutBackQuietly(file: Deno.FsFile, size: number): void {
  try {
    file.truncateSync(size);
    file.syncSync();
  } catch {
    // The torn tail stays; appendLineDurable starts the next line after it.
  }
}

function syncDirQuietly(dir: string): void {
  try {
    const handle = Deno.openSync(dir, { read: true });
    try {
      handle.syncSync();
    } finally {
      handle.close();
    }
  } catch {
    // Not every platform can open a directory; the file itself is synced.
  }
}
