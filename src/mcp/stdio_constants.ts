/**
 * Stdio transport tunables. Each value says why it is what it is; change one
 * only with the reason written beside it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STDIO_FRAME_MAX_BYTES } from "./stdio_constants.ts";
 *
 * assert.equal(STDIO_FRAME_MAX_BYTES, 64 * 1024 * 1024);
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

/**
 * Largest line the transport writes, in bytes. The MCP TypeScript SDK's stdio
 * client (`ReadBuffer`, `STDIO_DEFAULT_MAX_BUFFER_SIZE`, 1.32.2) closes the
 * session once the bytes it holds pass 10 MiB, and it holds the line being
 * received plus the chunk it just read; 9 MiB keeps 1 MiB for that chunk (16
 * of Linux's 64 KiB pipe reads). A longer answer is replaced by an error for
 * its request. Tool answers stay under the smaller `ANSWER_MAX_BYTES`
 * (answer_constants.ts), so only an answer nothing else bounded gets here.
 */
export const STDIO_SEND_MAX_BYTES = 9 * 1024 * 1024;
