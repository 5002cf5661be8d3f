/**
 * The text score of the rerank: BM25 computed over the candidates' own index tokens, with
 * constants chosen on LoCoMo instead of FTS5's fixed k1 = 1.2, b = 0.75, and partial credit
 * for a query word that begins a longer word or is begun by one ("camp" in "campfire").
 * The index picks the candidates; this orders them.
 *
 * @example
 * ```ts
 * import { bm25Scores } from "./src/recall/bm25.ts";
 * const scores = bm25Scores(["paint"], [{ id: 1, tokens: ["carolin", "paint", "sunset"] }], {
 *   frequencies: new Map([["paint", 3]]),
 *   documents: 100,
 * });
 * scores.get(1)! > 0; // true
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

/** A candidate and its index tokens (subject, tags and content). */
export interface TokenizedCandidate {
  id: number;
  tokens: readonly string[];
}

function termFrequency(term: string, tokens: readonly string[]): number {
  let tf = 0;
  for (const token of tokens) {
    if (token === term) tf += 1;
    else if (
      (term.length >= BM25_PREFIX_MIN_CHARS && token.startsWith(term)) ||
      (token.length >= BM25_PREFIX_MIN_CHARS && term.startsWith(token))
    ) tf += BM25_PREFIX_CREDIT;
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
  const idf = new Map(terms.map((term) => {
    const df = Math.min(Math.max(library.frequencies.get(term) ?? 1, 1), n);
    return [term, bm25Idf(df, n)];
  }));
  let best = 0;
  for (const candidate of candidates) {
    const norm = BM25_K1 * (1 - b + b * candidate.tokens.length / (averageLength || 1));
    let score = 0;
    for (const term of terms) {
      const tf = termFrequency(term, candidate.tokens);
      if (tf === 0) continue;
      const weight = options.termWeights?.get(term) ?? 1;
      score += weight * idf.get(term)! * tf * (BM25_K1 + 1) / (tf + norm);
    }
    scores.set(candidate.id, score);
    best = Math.max(best, score);
  }
  if (best > 0) { for (const [id, score] of scores) scores.set(id, score / best); }
  return scores;
}
