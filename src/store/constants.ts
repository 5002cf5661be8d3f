/**
 * Storage tunables. Each number says where it came from.
 * @module
 */

/**
 * How long a write waits for another process's write lock before `storage_busy`. The README
 * promises "about 6 s": long enough to ride out another process's burst of writes (a 1,000-fact
 * import commits in well under a second), short enough that an agent hears about a stuck
 * process while the user is still waiting. Waiting sleeps on a timer, never blocks the thread.
 */
export const WRITE_LOCK_WAIT_MS = 6_000;
/** First backoff ceiling in ms; doubled each attempt (a lock is usually held for a few ms). */
export const BUSY_RETRY_BASE_MS = 4;
/** Largest backoff ceiling in ms: a freed lock is noticed within ~a quarter second. */
export const BUSY_RETRY_MAX_MS = 250;

/** The schema generation this build writes and accepts. */
export const SCHEMA_GENERATION = 9;

/**
 * BM25 column weights for (subject, tags, content). The subject is a one-line
 * summary the agent chose, so a hit there says more than one in a long body.
 * First guess from the memory-arbiter reranker's 10:10:3 relevance tiers; tuned later on LoCoMo.
 */
export const BM25_WEIGHTS = { subject: 4, tags: 2, content: 1 } as const;
