/**
 * `recall_blacklist.jsonl` beside the database: workspaces an unscoped query
 * leaves out (docs/SPEC.md §9) — a scratch pool, an archive, another team's notes. One
 * workspace per line, as a JSON string (`"archive"`), a JSON object
 * (`{"workspace": "archive"}`) or a bare name; blank lines and `#` comments are
 * ignored. No file means nothing is left out. Changes apply to the next query.
 *
 * It never applies to a query that names its workspace, to strict isolation,
 * to browsing without a query, to the expired view, or to reads by id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRecallBlacklist } from "./blacklist.ts";
 *
 * assert.deepEqual(
 *   parseRecallBlacklist('"Archive"\n# old\n{"workspace": "scratch"}\nlab notes\n'),
 *   ["archive", "scratch", "lab-notes"],
 * );
 * ```
 * @module
 */
import { fileSize, modifiedAt } from "../platform/file_info.ts";
import { readTextIfExists } from "../platform/files.ts";
import { logWarn } from "../platform/log.ts";
import { dirName } from "../platform/paths.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";

/** The blacklist's file name, beside the database. */
export const RECALL_BLACKLIST_FILE = "recall_blacklist.jsonl";

/** Canonical workspace names listed in a blacklist file's text. */
export function parseRecallBlacklist(text: string, path = RECALL_BLACKLIST_FILE): string[] {
  const names = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    let name: unknown = line;
    if (line.startsWith('"') || line.startsWith("{")) {
      try {
        const parsed = JSON.parse(line);
        name = typeof parsed === "string" ? parsed : parsed?.workspace;
      } catch {
        name = undefined;
      }
    }
    if (typeof name !== "string" || name.trim() === "") {
      logWarn(`${path}:${index + 1}: not a workspace name; line ignored`);
      return;
    }
    names.add(canonicalWorkspace(name));
  });
  return [...names];
}

const cache = new Map<string, { stamp: string; names: string[] }>();
/**
 * Per path, the time of its directory when the file was last found absent. Creating the file
 * changes that time, so while it stands the file is still absent: one stat that succeeds,
 * instead of one that fails (an error thrown and caught) on every query — most libraries have
 * no blacklist.
 */
const absent = new Map<string, number>();
/**
 * A directory time this recent is not trusted: a file created within the same clock tick
 * would leave it unchanged.
 */
const DIRECTORY_TIME_SETTLED_MS = 2_000;

/** The workspaces listed in the blacklist at `path` (re-read when the file changes). */
export function recallBlacklist(path: string | undefined): string[] {
  if (path === undefined) return [];
  const directoryTime = absent.get(path);
  if (directoryTime !== undefined && modifiedAt(dirName(path)) === directoryTime) return [];
  const modified = modifiedAt(path);
  if (modified === undefined) {
    cache.delete(path);
    const time = modifiedAt(dirName(path));
    if (time !== undefined && Date.now() - time > DIRECTORY_TIME_SETTLED_MS) {
      absent.set(path, time);
    } else {
      absent.delete(path);
    }
    return [];
  }
  absent.delete(path);
  // Size joins the time: two saves within one clock tick still differ in most edits.
  const stamp = `${modified}:${fileSize(path)}`;
  const known = cache.get(path);
  if (known && known.stamp === stamp) return known.names;
  const names = parseRecallBlacklist(readTextIfExists(path) ?? "", path);
  cache.set(path, { stamp, names });
  return names;
}
