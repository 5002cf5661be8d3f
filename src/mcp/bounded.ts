/**
 * Cutting view fields to size: a long text becomes a preview with its offsets, a long list
 * its first items with the count, nested evidence both. Never ends inside a surrogate pair.
 *
 * @example
 * ```ts
 * import { boundJson, previewAround } from "./bounded.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(previewAround("abcdef", { at: 3, lead: 1, width: 2 }), {
 *   start: 2, end: 4, text: "cd",
 * });
 * assert.deepEqual(boundJson({ a: [1, 2, 3] }, { maxString: 10, maxItems: 2 }).cut, true);
 * ```
 * @module
 */
import { isHighSurrogate } from "../text/code_points.ts";

/** `end` moved back off the middle of a surrogate pair. */
function safeEnd(text: string, end: number): number {
  return end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** `start` moved back to the start of a surrogate pair it splits. */
function safeStart(text: string, start: number): number {
  return start > 0 && isHighSurrogate(text.charCodeAt(start - 1)) ? start - 1 : start;
}

/** A UTF-16 window of `text` of at most `width`, starting `lead` before `at`. */
export function previewAround(
  text: string,
  place: { at: number; lead: number; width: number },
): { start: number; end: number; text: string } {
  const at = Math.min(Math.max(0, place.at), text.length);
  let start = Math.max(0, at - place.lead);
  let end = Math.min(text.length, start + place.width);
  // Near the end: show the last `width` characters rather than a short window.
  if (end - start < place.width) start = Math.max(0, end - place.width);
  start = safeStart(text, start);
  end = safeEnd(text, end);
  return { start, end, text: text.slice(start, end) };
}

/** `text` cut to `max` characters (marked with "…"), and whether it was. */
export function cutText(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  return { text: `${text.slice(0, safeEnd(text, max))}…`, cut: true };
}

/**
 * A JSON value with every string cut to `maxString` and every list to its first `maxItems`
 * (a cut list ends with a string saying how many were left out); `cut` says whether any was.
 */
export function boundJson(
  value: unknown,
  limits: { maxString: number; maxItems: number },
): { value: unknown; cut: boolean } {
  let cut = false;
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") {
      const short = cutText(item, limits.maxString);
      cut ||= short.cut;
      return short.text;
    }
    if (Array.isArray(item)) {
      const kept = item.slice(0, limits.maxItems).map(walk);
      if (item.length > limits.maxItems) {
        cut = true;
        kept.push(`… ${item.length - limits.maxItems} more left out`);
      }
      return kept;
    }
    if (item !== null && typeof item === "object") {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    }
    return item;
  };
  const bounded = walk(value);
  return { value: bounded, cut };
}
