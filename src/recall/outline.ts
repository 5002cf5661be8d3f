/**
 * The preview outline: where a memory's parts begin, so an agent can read just
 * the span it needs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildOutline } from "./outline.ts";
 *
 * const outline = buildOutline("# Setup\nRun it.\n# Usage\nCall it.");
 * assert.deepEqual(outline.entries.map((e) => e.head), ["Setup", "Usage"]);
 * ```
 * @module
 */
import { OUTLINE_HEAD_MAX_CHARS, OUTLINE_MAX_ENTRIES } from "./constants.ts";
import { prefixByUnits } from "../text/code_points.ts";

/** One outline entry: the start of a part and its first words. */
export interface OutlineEntry {
  head: string;
  offset: number;
}

/** The outline and how many parts did not fit. */
export interface Outline {
  entries: OutlineEntry[];
  more: number;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= OUTLINE_HEAD_MAX_CHARS) return flat;
  return `${prefixByUnits(flat, OUTLINE_HEAD_MAX_CHARS - 1).trimEnd()}…`;
}

/**
 * Markdown headings when the content has them; otherwise paragraph starts, or
 * line starts for a single paragraph. Offsets are UTF-16 indexes into content.
 */
export function buildOutline(content: string): Outline {
  const parts: OutlineEntry[] = [];
  for (const match of content.matchAll(/^(#{1,6})[ \t]+(.+)$/gm)) {
    parts.push({ head: clip(match[2]), offset: match.index! });
  }
  if (parts.length === 0) {
    const pattern = /\n\s*\n/.test(content) ? /(?:^|\n\s*\n)(\S[^\n]*)/g : /(?:^|\n)(\S[^\n]*)/g;
    for (const match of content.matchAll(pattern)) {
      const text = match[1];
      parts.push({ head: clip(text), offset: match.index! + match[0].length - text.length });
    }
  }
  return {
    entries: parts.slice(0, OUTLINE_MAX_ENTRIES),
    more: Math.max(0, parts.length - OUTLINE_MAX_ENTRIES),
  };
}
