/**
 * The text score of the rerank: BM25 computed over the candidates' own index tokens, with
 * constants chosen on LoCoMo instead of FTS5's fixed k1 = 1.2, b = 0.75, and partial credit
 * for a query word that begins a longer word or is begun by one ("camp" in "campfire").
 * The index picks the candidates; this orders them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bm25Scores, countTokens } from "./bm25.ts";
 *
 * const tokens = countTokens(["carolin", "paint", "sunset"]);
 * const scores = bm25Scores(["paint"], [{ id: 1, tokens }], {
 *   frequencies: new Map([["paint", 3]]),
 *   documents: 100,
 * });
 * assert.ok(scores.get(1)! > 0);
 * ```
 * @module
 */
import { BM25_B, BM25_K1, BM25_PREFIX_CREDIT, BM25_PREFIX_MIN_CHARS } from "./constants.ts";

/**
 * BM25's inverse document frequency of a term held by `df` of `documents` memories (callers
 * keep `df` within 1..documents): the one formula the rerank, the neighbour lookups and the
 * static model's query weights share.
 */
export function bm25Idf(df: number, documents: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/**
 * A text's index tokens counted: its distinct tokens sorted (exact and prefix lookups by binary
 * search), how often each occurs, and how many tokens it has in all. Plain arrays: the token
 * cache keeps one per memory (src/recall/memory_terms.ts), and a Map each, kept beside the token
 * list, doubled the process's memory at 100k memories.
 */
export interface TokenCounts {
  sorted: readonly string[];
  counts: readonly number[];
  length: number;
}

/** Counts `tokens` (a memory's index tokens: subject, tags and content). */
export function countTokens(tokens: readonly string[]): TokenCounts {
  const sorted: string[] = [];
  const counts: number[] = [];
  for (const token of [...tokens].sort()) {
    if (sorted.length > 0 && sorted[sorted.length - 1] === token) counts[counts.length - 1]++;
    else sorted.push(token), counts.push(1);
  }
  return { sorted, counts, length: tokens.length };
}

/** A candidate and its counted index tokens. */
export interface TokenizedCandidate {
  id: number;
  tokens: TokenCounts;
}

/** The first index in `sorted` whose token is not below `term`. */
function lowerBound(sorted: readonly string[], term: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] < term) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A query term and its first {@link BM25_PREFIX_MIN_CHARS} characters, made once per query. */
interface QueryTerm {
  term: string;
  head: string;
}

function queryTerm(term: string): QueryTerm {
  return { term, head: term.slice(0, BM25_PREFIX_MIN_CHARS) };
}

/**
 * Occurrences of `term`, plus {@link BM25_PREFIX_CREDIT} for each token that begins with it
 * or that it begins with (either at least {@link BM25_PREFIX_MIN_CHARS} long). One binary
 * search: the tokens that begin with the term sort right after it, and those it begins with
 * right before it, among the run of tokens sharing its first characters (a token outside that
 * run sorts below all of it or above the term).
 */
function termFrequency({ term, head }: QueryTerm, document: TokenCounts): number {
  const { sorted, counts } = document;
  const at = lowerBound(sorted, term);
  const exact = sorted[at] === term;
  let tf = exact ? counts[at] : 0;
  if (term.length < BM25_PREFIX_MIN_CHARS) return tf;
  for (let i = exact ? at + 1 : at; i < sorted.length && sorted[i].startsWith(term); i++) {
    tf += BM25_PREFIX_CREDIT * counts[i];
  }
  for (let i = at - 1; i >= 0 && sorted[i].startsWith(head); i--) {
    if (term.startsWith(sorted[i])) tf += BM25_PREFIX_CREDIT * counts[i];
  }
  return tf;
}

/**
 * BM25 of each candidate for `terms` (index tokens), normalized so the best is 1.
 * `frequencies` are the library's document frequencies and `documents` its size; a term in
 * `termWeights` (another form of a query word) counts that share of its BM25.
 */
export function bm25Scores(
  terms: readonly string[],
  candidates: readonly TokenizedCandidate[],
  library: { frequencies: ReadonlyMap<string, number>; documents: number },
  options: { b?: number; termWeights?: ReadonlyMap<string, number> } = {},
): Map<number, number> {
  const b = options.b ?? BM25_B;
  const scores = new Map<number, number>();
  if (candidates.length === 0) return scores;
  const averageLength = candidates.reduce((sum, c) => sum + c.tokens.length, 0) /
    candidates.length;
  const n = Math.max(library.documents, 1);
  const weighed = terms.map((term) => {
    const df = Math.min(Math.max(library.frequencies.get(term) ?? 1, 1), n);
    const weight = options.termWeights?.get(term) ?? 1;
    return { query: queryTerm(term), weight: weight * bm25Idf(df, n) };
  });
  let best = 0;
  for (const candidate of candidates) {
    const norm = BM25_K1 * (1 - b + b * candidate.tokens.length / (averageLength || 1));
    let score = 0;
    for (const { query, weight } of weighed) {
      const tf = termFrequency(query, candidate.tokens);
      if (tf === 0) continue;
      score += weight * tf * (BM25_K1 + 1) / (tf + norm);
    }
    scores.set(candidate.id, score);
    best = Math.max(best, score);
  }
  if (best > 0) scores.forEach((score, id) => scores.set(id, score / best));
  return scores;
}
