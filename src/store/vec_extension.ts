/**
 * Loads the sqlite-vec extension from a real file on disk. The `.so` shipped in
 * node_modules (or inside a compiled binary's virtual file system) is copied to
 * `<cache>/native/sqlite-vec-<hash>/vec0.so` first: SQLite can only dlopen real
 * files, and the content hash keeps two mema versions from sharing one copy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { loadVecExtension } from "./vec_extension.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const db = new DatabaseSync(":memory:", { allowExtension: true });
 * const result = await loadVecExtension(db, { cacheDir: dir });
 * // loaded: false, with the error, where sqlite-vec is missing.
 * assert.equal(typeof result.loaded, "boolean");
 * db.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import * as sqliteVec from "sqlite-vec";
import { ensureDir } from "../platform/directories.ts";
import { readBytes, writeBytesAtomic } from "../platform/files.ts";
import { pathExists } from "../platform/paths.ts";

/** What happened when loading sqlite-vec. */
export type VecLoadResult = { loaded: true; version: string; path: string } | {
  loaded: false;
  error: string;
};

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The copy made for each cache directory in this process. */
const extracted = new Map<string, Promise<string>>();

/**
 * Copies vec0.so to the cache directory (once per directory and process) and returns the real
 * path. A copy deleted since (a cleaned cache, a test's temporary home) is made again: SQLite
 * given a missing path tries `<path>.so` and fails with a confusing message.
 */
export function extractVecExtension(cacheDir: string): Promise<string> {
  const known = extracted.get(cacheDir);
  if (known) {
    return known.then((path) => {
      if (pathExists(path)) return path;
      extracted.delete(cacheDir);
      return extractVecExtension(cacheDir);
    });
  }
  const copying = (async () => {
    const source = sqliteVec.getLoadablePath();
    const bytes = readBytes(source);
    const hash = (await sha256Hex(bytes)).slice(0, 16);
    const dir = `${cacheDir}/native/sqlite-vec-${hash}`;
    const fileName = source.slice(source.lastIndexOf("/") + 1);
    const target = `${dir}/${fileName}`;
    if (!pathExists(target)) {
      ensureDir(dir);
      writeBytesAtomic(target, bytes);
    }
    return target;
  })();
  extracted.set(cacheDir, copying);
  copying.catch(() => extracted.delete(cacheDir));
  return copying;
}

/** Loads sqlite-vec into `db`; any failure is returned, never thrown. */
export async function loadVecExtension(
  db: DatabaseSync,
  options: { cacheDir: string },
): Promise<VecLoadResult> {
  try {
    const path = await extractVecExtension(options.cacheDir);
    db.loadExtension(path);
    const row = db.prepare("SELECT vec_version() AS version").get() as { version: string };
    return { loaded: true, version: row.version, path };
  } catch (error) {
    return { loaded: false, error: error instanceof Error ? error.message : String(error) };
  }
}
