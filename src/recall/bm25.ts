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

/** A candidate's tokens counted, and its distinct tokens sorted (for prefix ranges). */
interface TokenCounts {
  counts: Map<string, number>;
  sorted: string[];
}

/** Per token array: the rerank gets the same cached arrays query after query. */
const countsOf = new WeakMap<readonly string[], TokenCounts>();

function tokenCounts(tokens: readonly string[]): TokenCounts {
  let found = countsOf.get(tokens);
  if (!found) {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    found = { counts, sorted: [...counts.keys()].sort() };
    countsOf.set(tokens, found);
  }
  return found;
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

/** A query term with the shorter words that count as its prefixes, made once per query. */
interface QueryTerm {
  term: string;
  prefixes: string[];
}

function queryTerm(term: string): QueryTerm {
  const prefixes: string[] = [];
  for (let length = BM25_PREFIX_MIN_CHARS; length < term.length; length++) {
    prefixes.push(term.slice(0, length));
  }
  return { term, prefixes };
}

/**
 * Occurrences of `term`, plus {@link BM25_PREFIX_CREDIT} for each token that begins with it
 * or that it begins with (either at least {@link BM25_PREFIX_MIN_CHARS} long).
 */
function termFrequency({ term, prefixes }: QueryTerm, { counts, sorted }: TokenCounts): number {
  let tf = counts.get(term) ?? 0;
  if (term.length >= BM25_PREFIX_MIN_CHARS) {
    for (let i = lowerBound(sorted, term); i < sorted.length; i++) {
      const token = sorted[i];
      if (!token.startsWith(term)) break;
      if (token !== term) tf += BM25_PREFIX_CREDIT * counts.get(token)!;
    }
  }
  for (const prefix of prefixes) {
    const shorter = counts.get(prefix);
    if (shorter) tf += BM25_PREFIX_CREDIT * shorter;
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
    const counts = tokenCounts(candidate.tokens);
    let score = 0;
    for (const { query, weight } of weighed) {
      const tf = termFrequency(query, counts);
      if (tf === 0) continue;
      score += weight * tf * (BM25_K1 + 1) / (tf + norm);
    }
    scores.set(candidate.id, score);
    best = Math.max(best, score);
  }
  if (best > 0) { for (const [id, score] of scores) scores.set(id, score / best); }
  return scores;
}
