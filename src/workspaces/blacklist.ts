/**
 * `recall_blacklist.jsonl` beside the database: workspaces an unscoped query
 * leaves out (SPEC §9) — a scratch pool, an archive, another team's notes. One
 * workspace per line, as a JSON string (`"archive"`), a JSON object
 * (`{"workspace": "archive"}`) or a bare name; blank lines and `#` comments are
 * ignored. No file means nothing is left out. Changes apply to the next query.
 *
 * It never applies to a query that names its workspace, to strict isolation,
 * to browsing without a query, to the expired view, or to reads by id.
 *
 * @example
 * ```ts
 * import { parseRecallBlacklist } from "./src/workspaces/blacklist.ts";
 * parseRecallBlacklist('"Archive"\n# old\n{"workspace": "scratch"}\nlab notes\n');
 * // ["archive", "scratch", "lab-notes"]
 * ```
 * @module
 */
import { fileSize, logWarn, modifiedAt, readTextIfExists } from "../platform/mod.ts";
import { canonicalWorkspace } from "./canonical.ts";

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

/** The workspaces listed in the blacklist at `path` (re-read when the file changes). */
export function recallBlacklist(path: string | undefined): string[] {
  if (path === undefined) return [];
  const modified = modifiedAt(path);
  if (modified === undefined) {
    cache.delete(path);
    return [];
  }
  // Size joins the time: two saves within one clock tick still differ in most edits.
  const stamp = `${modified}:${fileSize(path)}`;
  const known = cache.get(path);
  if (known && known.stamp === stamp) return known.names;
  const names = parseRecallBlacklist(readTextIfExists(path) ?? "", path);
  cache.set(path, { stamp, names });
  return names;
}
