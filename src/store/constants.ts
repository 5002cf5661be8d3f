/**
 * Storage tunables. Each number says where it came from.
 * @module
 */

/**
 * How many times a write transaction is retried after SQLITE_BUSY. busy_timeout
 * already waits inside SQLite; these retries cover the cases where SQLite
 * returns BUSY without waiting (a read snapshot that must be upgraded). 12
 * attempts with the backoff below spans ~6 s, above the 5 s busy_timeout.
 */
export const BUSY_RETRY_ATTEMPTS = 12;
/** First backoff ceiling in ms; doubled each attempt. */
export const BUSY_RETRY_BASE_MS = 10;
/** Largest backoff ceiling in ms. */
export const BUSY_RETRY_MAX_MS = 1000;

/** The schema generation this build writes and accepts. */
export const SCHEMA_GENERATION = 5;

/**
 * BM25 column weights for (subject, tags, content). The subject is a one-line
 * summary the agent chose, so a hit there says more than one in a long body.
 * First guess from the memory-arbiter reranker's 10:10:3 relevance tiers; tuned later on LoCoMo.
 */
export const BM25_WEIGHTS = { subject: 4, tags: 2, content: 1 } as const;
