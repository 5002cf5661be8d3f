/**
 * How `mema serve` stops (SIGINT/SIGTERM, or the stdio client leaving). With
 * the HTTP transport's grace period G (src/mcp/http_constants.ts), the process
 * is gone within G + HTTP_CLOSE_WAIT_MS + SERVE_WORKER_STOP_MS +
 * SERVE_EXIT_LINGER_MS = G + 0.8 s, whatever its clients do.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SERVE_EXIT_LINGER_MS } from "./shutdown_constants.ts";
 *
 * assert.ok(SERVE_EXIT_LINGER_MS < 1000);
 * ```
 * @module
 */

/**
 * How long stopping waits, once the transport has stopped, for the background
 * job in progress. The worker was told to stop when the signal came, so a job
 * had the grace period too; handlers are idempotent and a cut-off job's lease
 * expires, so it runs again on the next start.
 */
export const SERVE_WORKER_STOP_MS = 300;

/**
 * How long the process may take to end by itself once the store is closed.
 * Work still pending for a request that was cut off (a model download, a
 * timer) would otherwise keep it alive; after this it is ended explicitly,
 * with the exit code already decided. Every acknowledged write was committed
 * synchronously before its answer, so nothing acknowledged is lost.
 */
export const SERVE_EXIT_LINGER_MS = 250;
