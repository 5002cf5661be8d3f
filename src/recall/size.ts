/**
 * The `size` block on every recall answer, so an agent can report what recall
 * cost in its context window.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { estimateTokens } from "./size.ts";
 *
 * assert.equal(estimateTokens("hello world"), 3);
 * ```
 * @module
 */
import { CHARS_PER_TOKEN_LATIN } from "./constants.ts";

const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Token estimate without a tokenizer: about one token per CJK character and one
 * per four other characters (typical of BPE tokenizers on English JSON).
 */
export function estimateTokens(text: string): number {
  const wide = text.match(WIDE)?.length ?? 0;
  return Math.ceil(wide + (text.length - wide) / CHARS_PER_TOKEN_LATIN);
}

/** The size block of docs/SPEC.md §6. */
export interface RecallSize {
  returned_chars: number;
  returned_count: number;
  tokens_estimate: number;
  method: "heuristic_v1";
}

/** Measures a serialized result list. */
export function measureRecall(results: readonly unknown[], returnedChars: number): RecallSize {
  return {
    returned_chars: returnedChars,
    returned_count: results.length,
    tokens_estimate: estimateTokens(JSON.stringify(results)),
    method: "heuristic_v1",
  };
}
