/**
 * The lexical channel: FTS5 BM25 over subject, tags and content in two indexes
 * (trigram: substrings in any script; words: whole words with Porter stemming),
 * plus a bounded LIKE over subject and tags for terms too short for the trigram
 * index, and LIKE over everything when FTS5 is absent.
 *
 * @example
 * ```ts
 * import { ftsPhrase } from "./src/recall/lexical.ts";
 * ftsPhrase('say "hi"'); // "\"say \"\"hi\"\"\""
 * ```
 * @module
 */
import type { RecallFilters, Store } from "../store/mod.ts";
import { LIKE_POOL, SURFACE_POOL, WORD_POOL_SHARE } from "./constants.ts";
import { codePoints, isCjk, isStopword, textTokens } from "./tokens.ts";

/** One FTS5 phrase, quoted so no query text is read as FTS syntax. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** Candidate ids with the full-text score of those the index found. */
export interface LexicalCandidates {
  /**
   * Full-text relevance, 0..1 (the best candidate 1): each index's BM25 divided by
   * its best hit, summed, divided by the best sum.
   */
  text: Map<number, number>;
  ids: number[];
  /** Honest count of memories matching any term under the filters. */
  total: number;
}

/** Collects lexical candidates for `terms`, at most `pool` from the index. */
export function lexicalCandidates(
  store: Store,
  terms: readonly string[],
  options: {
    filters: RecallFilters;
    pool: number;
    count?: boolean;
    /** The query's words for the stemmed word index ({@link queryWords}); none skips it. */
    words?: readonly string[];
  },
): LexicalCandidates {
  const { filters, pool } = options;
  // Counting every match is the costliest query at scale; callers that only rank skip it.
  const count = options.count ?? true;
  const indexable = terms.filter((term) => codePoints(term) >= 3);
  const short = terms.filter((term) => codePoints(term) < 3);

  if (!store.capabilities.fts) {
    const limit = Math.max(pool, LIKE_POOL);
    const ids = store.likeHits(terms, "all", filters, limit);
    return {
      text: new Map(),
      ids,
      total: count ? store.countLikeHits(terms, "all", filters) : ids.length,
    };
  }

  const bm25 = new Map<number, number>();
  let total = 0;
  if (indexable.length > 0) {
    const phrases = indexable.map(ftsPhrase);
    if (phrases.length > 1) {
      for (const hit of store.ftsHits(phrases.join(" "), filters, pool)) bm25.set(hit.id, hit.bm25);
    }
    const any = phrases.join(" OR ");
    if (bm25.size < pool) {
      for (const hit of store.ftsHits(any, filters, pool)) {
        if (!bm25.has(hit.id)) bm25.set(hit.id, hit.bm25);
      }
    }
    total = count ? store.countFtsHits(any, filters) : bm25.size;
  }
  const wordScores = new Map<number, number>();
  if (options.words && options.words.length > 0) {
    const match = options.words.map(ftsPhrase).join(" OR ");
    for (const hit of store.wordHits(match, filters, Math.ceil(pool * WORD_POOL_SHARE))) {
      wordScores.set(hit.id, hit.bm25);
    }
  }
  const ids = [...new Set([...bm25.keys(), ...wordScores.keys()])];
  const seen = new Set(ids);
  // Terms under three characters ("Go", "北京") cannot use the trigram index: they are
  // looked up in subject and tags, or everywhere when they are all the query has.
  let extra = 0;
  if (short.length > 0) {
    // Short CJK terms are words, not fragments, so they are looked for in content too.
    const columns = indexable.length === 0 || short.some(isCjk) ? "all" : "subject_tags";
    const limit = indexable.length > 0 ? SURFACE_POOL : Math.max(pool, SURFACE_POOL);
    for (const id of store.likeHits(short, columns, filters, limit)) {
      if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
        extra++;
      }
    }
    if (indexable.length === 0 && count) extra = store.countLikeHits(short, "all", filters);
  }
  return {
    text: combineScores([bm25, wordScores]),
    ids,
    total: Math.max(total, wordScores.size) + extra,
  };
}

/** BM25 scores (lower is better) of several indexes as one 0..1 relevance. */
function combineScores(channels: readonly Map<number, number>[]): Map<number, number> {
  const sums = new Map<number, number>();
  for (const scores of channels) {
    let best = 0;
    for (const value of scores.values()) best = Math.max(best, -value);
    if (best === 0) continue;
    for (const [id, value] of scores) sums.set(id, (sums.get(id) ?? 0) - value / best);
  }
  let top = 0;
  for (const value of sums.values()) top = Math.max(top, value);
  if (top > 0) { for (const [id, value] of sums) sums.set(id, value / top); }
  return sums;
}

/**
 * The words of a query for the stemmed index: Latin-script and other spaced
 * words as written (the index stems them itself), no function words, no CJK
 * runs (the trigram index serves those).
 */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const token of textTokens(query)) {
    const word = token.replace(/['’]s$/u, "").replace(/['’]/gu, "");
    if (word === "" || isStopword(word) || isCjk(word)) continue;
    words.add(word);
  }
  return [...words];
}
