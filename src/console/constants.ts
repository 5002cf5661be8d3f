/**
 * Console tunables. Each value says why it is what it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONSOLE_DEFAULT_PORT } from "./constants.ts";
 *
 * assert.equal(CONSOLE_DEFAULT_PORT, 8766);
 * ```
 * @module
 */

/** The console's port unless `--port` says otherwise (issue 16); the MCP transport has 8000. */
export const CONSOLE_DEFAULT_PORT = 8766;

/** The console binds to loopback only; there is no flag to change it (issue 16). */
export const CONSOLE_HOST = "127.0.0.1";

/**
 * Where a session's pages live: `/s/<secret>/…`. The secret is in the path, not in a cookie
 * (a cookie for 127.0.0.1 goes to every port, so to every other local web app).
 */
export const SESSION_PATH_PREFIX = "/s/";

/**
 * Sessions one console keeps; past it the least recently used ends. Each opening of the printed
 * URL starts one (a tab, a second browser, a reopened window); 32 is more than a person opens in
 * one console's life, and bounds what a script replaying the token can make the console hold.
 */
export const MAX_CONSOLE_SESSIONS = 32;

/**
 * Longest page path (with its query) the console returns to after a change. The longest it
 * makes itself is a memories search with every filter, well under 4 KiB; anything longer falls
 * back to the overview.
 */
export const MAX_RETURN_PATH_CHARS = 4096;

/** The form field carrying the CSRF token on every state-changing request. */
export const CSRF_FIELD = "csrf";

/**
 * Random bytes in the session and CSRF tokens: 32 bytes (256 bits) are beyond guessing, the
 * same strength as `openssl rand -hex 32` that the HTTP transport's docs suggest.
 */
export const TOKEN_BYTES = 32;

/**
 * Largest form body. The biggest form is a conflict step's edited content, bounded by the
 * 2 MiB content limit; URL encoding can triple non-ASCII text, hence 8 MiB.
 */
export const CONSOLE_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** A form body must arrive within this long (loopback: milliseconds; a stall is refused). */
export const CONSOLE_BODY_TIMEOUT_MS = 30_000;

/** Results per page on the memories page (find allows up to 50 per call). */
export const MEMORIES_PAGE_SIZE = 20;

/** Conflicts per page on the conflicts page. */
export const CONFLICTS_PAGE_SIZE = 20;

/** Scan-queue items per page (the queue's own maximum page is larger). */
export const SCAN_QUEUE_PAGE_SIZE = 20;

/**
 * How long the overview reuses a doctor report: doctor probes the database file, sqlite-vec and
 * the model files (tens of milliseconds to seconds with a deep check), and the findings change
 * only when the installation does; a reload after 30 s sees fresh findings.
 */
export const DOCTOR_CACHE_MS = 30_000;

/** Characters of content a result row shows before "…" (the full text is on the memory page). */
export const RESULT_PREVIEW_CHARS = 280;
