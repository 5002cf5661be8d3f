/**
 * Tunables of HTTP access tokens (src/http/access_tokens.ts) and of auditing refused requests. Each
 * value says why it is what it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HTTP_TOKEN_RANDOM_BYTES } from "./access_token_constants.ts";
 *
 * assert.equal(HTTP_TOKEN_RANDOM_BYTES * 8, 256); // tokens carry 256 random bits
 * ```
 * @module
 */

/**
 * Random bytes in a new token: 256 bits, as much as the SHA-256 the file keeps, so the hash is
 * never the easier thing to guess. Base64url makes them 43 characters.
 */
export const HTTP_TOKEN_RANDOM_BYTES = 32;

/**
 * What every generated token starts with, so a leaked one is recognisable in logs and by
 * secret scanners. Inside the bearer alphabet; the whole token (48 characters) is within the
 * 32-512 bounds a shared `MEMA_HTTP_TOKEN` must meet.
 */
export const HTTP_TOKEN_PREFIX = "mema_";

/** Longest token name: a label people type (`mema token revoke NAME`), like an agent id. */
export const HTTP_TOKEN_NAME_MAX_CHARS = 64;

/**
 * How long `mema token add|revoke` waits for another one to finish rewriting the file. Each
 * holds the lock for a read, a hash and a rename: milliseconds. 5 s covers a slow disk.
 */
export const TOKEN_FILE_LOCK_WAIT_MS = 5_000;

/**
 * A lock file older than this was left by a process that died mid-rewrite (a rewrite takes
 * milliseconds), and is taken over.
 */
export const TOKEN_FILE_LOCK_STALE_MS = 30_000;

/** Pause between two attempts to take the token file's lock. */
export const TOKEN_FILE_LOCK_RETRY_MS = 25;

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
