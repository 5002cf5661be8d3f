/**
 * Query and text tokens, language-neutral: runs of letters and digits are
 * words, runs of CJK characters (which have no spaces) are their own tokens,
 * and common function words are dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { queryTerms } from "./query_terms.ts";
 *
 * assert.deepEqual(queryTerms("Where is the 部署脚本?"), ["部署", "署脚", "脚本"]);
 * ```
 * @module
 */

import { stemTerm } from "./stem.ts";

import { isCjk, STOPWORDS, textTokens } from "../text/words.ts";

export { isCjk, isStopword, textTokens } from "../text/words.ts";

/**
 * CJK runs longer than this are split into overlapping bigrams: written
 * Chinese has no spaces, so "北京的部署" must still find "北京部署", and
 * two-character words are the common unit.
 */
const CJK_RUN_MAX = 3;

function cjkBigrams(run: string): string[] {
  const chars = [...run].filter((char) => !STOPWORDS.has(char));
  if (chars.length <= CJK_RUN_MAX) return [chars.join("")];
  const grams: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i] + chars[i + 1]);
  return grams;
}

/**
 * Longest term used for matching, in code points. The rerank scans each
 * candidate for each term, so a pasted 2,000-character token is cut; its first
 * 64 characters match a superset of the same memories.
 */
const TERM_MAX_CODE_POINTS = 64;

function capTerm(term: string): string {
  return term.length <= TERM_MAX_CODE_POINTS
    ? term
    : [...term].slice(0, TERM_MAX_CODE_POINTS).join("");
}

/** The distinct topic-bearing terms of a query. */
export function queryTerms(query: string): string[] {
  const seen = new Set<string>();
  for (const token of textTokens(query)) {
    if (STOPWORDS.has(token)) continue;
    if (isCjk(token)) { for (const gram of cjkBigrams(token)) seen.add(gram); }
    else seen.add(capTerm(stemTerm(token.replace(/['’]s$/u, ""))));
  }
  return [...seen].filter((term) => term !== "");
}
