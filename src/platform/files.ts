/**
 * Whole files: reading them, writing them atomically (a temporary sibling renamed into place,
 * so a reader never sees half a file), copying, moving and removing them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTextIfExists, removeFileIfExists, writeTextAtomic } from "./files.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/config.json`;
 * assert.equal(readTextIfExists(path), undefined);
 * writeTextAtomic(path, "{}");
 * assert.equal(readTextIfExists(path), "{}");
 * removeFileIfExists(path);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */

/** Reads a UTF-8 text file, or returns undefined when it does not exist. */
export function readTextIfExists(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Reads a whole file as bytes. */
export function readBytes(path: string): Uint8Array {
  return Deno.readFileSync(path);
}

/** Reads a UTF-8 text file; invalid UTF-8 is an error, never silently replaced. */
export function readTextStrict(path: string): string {
  return new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(path));
}

/** Writes bytes atomically: a temporary sibling first, then a rename. */
export function writeBytesAtomic(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
  Deno.writeFileSync(temporary, bytes);
  Deno.renameSync(temporary, path);
}

/** Writes a UTF-8 text file atomically (temporary sibling, then rename). */
export function writeTextAtomic(path: string, text: string): void {
  writeBytesAtomic(path, new TextEncoder().encode(text));
}

/**
 * Writes a UTF-8 text file atomically, readable and writable by its owner only (0600 where the
 * system has modes): for files that guard access, which other local users have no business reading.
 */
export function writeTextPrivateAtomic(path: string, text: string): void {
  const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
  Deno.writeTextFileSync(temporary, text, { mode: 0o600 });
  try {
    Deno.renameSync(temporary, path);
  } catch (error) {
    removeFileIfExists(temporary);
    throw error;
  }
}

/** A text file written piece by piece that appears under its name only once complete. */
export interface TextFileWriter {
  write(text: string): void;
  /** Syncs and renames the temporary file into place. */
  commit(): void;
  /** Removes the temporary file; the target is left as it was. */
  abort(): void;
}

/** Starts writing `path` through a temporary sibling (see {@linkcode TextFileWriter}). */
export function openTextWriter(path: string): TextFileWriter {
  const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
  const file = Deno.openSync(temporary, { write: true, createNew: true });
  const encoder = new TextEncoder();
  let open = true;
  const close = () => {
    if (open) file.close();
    open = false;
  };
  return {
    write(text) {
      const bytes = encoder.encode(text);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    },
    commit() {
      file.syncSync();
      close();
      Deno.renameSync(temporary, path);
    },
    abort() {
      close();
      try {
        Deno.removeSync(temporary);
      } catch { /* already gone */ }
    },
  };
}

/** Copies a file (overwriting the target). */
export function copyFile(source: string, target: string): void {
  Deno.copyFileSync(source, target);
}

/** Removes a file; a file that is not there is fine. */
export function removeFileIfExists(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/**
 * Creates `path` only if it does not exist (the atomic test-and-set a lock file needs).
 * True when this call created it; false when it was already there.
 */
export function createFileExclusive(path: string): boolean {
  try {
    Deno.openSync(path, { write: true, createNew: true }).close();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  }
}

/** Renames (moves) a file or directory within one file system; replaces a file at `to`. */
export function renamePath(from: string, to: string): void {
  Deno.renameSync(from, to);
}
