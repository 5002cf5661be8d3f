/**
 * Size limits on what an agent may store or ask for (docs/SPEC.md §5, §14). Each is
 * enforced by the service, so every transport gets the same answer.
 * @module
 */

/** Largest content, in UTF-8 bytes (2 MiB, docs/SPEC.md §3). */
export const CONTENT_MAX_BYTES = 2 * 1024 * 1024;
/** Longest subject, in characters: a one-line title, not a second body. */
export const SUBJECT_MAX_CHARS = 512;
/** Most tags stored on one memory (docs/SPEC.md §3). */
export const TAGS_MAX_PER_MEMORY = 32;
/** Most tags accepted in one call (add + remove + new). */
export const TAGS_MAX_PER_CALL = 100;
/** Longest tag, in characters. */
export const TAG_MAX_CHARS = 64;
/** Largest metadata object, in UTF-8 bytes of its JSON. */
export const METADATA_MAX_BYTES = 64 * 1024;
/**
 * Deepest nesting of objects and arrays in metadata (and in any other field),
 * counting the metadata object itself as level 1. SQLite's JSON functions
 * refuse nesting past 1,000 levels (the column's `json_valid` CHECK failed as
 * a storage error); 32 is far beyond any real record of where a fact came
 * from, and keeps every walk over the value shallow.
 */
export const METADATA_MAX_DEPTH = 32;
/** Longest source_ref, in characters (a path, URL or message id). */
export const SOURCE_REF_MAX_CHARS = 2048;
/** Longest update reason, in characters. */
export const REASON_MAX_CHARS = 2000;
/** Most patches in one atomic update. */
export const PATCHES_MAX = 8;
/** Longest query, in characters. */
export const QUERY_MAX_CHARS = 4096;
/** Largest page size for find. */
export const FIND_LIMIT_MAX = 100;
/** Default page size for find. */
export const FIND_LIMIT_DEFAULT = 10;
/** Deepest offset for find pages. */
export const FIND_OFFSET_MAX = 10_000;
/** Most queries in one batch_find. */
export const BATCH_FIND_QUERIES_MAX = 8;
/** Largest per-query page in batch_find. */
export const BATCH_FIND_LIMIT_MAX = 20;
/** Default per-query page in batch_find. */
export const BATCH_FIND_LIMIT_DEFAULT = 3;
/** Most ids in one batch_read with previews. */
export const BATCH_READ_MAX = 50;
/** Most ids in one batch_read returning full content. */
export const BATCH_READ_FULL_MAX = 10;

/**
 * Facts per `batch_remember` call: one transaction (one fsync) for all of them. 500 short
 * facts commit in well under a second, so the write lock is never held long.
 */
export const BATCH_REMEMBER_MAX = 500;
