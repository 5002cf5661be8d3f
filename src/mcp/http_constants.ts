/**
 * Streamable HTTP transport tunables (docs/SPEC.md §10). Each value says why it is
 * what it is; change one only with the reason written beside it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HTTP_BODY_LIMIT_BYTES } from "./http_constants.ts";
 *
 * assert.equal(HTTP_BODY_LIMIT_BYTES, 4 * 1024 * 1024);
 * ```
 * @module
 */

/**
 * Largest request body, fixed by docs/SPEC.md §10 at 4 MiB: twice the 2 MiB content
 * limit, so a `remember` at that limit fits with room for JSON escaping of
 * ordinary text (quotes, newlines); content that is mostly characters JSON
 * must escape can pass 4 MiB and is refused whole with 413, never half-read.
 */
export const HTTP_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** The one path the MCP endpoint answers on (docs/SPEC.md §10). */
export const HTTP_MCP_PATH = "/mcp";

/** Longest `X-Mema-Client` value; the same bound as the `client` config key. */
export const HTTP_CLIENT_MAX_CHARS = 64;

/** Longest `X-Mema-Agent-Id` value; the same bound as the `agent_id` config key. */
export const HTTP_AGENT_ID_MAX_CHARS = 128;

/**
 * Shortest bearer token accepted for `--allow-remote`: 32 characters of the
 * token alphabet carry at least 128 bits when generated at random
 * (`openssl rand -hex 32` gives 64), so guessing is out of reach.
 */
export const HTTP_TOKEN_MIN_CHARS = 32;

/** Longest bearer token; far above any generator's output, small enough to compare cheaply. */
export const HTTP_TOKEN_MAX_CHARS = 512;

/**
 * How long a SIGINT/SIGTERM shutdown waits for the requests in flight before
 * it closes every connection anyway (and the process exits). A tool call is a
 * few synchronous SQLite transactions, a wait of at most 6 s for another
 * process's write lock (then `storage_busy`) and, rarely, an embedding-model
 * load of a few seconds; 10 s covers the usual worst case. A request cut off
 * after its transaction committed was acknowledged by nothing (SQLite commits
 * synchronously, before any answer is sent), so no acknowledged write is
 * lost. `MEMA_HTTP_SHUTDOWN_GRACE_MS` or `http_shutdown_grace_ms` overrides it.
 */
export const HTTP_SHUTDOWN_GRACE_MS = 10_000;

/**
 * How long, after the grace period, shutdown waits for the aborted server to
 * report it has stopped. Closing the listener and the sockets takes
 * milliseconds; the bound only keeps a runtime fault from hanging the exit.
 */
export const HTTP_CLOSE_WAIT_MS = 250;

/**
 * How long a request's body may take to arrive, counted from the moment its
 * headers are complete. The largest body (4 MiB) arrives in milliseconds over
 * loopback and in 30 s at about 140 KB/s, far below any real link a remote
 * client would use; a client that stalls mid-body (or sends a byte at a time)
 * gets 408 and its handler is freed instead of holding the request open.
 * `MEMA_HTTP_BODY_TIMEOUT_MS` or `http_body_timeout_ms` overrides it.
 *
 * There is no matching header timeout: `Deno.serve` (Deno 2.9) offers none
 * and gives the program nothing to act on before a request's headers are
 * complete, so a connection that never finishes its headers stays open until
 * the client closes it or the server stops (shutdown closes it; it never
 * delays the exit). Likewise, after a 408 the runtime keeps the socket open
 * while it waits for the rest of the body: the handler is freed at once, the
 * socket only when the client closes it or the process exits (a shutdown then
 * runs to the end of its grace period, never beyond).
 */
export const HTTP_BODY_TIMEOUT_MS = 30_000;
