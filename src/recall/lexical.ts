/**
 * The lexical channel: FTS5 BM25 over subject, tags and content, plus a
 * bounded LIKE over subject and tags for terms too short for the trigram index,
 * and LIKE over everything when FTS5 is absent.
 *
 * @example
 * ```ts
 * import { ftsPhrase } from "./src/recall/lexical.ts";
 * ftsPhrase('say "hi"'); // "\"say \"\"hi\"\"\""
 * ```
 * @module
 */
import type { RecallFilters, Store } from "../store/mod.ts";
import { LIKE_POOL, SURFACE_POOL } from "./constants.ts";
import { codePoints, isCjk } from "./tokens.ts";

/** One FTS5 phrase, quoted so no query text is read as FTS syntax. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** Candidate ids with the full-text score of those the index found. */
export interface LexicalCandidates {
  bm25: Map<number, number>;
  ids: number[];
  /** Honest count of memories matching any term under the filters. */
  total: number;
}

/** Collects lexical candidates for `terms`, at most `pool` from the index. */
export function lexicalCandidates(
  store: Store,
  terms: readonly string[],
  options: { filters: RecallFilters; pool: number; count?: boolean },
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
      bm25: new Map(),
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
  const ids = [...bm25.keys()];
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
  return { bm25, ids, total: total + extra };
}
