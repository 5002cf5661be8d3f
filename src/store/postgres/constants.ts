/**
 * The PostgreSQL store's tunable numbers, each beside why it is what it is.
 * @module
 */

/**
 * Connections one mema process keeps open. A unit of work holds one for its whole body and
 * other requests use the rest; PostgreSQL's default `max_connections` is 100, so four servers
 * of ten leave room for `psql`, backups and monitoring.
 */
export const PG_POOL_MAX = 10;
/**
 * Memory each of mema's connections may give a sort, hash or materialized CTE before spilling to
 * a temp file. At 100,000 memories a `find`'s BM25 candidates (8,049 for a five-word question,
 * up to the 10,000-posting budget) outgrew PostgreSQL's default 4 MB: 3.5 MB written to a temp
 * file and read back per `find` (`pg_stat_statements`, 394 finds); 16 MB holds the budget's worst
 * case. A bound, not an allocation: a statement that needs less takes less.
 */
export const PG_WORK_MEM = "16MB";

/**
 * Seconds to wait for a connection before the call fails with a clear error (issue 33: an
 * unreachable database fails reads within a bounded time, never hangs).
 */
export const PG_CONNECT_TIMEOUT_S = 10;

/**
 * The advisory lock every write unit takes first (`pg_advisory_xact_lock`), so write units run
 * one at a time across every server on the database, as `BEGIN IMMEDIATE` makes them on one
 * SQLite file: a read-then-write (the duplicate check before an insert, a version check before
 * an update) sees no other writer between its read and its write. The number is arbitrary,
 * fixed ("mema" in ASCII) so every mema version agrees on it.
 */
export const PG_WRITE_LOCK = 0x6d656d61;

/**
 * The key space (the first half of a two-number advisory lock) of the keys a concurrent write
 * unit claims (`PgCore.claimKeys`): a workspace being registered, a text being checked for a
 * duplicate, an entity name being created. PostgreSQL keeps one-number and two-number locks
 * apart, so these never meet `PG_WRITE_LOCK`.
 */
export const PG_KEY_LOCKS = 0x6d656d63;

/**
 * Rows one bulk statement writes (a batch of memories, a copy's index rebuild): one round trip
 * per batch instead of one per row, while a statement's parameters and the JSON it sends stay a
 * few megabytes at most.
 */
export const PG_BULK_ROWS = 500;

/**
 * Parameters one statement may carry: the protocol counts them in 16 bits (65,535), less a
 * margin.
 */
export const PG_PARAMETERS_MAX = 60_000;

/** The advisory lock held while migrations run, so two servers starting at once migrate once. */
export const PG_MIGRATION_LOCK = 0x6d656d62;

/**
 * Rows `mema copy` reads per page of a PostgreSQL source's table (copy_source.ts, a cursor).
 * Memories are the widest rows (their text is capped by the write path), so a page stays
 * within a few MiB however large the library.
 */
export const PG_COPY_PAGE_ROWS = 1_000;

/**
 * Shards of the kept counts (library_counts.ts) the migration makes: more than the transactions
 * that write at once in a team (a pool of 10 per server, a handful of servers), so a writer
 * nearly always finds a free one at once; when all are held it makes another. A reader sums at
 * most this many rows per part.
 */
export const PG_COUNT_SHARDS = 64;
