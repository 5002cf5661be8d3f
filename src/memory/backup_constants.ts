/**
 * Tunables of the JSONL backup (src/memory/backup.ts).
 * @module
 */

/**
 * How much of a saved change a replay-conflict notice quotes, in characters. Notices ride on
 * ordinary responses, so a 2 MiB content must not travel with each of them; the whole saved
 * change is in the replay report and stays in the backup file. 1,000 characters show a typical
 * fact whole (the README's examples are one or two sentences).
 */
export const CONFLICT_NOTICE_PREVIEW_CHARS = 1000;

/**
 * How many times a saved update reads its chain base from the database before giving up. Each
 * read after the first follows another process that appended an update of the same memory
 * between the read and the backup file's lock; more than a few in a row means a writer loop,
 * and the update fails as an unwritable database would.
 */
export const CHAIN_READS_MAX = 5;

/**
 * How often a server on PostgreSQL looks at its backup file and, when it holds writes not
 * replayed yet (or the database was unreachable), tries to replay them, in milliseconds. One
 * `stat` per tick while nothing is owed; while the database is away, one failed connection
 * attempt per tick. A second keeps "saved while down" to "in the database" within about a
 * second of the database answering, which the team tests wait for.
 */
export const BACKUP_REPLAY_TICK_MS = 1000;
