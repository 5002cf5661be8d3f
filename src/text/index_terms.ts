/**
 * The full-text index's own tokens. mema computes them itself instead of
 * leaving it to an FTS tokenizer, so one small word index serves every script
 * (measured at 100k memories: a trigram index cost 816 bytes per memory and
 * ~80 ms per query; this one ~150 bytes and a few ms):
 *
 * - words are lower-cased, NFKC-normalized, possessives dropped, and English
 *   words Porter-stemmed ("painting", "paints" → "paint");
 * - CJK runs become overlapping bigrams ("北京大学" → "北京 京大 大学"), the usual
 *   unit of written Chinese and Japanese words; a query's run looks for each of its
 *   bigrams, so "北京的部署时间" still finds "在北京部署" (BM25 ranks the memory holding
 *   more of them first);
 * - function words are left out (they only cost index space and scoring time).
 *
 * Documents and queries go through the same functions, so they always agree.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexText } from "./index_terms.ts";
 *
 * assert.equal(indexText("Caroline's painting of 北京大学"), "carolin paint 北京 京大 大学");
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import { stemmer } from "stemmer";
import { isCjk, isStopword, textTokens } from "./words.ts";

/**
 * Longest token indexed, in code points: a pasted 2,000-character token would
 * only bloat the index; its first 64 characters still identify it.
 */
export const INDEX_TOKEN_MAX_CODE_POINTS = 64;

const ENGLISH_WORD = /^[a-z]+$/;

/** Overlapping bigrams of a CJK run, function characters removed; one character stays one. */
function cjkTokens(run: string): string[] {
  const chars = [...run].filter((char) => !isStopword(char));
  if (chars.length <= 1) return chars;
  const grams: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i] + chars[i + 1]);
  return grams;
}

function wordToken(token: string): string {
  const word = token.replace(/['’]s$/u, "").replace(/['’]/gu, "");
  const capped = word.length <= INDEX_TOKEN_MAX_CODE_POINTS
    ? word
    : [...word].slice(0, INDEX_TOKEN_MAX_CODE_POINTS).join("");
  return ENGLISH_WORD.test(capped) ? stemmer(capped) : capped;
}

/**
 * One query or document word as index tokens: a CJK run gives its bigrams (a
 * phrase), any other word one stemmed token, a function word none.
 */
export function termTokens(token: string): readonly string[] {
  if (token.length > TERM_TOKENS_KEY_MAX) return readTerm(token);
  let tokens = TERM_TOKENS.get(token);
  if (tokens === undefined) {
    tokens = Object.freeze(readTerm(token));
    TERM_TOKENS.set(token, tokens);
  }
  return tokens;
}

/** Words kept in {@link TERM_TOKENS}: a large library's working vocabulary, ~3 MB. */
const TERM_TOKENS_MAX = 30_000;
/**
 * Index tokens per word as written (lower-cased): text repeats its words, and stemming each
 * occurrence again was most of tokenizing a memory (for the index at write time, and for the
 * rerank's counted tokens of a candidate not seen yet).
 */
const TERM_TOKENS = new BoundedMap<string, readonly string[]>(TERM_TOKENS_MAX);
/** Longer words (a CJK run can be a whole paragraph) are read each time, never kept. */
const TERM_TOKENS_KEY_MAX = 40;

function readTerm(token: string): string[] {
  if (isCjk(token)) return cjkTokens(token);
  if (isStopword(token)) return [];
  const word = wordToken(token);
  return word === "" || isStopword(word) ? [] : [word];
}

/** The index tokens of `text`, in order. */
export function indexTokens(text: string): string[] {
  return textTokens(text).flatMap(termTokens);
}

/** The text the index stores for `text`: its tokens separated by spaces. */
export function indexText(text: string): string {
  return indexTokens(text).join(" ");
}

/** The distinct index tokens of a query, in order: one per word, one per bigram of a CJK run. */
export function indexQueryTerms(query: string): string[] {
  return [...new Set(indexTokens(query))];
}
