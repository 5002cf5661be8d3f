/**
 * Paths as text (the directory part, an absolute form) and what a path names on disk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { absolutePath, dirName, pathKind } from "./paths.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * assert.equal(dirName("/data/mema/memory.db"), "/data/mema");
 * assert.equal(absolutePath("/data/./mema/../memory.db"), "/data/memory.db");
 * assert.equal(pathKind(dir), "directory");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */

/** The directory part of a path. */
export function dirName(path: string): string {
  const index = path.lastIndexOf("/");
  if (index < 0) return ".";
  if (index === 0) return "/";
  return path.slice(0, index);
}

/** An absolute, normalized form of `path` (relative to the working directory). */
export function absolutePath(path: string): string {
  const joined = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** True when a file or directory exists at `path`. */
export function pathExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What a path names: a file, a directory, or nothing (missing or another kind). */
export function pathKind(path: string): "file" | "directory" | undefined {
  try {
    const info = Deno.statSync(path);
    return info.isFile ? "file" : info.isDirectory ? "directory" : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The canonical path of `path`: absolute, every symbolic link resolved. Undefined when it
 * cannot be resolved (a dangling link, a link loop, no permission).
 */
export function realPathOf(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** Where a symbolic link points, as written in the link; undefined when `path` is not one. */
export function linkTarget(path: string): string | undefined {
  try {
    return Deno.readLinkSync(path);
  } catch {
    return undefined;
  }
}
