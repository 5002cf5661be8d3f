/**
 * Workspace names: every spelling of one project folds to one canonical name,
 * and every way of saying "no particular project" folds to `default`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalWorkspace } from "./workspace_names.ts";
 *
 * assert.equal(canonicalWorkspace("My_Project"), "my-project");
 * assert.equal(canonicalWorkspace("默认"), "default");
 * ```
 * @module
 */

/** The global pool's canonical name. */
export const DEFAULT_WORKSPACE = "default";

/** Names that mean the global pool, compared after case folding and NFKC. */
const DEFAULT_SYNONYMS = new Set([
  "",
  "default",
  "global",
  "none",
  "null",
  "nil",
  "undefined",
  "unknown",
  "general",
  "*",
  "默认",
  "預設",
  "预设",
  "全局",
  "未知",
  "通用",
]);

/** Longest workspace name accepted, in characters. */
export const WORKSPACE_MAX_CHARS = 128;

/**
 * The canonical form of a workspace name: NFKC (full-width letters become
 * ASCII), case folded, and runs of spaces, `_`, `-`, `.` and `/` become one `-`
 * with none at the ends. "My-Project", "my_project" and "ＭＹ ＰＲＯＪＥＣＴ" are one.
 * Separators are unified rather than dropped, so "re-sign" and "resign" stay apart.
 */
export function canonicalWorkspace(name: string | null | undefined): string {
  const folded = (name ?? "").normalize("NFKC").toLowerCase().trim();
  if (DEFAULT_SYNONYMS.has(folded)) return DEFAULT_WORKSPACE;
  const joined = folded.replace(/[\s_\-./\\]+/gu, "-").replace(/^-+|-+$/g, "");
  return DEFAULT_SYNONYMS.has(joined) ? DEFAULT_WORKSPACE : joined;
}
