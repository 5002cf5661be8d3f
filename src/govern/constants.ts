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

/**
 * Refused HTTP requests are audited per window of this length: repeats of one refusal (same
 * caller, reason and peer) within it are one row with a count. A minute keeps the audit
 * readable ("unknown token from 10.0.0.7, 3,412 times between 14:02 and 14:03") and answers
 * "is it still happening" within a minute.
 */
export const REFUSAL_AUDIT_WINDOW_MS = 60_000;

/**
 * Most distinct refusal rows in one window; beyond it every refusal is counted in one overflow
 * row. A flood that varies what it sends (workspace names, claimed identities) thus writes at
 * most 21 rows a minute, about 10 MB a day at ~300 bytes a row, instead of one row a request.
 * 20 is far above what honest misconfigured clients produce (one or two rows each).
 */
export const REFUSAL_AUDIT_ROWS_PER_WINDOW = 20;
