/**
 * The recall levers as one value, so a benchmark can switch each off (the ablation) or try
 * other values (leave-one-conversation-out selection) through `find` itself. Defaults are
 * the constants of `constants.ts`; nothing user-facing sets a lever.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallTuning } from "./tuning.ts";
 *
 * assert.equal(recallTuning({ followsCarry: 0 }).followsCarry, 0);
 * ```
 * @module
 */
import {
  BM25_B,
  DATE_MATCH_WEIGHT,
  ENTITY_EXPANSION_SHARE,
  FOLLOWS_CARRY,
  FOLLOWS_HOP_SHARE,
  FOLLOWS_HOPS,
  FOLLOWS_THROUGH_HITS,
  HYBRID_VECTOR_WEIGHT,
  SPELLING_WEIGHT,
  VERB_FORM_WEIGHT,
  WORD_POOL,
} from "./constants.ts";

/** Every lever of the rerank that the LoCoMo benchmark measures. */
export interface RecallTuning {
  /** Share of a hit's score lent to the memory that follows it (0: off). */
  followsCarry: number;
  /** How many memories down a sequence a hit lends its score. */
  followsHops: number;
  /** Share of what one hop received that the next hop receives. */
  followsHopShare: number;
  /** Whether a hit's carry continues past a memory that is a hit itself. */
  followsThroughHits: boolean;
  /** Added to candidates dated inside a date the query names (0: dates not read). */
  dateWeight: number;
  /** BM25 length normalization of the rerank. */
  bm25B: number;
  /** Weight of the evidence similarity added to the lexical score (hybrid recall). */
  vectorWeight: number;
  /** Whether memories only the vector channel found may join the ranking. */
  vectorOnly: boolean;
  /** Credit of an irregular verb's past forms searched with its base form (0: not searched). */
  verbFormWeight: number;
  /** Credit of a library word standing in for a misspelt query word (0: not searched). */
  spellingWeight: number;
  /**
   * How the candidate pool is chosen: by the summed IDF of the query words a memory holds
   * (true), or by FTS5's BM25 (false).
   */
  wordPool: boolean;
  /** Share of the best score lent to facts one entity relation away (0: off). */
  entityExpansion: number;
}

/** The levers as shipped. */
export const DEFAULT_TUNING: Readonly<RecallTuning> = {
  followsCarry: FOLLOWS_CARRY,
  followsHops: FOLLOWS_HOPS,
  followsHopShare: FOLLOWS_HOP_SHARE,
  followsThroughHits: FOLLOWS_THROUGH_HITS,
  dateWeight: DATE_MATCH_WEIGHT,
  bm25B: BM25_B,
  vectorWeight: HYBRID_VECTOR_WEIGHT,
  vectorOnly: true,
  verbFormWeight: VERB_FORM_WEIGHT,
  spellingWeight: SPELLING_WEIGHT,
  wordPool: WORD_POOL,
  entityExpansion: ENTITY_EXPANSION_SHARE,
};

/** The shipped levers with `overrides` applied. */
export function recallTuning(overrides: Partial<RecallTuning> = {}): RecallTuning {
  return { ...DEFAULT_TUNING, ...overrides };
}
