/**
 * Tunables of governance actions (src/govern/).
 * @module
 */

/**
 * Most memories one `purge` call removes. Each call rewrites the whole word index once (FTS5
 * optimize) and may rewrite the JSONL backup: one purge took 0.14–0.24 s at 10,000 memories
 * (16 MB file), 0.93 s for the first purge of a file that predates secure_delete (VACUUM),
 * measured with a throwaway script over `purgeMemories`. A large clean-up goes in several
 * calls; 100 covers a mistaken batch.
 */
export const PURGE_MAX_IDS = 100;

/** Longest purge reason, in characters: the same bound as every governance reason's schema. */
export const PURGE_REASON_MAX_CHARS = 2000;

/**
 * How often a start tries to truncate the WAL a purge left owed, and the pause between tries.
 * Readers that block it are other processes' read transactions (a find, a page of an export),
 * over in milliseconds; 20 tries 100 ms apart wait up to 2 s, short enough for a server's
 * start, long enough for them. A reader still there after that is left a warning and the debt.
 */
export const OWED_SCRUB_ATTEMPTS = 20;
export const OWED_SCRUB_RETRY_MS = 100;
