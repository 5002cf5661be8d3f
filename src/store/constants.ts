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
export const SCHEMA_GENERATION = 18;

/**
 * BM25 column weights for (subject, tags, content). The subject is a one-line
 * summary the agent chose, so a hit there says more than one in a long body.
 * First guess from the memory-arbiter reranker's 10:10:3 relevance tiers; tuned later on LoCoMo.
 */
export const BM25_WEIGHTS = { subject: 4, tags: 2, content: 1 } as const;

/**
 * Entries of `vector_changes` kept: a process whose vector mirror is further behind than this
 * reloads every vector (~1 s at 100k memories) instead of reading each change (one vec0 point
 * read each, ~30–90 µs). 10,000 entries are ~150 KB on disk and cover a 5,000-memory import
 * made by another process between two of this process's vector lookups.
 */
export const VECTOR_CHANGES_KEPT = 10_000;

/**
 * Row owners (memory id, version) the vector mirror keeps between lookups; past this it starts
 * over. A lookup reads ~100 rows' owners, so 50,000 cover hundreds of recent queries in ~5 MB,
 * where keeping every owner ever read could grow to ~100 MB at a million vectors (issue 38:
 * the copy's budget is 150 MB).
 */
export const VECTOR_OWNERS_KEPT = 50_000;

/**
 * Memory records kept between reads while the database is unchanged (src/store/record_cache.ts),
 * for libraries of up to twice as many memories: a `find`'s 200-candidate pool read as records
 * was a quarter of its time at 1,000 memories. With 10,000 the 10k side-by-side server peaked at
 * 364 MB (253 MB without the cache) for `find` p95 18.6 ms instead of ~22 ms, well inside the
 * peer's 24–29 ms: 5,000 keeps the cache for libraries up to 10,000 memories.
 */
export const RECORD_CACHE_MAX = 5_000;

/**
 * Document counts of index tokens kept while the database is unchanged (src/store/term_cache.ts).
 * A query asks for a dozen words at most; this holds the words of some thousand queries.
 */
export const TERM_CACHE_FREQUENCIES_MAX = 10_000;
/**
 * Ids of postings lists kept while the database is unchanged (src/store/term_cache.ts), all lists
 * together: 4 bytes each, so at most ~1 MB. `find` reads a word's postings only while its words
 * hold at most 2,000 postings (recall/constants.ts `WORD_POOL_MAX_POSTINGS`), so this holds the
 * words of at least 125 such queries.
 */
export const TERM_CACHE_POSTINGS_MAX = 250_000;
/**
 * Ids of capped postings reads (a word's newest holders, when it is held by more memories than
 * a lookup may score) kept while the database is unchanged, all lists together: 4 MB, ~4,000
 * lists of 250. The planned conflict checks of 12,000 imported memories at 1M LoCoMo memories
 * (bench/planned_checks.ts, 24 chunks) asked for 39,572 capped lists of 1,255 distinct words:
 * with room for 250,000 ids 13,299 were read from the index (495 checks per CPU-second), with
 * room for 2,500,000 only the 1,255 first reads (684 per CPU-second).
 */
export const TERM_CACHE_NEWEST_MAX = 1_000_000;
/**
 * Filter verdicts of neighbour lookups kept per filter while the memories are unchanged
 * (src/store/scope_verdicts.ts), at most 4 filters: ~2 MB each.
 */
export const SCOPE_VERDICTS_MAX = 50_000;

/**
 * Rows per `INSERT` when `mema copy` or `mema upgrade` writes a table into a SQLite file
 * (upgrade_sql.ts `copyRows`), fewer when a row's columns would pass
 * {@linkcode SQLITE_PARAMETERS_MAX}: one statement per row paid a call into SQLite each.
 */
export const COPY_BATCH_ROWS = 200;
/** The most `?` parameters one SQLite statement may hold (SQLITE_MAX_VARIABLE_NUMBER since 3.32). */
export const SQLITE_PARAMETERS_MAX = 32_766;
