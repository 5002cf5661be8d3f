/**
 * Stdio transport tunables. Each value says why it is what it is; change one
 * only with the reason written beside it.
 *
 * @example
 * ```ts
 * import { STDIO_FRAME_MAX_BYTES } from "./src/mcp/stdio_constants.ts";
 * STDIO_FRAME_MAX_BYTES === 64 * 1024 * 1024; // true
 * ```
 * @module
 */

/**
 * Largest stdio frame (one JSON-RPC line), in bytes. JSON may write any
 * character as a six-byte `\uXXXX` escape (control characters always are), so
 * the 2 MiB content limit means up to 12 MiB of JSON for one text field; an
 * `old_text` + `new_text` pair at the limit is up to 24 MiB. 64 MiB holds
 * either with room for the rest of the call, while still bounding what one
 * line can make the server buffer. The SDK's own transport stopped at 10 MiB
 * and then closed, so a legal content could end the session.
 */
export const STDIO_FRAME_MAX_BYTES = 64 * 1024 * 1024;

/**
 * How many bytes of an oversized frame's start and end are kept to find its
 * `id` for the error reply. The rest is dropped as it arrives, never buffered.
 * Clients put `id` near the start (`{"jsonrpc":"2.0","id":…`) or, like the MCP
 * SDK, at the very end (`…,"jsonrpc":"2.0","id":7}`); 4 KiB covers either.
 */
export const STDIO_ID_SCAN_BYTES = 4 * 1024;
