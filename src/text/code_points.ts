/**
 * Cutting text by UTF-16 offsets without splitting a surrogate pair: half a pair is not
 * Unicode text (a client decoding it sees U+FFFD instead of what was stored).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prefixByUnits, widenToCodePoints } from "./code_points.ts";
 *
 * assert.deepEqual(widenToCodePoints("a😀b", 0, 2), { start: 0, end: 3 });
 * assert.equal(prefixByUnits("a😀b", 2), "a");
 * ```
 * @module
 */

/** True for the first half of a surrogate pair (U+D800–U+DBFF). */
export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** True for the second half of a surrogate pair (U+DC00–U+DFFF). */
export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** True when offset `p` falls between the two halves of a surrogate pair. */
export function splitsSurrogatePair(text: string, p: number): boolean {
  return p > 0 && p < text.length && isHighSurrogate(text.charCodeAt(p - 1)) &&
    isLowSurrogate(text.charCodeAt(p));
}

/**
 * The smallest range of whole code points holding `[start, end)`: a start inside a pair moves
 * back to the pair, an end inside a pair moves past it.
 */
export function widenToCodePoints(
  text: string,
  start: number,
  end: number,
): { start: number; end: number } {
  return {
    start: splitsSurrogatePair(text, start) ? start - 1 : start,
    end: splitsSurrogatePair(text, end) ? end + 1 : end,
  };
}

/** The longest prefix of whole code points at most `units` UTF-16 units long. */
export function prefixByUnits(text: string, units: number): string {
  if (text.length <= units) return text;
  return text.slice(0, splitsSurrogatePair(text, units) ? units - 1 : units);
}
