/**
 * The subject of a fact that came without a title (mem0, mcp-memory-service): its first line,
 * spaces folded, cut at a word past {@linkcode FACT_SUBJECT_CHARS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { factSubject } from "./fact_subject.ts";
 *
 * assert.equal(factSubject("  Prefers   dark mode\nin every editor"), "Prefers dark mode");
 * ```
 * @module
 */
import { shortenSubject } from "../sources.ts";
import { FACT_SUBJECT_CHARS } from "./constants.ts";

/** See the module documentation. */
export function factSubject(content: string): string {
  const line = content.split("\n").find((text) => text.trim() !== "") ?? content;
  return shortenSubject(line.replace(/\s+/g, " ").trim(), FACT_SUBJECT_CHARS);
}
