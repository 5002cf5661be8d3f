/**
 * Streamable HTTP transport tunables (SPEC §10). Each value says why it is
 * what it is; change one only with the reason written beside it.
 *
 * @example
 * ```ts
 * import { HTTP_BODY_LIMIT_BYTES } from "./src/mcp/http_constants.ts";
 * HTTP_BODY_LIMIT_BYTES === 4 * 1024 * 1024; // true
 * ```
 * @module
 */

/**
 * Largest request body, fixed by SPEC §10 at 4 MiB: twice the 2 MiB content
 * limit, so a `remember` at that limit fits with room for JSON escaping of
 * ordinary text (quotes, newlines); content that is mostly characters JSON
 * must escape can pass 4 MiB and is refused whole with 413, never half-read.
 */
export const HTTP_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** The one path the MCP endpoint answers on (SPEC §10). */
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
 * How long a SIGINT/SIGTERM shutdown waits for in-flight requests before it
 * closes the database anyway. A tool call is one synchronous SQLite
 * transaction plus, at worst, an embedding-model load of a few seconds; 10 s
 * covers that with room, and a call cut off after it had committed was
 * acknowledged by nothing, so no acknowledged write can be lost.
 */
export const HTTP_SHUTDOWN_GRACE_MS = 10_000;
