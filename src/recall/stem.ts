/**
 * A light English suffix stripper for the rerank's query terms. Coverage looks
 * for terms as substrings of the text, so a stem only has to be a prefix that
 * every inflection shares:
 * "painting" → "paint" finds "paints", "painted" and "painting".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stemTerm } from "./stem.ts";
 *
 * assert.equal(stemTerm("stories"), "stor");
 * ```
 * @module
 */

const VOWEL = /[aeiouy]/;

function undouble(stem: string): string {
  // "running" → "runn" → "run"; keep "ll"/"ss" words like "call", "pass".
  return /([bdfgmnprt])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}

const keep = (stem: string) => stem;

/** Suffix, shortest stem left, and what is done to the stem (built once, not per term). */
const RULES: readonly [RegExp, number, (stem: string) => string][] = [
  [/ies$/, 4, keep],
  [/ing$/, 3, undouble],
  [/ed$/, 3, undouble],
  [/(?<=[sxz]|[cs]h)es$/, 3, keep],
  [/ly$/, 4, keep],
  [/(?<![su])s$/, 4, keep],
];

/**
 * Strips one common English inflection when the remaining stem is at least
 * four characters with a vowel (three for "-ing" after undoubling), so short
 * words and names are left alone. Non-Latin terms are returned unchanged.
 */
export function stemTerm(term: string): string {
  if (!/^[a-z]+$/.test(term) || term.length < 5) return term;
  for (const [suffix, minimum, finish] of RULES) {
    if (!suffix.test(term)) continue;
    const stem = finish(term.replace(suffix, ""));
    if (stem.length >= minimum && VOWEL.test(stem)) return stem;
    return term;
  }
  return term;
}
