/**
 * What a string costs in an answer, in UTF-8 bytes of JSON. A tool answer
 * carries each string twice: once in `structuredContent` (escaped once) and
 * once inside the text block, which is itself a JSON string (escaped twice:
 * `"` becomes `\"` then `\\\"`, U+0001 becomes `\u0001` then `\\u0001`).
 *
 * @example
 * ```ts
 * import { answerCost, utf8Length } from "./answer_bytes.ts";
 * import assert from "node:assert/strict";
 * assert.equal(utf8Length("é"), 2);
 * assert.equal(answerCost("\u0001", 0, 1), 6 + 7);
 * ```
 * @module
 */
import { isHighSurrogate, isLowSurrogate } from "../text/code_points.ts";

/** UTF-8 length of a string without encoding it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * True when `text` is at most `maxBytes` in UTF-8. A UTF-16 unit is at most 3 bytes, so a
 * text shorter than a third of the limit fits without being scanned (most answers).
 */
export function fitsUtf8(text: string, maxBytes: number): boolean {
  return text.length * 3 <= maxBytes || utf8Length(text) <= maxBytes;
}

/** The two-character escapes JSON.stringify uses for these control characters. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/**
 * Bytes the UTF-16 unit at `index` adds to an answer, both copies together; a
 * surrogate pair counts on its high half (its low half then costs 0).
 */
function unitCost(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  if (unit === 0x22 || unit === 0x5c) return 2 + 4; // \"  then \\\"
  if (unit < 0x20) return SHORT_ESCAPES.has(unit) ? 2 + 3 : 6 + 7; // \n then \\n; \u0001 then \\u0001
  if (unit < 0x80) return 2;
  if (unit < 0x800) return 4;
  if (isLowSurrogate(unit) && isHighSurrogate(text.charCodeAt(index - 1))) return 0;
  if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(index + 1))) return 8;
  // A lone surrogate: JSON.stringify writes \udXXX (then \\udXXX).
  if (isHighSurrogate(unit) || isLowSurrogate(unit)) return 6 + 7;
  return 6;
}

/** Bytes `text.slice(start, end)` adds to an answer, in `structuredContent` and the text block. */
export function answerCost(text: string, start = 0, end = text.length): number {
  let bytes = 0;
  for (let i = start; i < end; i++) bytes += unitCost(text, i);
  return bytes;
}

/**
 * The largest `end` such that `text.slice(start, end)` costs at most `budget`
 * bytes in an answer, never inside a surrogate pair.
 */
export function fittingEnd(text: string, start: number, budget: number): number {
  let bytes = 0;
  let end = start;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    const pair = isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(end + 1));
    const cost = unitCost(text, end);
    if (bytes + cost > budget) break;
    bytes += cost;
    end += pair ? 2 : 1;
  }
  return end;
}
