/**
 * The lexical channel: candidates from the word index (subject, tags, content; mema's
 * own tokens, see src/text/index_terms.ts), the memories holding the most IDF weight of
 * the query's words (or FTS5's BM25 top hits, the `wordPool` lever off), with the query's
 * terms pruned by document frequency (and, when even the rarest is held by more memories than
 * the budget, read newest first up to it) so a query's cost is bounded however large the
 * library grows, and LIKE over everything when FTS5 is absent. The rerank (src/recall/bm25.ts,
 * rank.ts) orders them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pruneTerms } from "./lexical.ts";
 *
 * const { kept } = pruneTerms([
 *   { token: "carolin", frequency: 2 },
 *   { token: "the", frequency: 0 },
 * ]);
 * assert.ok(kept.some((term) => term.token === "carolin"));
 * ```
 * @module
 */
import type { LexicalHit, RecallFilters, Store } from "../store/mod.ts";
import { bm25Idf } from "./bm25.ts";
import { indexQueryTerms, termTokens } from "../text/index_terms.ts";
import { verbForms } from "../text/irregular.ts";
import {
  LIKE_POOL,
  QUERY_CAPPED_TERMS,
  QUERY_POSTINGS_BUDGET,
  QUERY_TERMS_MAX,
  WORD_POOL_MAX_POSTINGS,
} from "./constants.ts";
import { spellingVariants } from "./spelling.ts";
import { queryTerms, textTokens } from "./query_terms.ts";

/** Candidate ids with the full-text score of those the index found. */
export interface LexicalCandidates {
  /**
   * Index relevance, 0..1 (the best candidate 1): summed IDF of the words held (or FTS5's
   * BM25) divided by the best hit's. Only the LIKE fallback's order uses it; with the index the
   * rerank scores the pool itself.
   */
  text: Map<number, number>;
  ids: number[];
  /**
   * How many memories match the query's terms: exact when the pool was not filled and no
   * term was pruned, otherwise a lower bound (the most frequent term's document count).
   */
  total: number;
  /** Every index token of the query with its document frequency (pruned ones too). */
  frequencies: Map<string, number>;
  /** Tokens searched only as another form of a query word (an irregular verb's past). */
  alternates: Set<string>;
  /**
   * Query tokens no memory holds, each with the library tokens searched in its place
   * (src/recall/spelling.ts); their frequencies are in `frequencies` too.
   */
  variants: Map<string, string[]>;
}

/** A query token with how many memories hold it. */
export interface WeighedTerm {
  token: string;
  frequency: number;
}

/**
 * The terms worth scoring, rarest first: every term that occurs at all, as long as
 * their summed document frequencies stay within {@linkcode QUERY_POSTINGS_BUDGET} and
 * their number within the term cap; the rarest term is always kept. A term held by a
 * large share of the library adds little to BM25 (its IDF is near zero) but costs one
 * score per memory holding it, which is what made queries grow linearly with the library.
 */
export function pruneTerms(
  terms: readonly WeighedTerm[],
  options: { maxTerms?: number; budget?: number } = {},
): { kept: WeighedTerm[]; pruned: WeighedTerm[] } {
  const maxTerms = options.maxTerms ?? QUERY_TERMS_MAX;
  const budget = options.budget ?? QUERY_POSTINGS_BUDGET;
  const present = terms.filter((term) => term.frequency > 0)
    .sort((a, b) => a.frequency - b.frequency);
  const kept: WeighedTerm[] = [];
  const pruned: WeighedTerm[] = [];
  let spent = 0;
  for (const term of present) {
    const fits = kept.length < maxTerms && spent + term.frequency <= budget;
    if (kept.length === 0 || fits) {
      kept.push(term);
      spent += term.frequency;
    } else {
      pruned.push(term);
    }
  }
  return { kept, pruned };
}

/** A term whose postings are read newest first, up to `newest` of them. */
export interface CappedTerm extends WeighedTerm {
  newest: number;
}

/**
 * The terms to read when the rarest one alone is held by more memories than `budget`
 * ({@linkcode pruneTerms} then keeps it whole): the {@linkcode QUERY_CAPPED_TERMS} rarest,
 * each capped at an equal share of the budget, so the read is bounded at any library size.
 * Undefined when the kept terms fit the budget (the usual case up to ~100k memories).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cappedTerms } from "./lexical.ts";
 *
 * const capped = cappedTerms([{ token: "famili", frequency: 90_000 }], { budget: 10_000 });
 * assert.deepEqual(capped, [{ token: "famili", frequency: 90_000, newest: 10_000 }]);
 * ```
 */
export function cappedTerms(
  terms: readonly WeighedTerm[],
  options: { maxTerms?: number; budget?: number } = {},
): CappedTerm[] | undefined {
  const budget = options.budget ?? QUERY_POSTINGS_BUDGET;
  const present = terms.filter((term) => term.frequency > 0)
    .sort((a, b) => a.frequency - b.frequency);
  if (present.length === 0 || present[0].frequency <= budget) return undefined;
  const count = Math.min(QUERY_CAPPED_TERMS, options.maxTerms ?? QUERY_TERMS_MAX);
  const read = present.slice(0, Math.max(count, 1));
  const share = Math.max(1, Math.floor(budget / read.length));
  return read.map((term) => ({ ...term, newest: share }));
}

/** Each token with its document frequency. */
async function weigh(store: Store, tokens: readonly string[]): Promise<WeighedTerm[]> {
  const frequencies = await store.tokenFrequencies(tokens);
  return tokens.map((token) => ({ token, frequency: frequencies.get(token) ?? 0 }));
}

/**
 * The memories holding the most IDF weight of `terms` (each term's BM25 IDF in the library),
 * best first: the word pool of `find` and the neighbours of the conflict and duplicate checks.
 */
async function sharedWordHits(
  store: Store,
  terms: readonly (WeighedTerm & { newest?: number })[],
  filters: RecallFilters,
  limit: number,
): Promise<LexicalHit[]> {
  const documents = Math.max(await store.indexedMemories(), 1);
  const weighed = terms.map((term) => {
    const df = Math.min(Math.max(term.frequency, 1), documents);
    const weight = bm25Idf(df, documents);
    return term.newest === undefined
      ? { token: term.token, weight }
      : { token: term.token, weight, newest: term.newest };
  });
  return await store.weightedTermHits(weighed, filters, limit);
}

/** Collects lexical candidates for `query`, at most `pool` of them. */
export async function lexicalCandidates(
  store: Store,
  query: string,
  options: {
    filters: RecallFilters;
    pool: number;
    maxTerms?: number;
    budget?: number;
    /** Also search the past forms of the query's irregular verbs (src/text/irregular.ts). */
    verbForms?: boolean;
    /** Pick the pool by summed IDF of the words held (WORD_POOL, up to WORD_POOL_MAX_POSTINGS). */
    wordPool?: boolean;
    /** Search a word no memory holds as the library's words a slip away (src/recall/spelling.ts). */
    spelling?: boolean;
  },
): Promise<LexicalCandidates> {
  const { filters, pool } = options;
  const alternates = new Set<string>();
  const variants = new Map<string, string[]>();
  const none = (frequencies: Map<string, number>) => ({
    text: new Map<number, number>(),
    ids: [],
    total: 0,
    frequencies,
    alternates,
    variants,
  });
  if (!store.capabilities.fts) {
    const terms = queryTerms(query);
    if (terms.length === 0) return none(new Map());
    const ids = await store.likeHits(terms, filters, Math.max(pool, LIKE_POOL));
    return {
      text: new Map(),
      ids,
      total: ids.length,
      frequencies: new Map(),
      alternates,
      variants,
    };
  }
  const own = indexQueryTerms(query);
  if (options.verbForms) {
    for (const token of verbFormTokens(query)) if (!own.includes(token)) alternates.add(token);
  }
  const weighed = await weigh(store, [...own, ...alternates]);
  const frequencies = new Map(weighed.map((term) => [term.token, term.frequency]));
  if (options.spelling) {
    const found = await spellingVariants(store, weighed.filter((term) => own.includes(term.token)));
    for (const [token, near] of found) {
      variants.set(token, near.map((term) => term.token));
      for (const term of near) {
        if (frequencies.has(term.token)) continue;
        weighed.push(term);
        frequencies.set(term.token, term.frequency);
      }
    }
  }
  const { kept, pruned } = pruneTerms(weighed, options);
  if (kept.length === 0) return none(frequencies);
  const postings = kept.reduce((sum, term) => sum + term.frequency, 0);
  const capped = cappedTerms(weighed, options);
  const hits = capped
    ? await sharedWordHits(store, capped, filters, pool)
    : options.wordPool && postings <= WORD_POOL_MAX_POSTINGS
    ? await sharedWordHits(store, kept, filters, pool)
    : await store.termHits(kept.map((term) => term.token), filters, pool);
  const best = hits.reduce((top, hit) => Math.max(top, hit.relevance), 0);
  const text = new Map<number, number>();
  for (const hit of hits) text.set(hit.id, best > 0 ? hit.relevance / best : 0);
  const exact = hits.length < pool && pruned.length === 0 && !capped;
  const mostFrequent = Math.max(...[...kept, ...pruned].map((term) => term.frequency));
  return {
    text,
    ids: hits.map((hit) => hit.id),
    total: exact ? hits.length : Math.max(hits.length, mostFrequent),
    frequencies,
    alternates,
    variants,
  };
}

/**
 * Memories that share the rarest words of `text` (its index tokens pruned as for a query),
 * best first by the summed IDF of the words they hold: neighbours for the conflict and
 * duplicate checks, which compare the few they get and need no text ranking, so they skip
 * the index's BM25 (see Store.weightedTermHits). Without FTS5, the LIKE fallback.
 */
export async function sharedWordCandidates(
  store: Store,
  text: string,
  options: { filters: RecallFilters; pool: number; maxTerms: number; budget: number },
): Promise<number[]> {
  if (!store.capabilities.fts) {
    return (await lexicalCandidates(store, text, options)).ids;
  }
  const weighed = await weigh(store, indexQueryTerms(text));
  const { kept } = pruneTerms(weighed, options);
  if (kept.length === 0) return [];
  const read = cappedTerms(weighed, options) ?? kept;
  return (await sharedWordHits(store, read, options.filters, options.pool)).map((hit) => hit.id);
}

/** The index tokens of the other forms of each irregular verb the query names in its base form. */
export function verbFormTokens(query: string): string[] {
  const out = new Set<string>();
  for (const word of textTokens(query)) {
    for (const form of verbForms(word)) {
      if (form !== word) { for (const token of termTokens(form)) out.add(token); }
    }
  }
  return [...out];
}
