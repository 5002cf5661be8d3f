/**
 * What the file system says about one file without reading it: size, modification time,
 * identity of a version, permission bits, and whether this process may write it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileSize, isFileWritable, writeRefusal } from "./file_info.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/memory.db`;
 * assert.equal(fileSize(path), undefined);
 * Deno.writeTextFileSync(path, "abc");
 * assert.equal(fileSize(path), 3);
 * assert.ok(isFileWritable(path));
 * assert.equal(writeRefusal(path), undefined);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */

/** The size of the file at `path` in bytes, or undefined when it does not exist. */
export function fileSize(path: string): number | undefined {
  try {
    return Deno.statSync(path).size;
  } catch {
    return undefined;
  }
}

/** When a file was last modified (ms since the epoch), or undefined when it does not exist. */
export function modifiedAt(path: string): number | undefined {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return undefined;
  }
}

/**
 * What identifies one version of a file: inode, size and modification time, or undefined
 * when it does not exist. An atomic rewrite (a new inode) changes it even within one mtime tick.
 */
export function fileSignature(path: string): string | undefined {
  try {
    const info = Deno.statSync(path);
    return `${info.ino ?? ""}:${info.size}:${info.mtime?.getTime() ?? 0}`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * The permission bits of a file (`0o600` …), or undefined when it does not exist or the system
 * has no modes (Windows).
 */
export function filePermissions(path: string): number | undefined {
  try {
    const mode = Deno.statSync(path).mode;
    return mode === null ? undefined : mode & 0o777;
  } catch {
    return undefined;
  }
}

/** True when the file at `path` can be opened for writing. */
export function isFileWritable(path: string): boolean {
  try {
    const file = Deno.openSync(path, { write: true });
    file.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the file at `path` cannot be opened for writing ("Read-only file system
 * (os error 30)", "Permission denied …"), or undefined when it can.
 */
export function writeRefusal(path: string): string | undefined {
  try {
    Deno.openSync(path, { write: true }).close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
