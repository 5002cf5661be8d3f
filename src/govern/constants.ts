/**
 * Tunables of governance actions (src/govern/).
 * @module
 */

/**
 * Most memories one `purge` call removes. Each call rewrites the whole word index once
 * (FTS5 optimize: ~0.1 s at 1,500 memories, growing with the library) and may rewrite the
 * JSONL backup, so a large clean-up goes in several calls; 100 covers a mistaken batch.
 */
export const PURGE_MAX_IDS = 100;

/** Longest purge reason, in characters: the same bound as every governance reason's schema. */
export const PURGE_REASON_MAX_CHARS = 2000;
