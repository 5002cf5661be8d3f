/**
 * Directories: creating, listing, scratch folders and removing whole trees.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ensureDir, listDir, makeTempDirIn, removeTreeIfExists } from "./directories.ts";
 *
 * const scratch = makeTempDirIn(undefined, "mema-example-");
 * ensureDir(`${scratch}/models/static`);
 * assert.deepEqual(listDir(scratch), ["models"]);
 * removeTreeIfExists(scratch);
 * removeTreeIfExists(scratch); // already gone: fine
 * ```
 * @module
 */
import { pathKind } from "./paths.ts";

/** Creates a directory and its parents; does nothing when it exists. */
export function ensureDir(path: string): void {
  Deno.mkdirSync(path, { recursive: true });
}

/** Names of the entries of a directory (real or a compiled binary's virtual one). */
export function listDir(path: string): string[] {
  return [...Deno.readDirSync(path)].map((entry) => entry.name);
}

/** One entry of a directory as {@linkcode listEntries} reports it. */
export interface DirEntry {
  name: string;
  /** What the entry is; for a symbolic link, what it points to (undefined when dangling). */
  kind: "file" | "directory" | undefined;
  /** True for a symbolic link (its `kind` is then its target's). */
  link: boolean;
}

/**
 * The entries of a directory, sorted by name: files, directories and symbolic links (with
 * their target's kind). Other kinds (sockets, devices, fifos) are left out.
 */
export function listEntries(path: string): DirEntry[] {
  const entries: DirEntry[] = [];
  for (const entry of Deno.readDirSync(path)) {
    if (entry.isSymlink) {
      entries.push({ name: entry.name, kind: pathKind(`${path}/${entry.name}`), link: true });
    } else if (entry.isFile || entry.isDirectory) {
      entries.push({ name: entry.name, kind: entry.isFile ? "file" : "directory", link: false });
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Creates a new, empty directory inside `dir` (the system's temporary directory when undefined)
 * with a unique name starting with `prefix`.
 */
export function makeTempDirIn(dir: string | undefined, prefix: string): string {
  return Deno.makeTempDirSync({ dir, prefix });
}

/** Removes a directory and everything in it; one that is not there is fine. */
export function removeTreeIfExists(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** True when the current process may write into `dir` (checked without writing a file). */
export function isDirWritable(dir: string): boolean {
  try {
    const probe = `${dir}/.mema-write-probe-${Deno.pid}-${crypto.randomUUID()}`;
    Deno.writeFileSync(probe, new Uint8Array());
    Deno.removeSync(probe);
    return true;
  } catch {
    return false;
  }
}
