/**
 * How large one answer may be. Each value says why it is what it is; change one
 * only with the reason written beside it.
 *
 * @example
 * ```ts
 * import { ANSWER_MAX_BYTES } from "./answer_constants.ts";
 * import assert from "node:assert/strict";
 * assert.equal(ANSWER_MAX_BYTES, 8 * 1024 * 1024);
 * ```
 * @module
 */

/**
 * Largest tool answer (the whole serialized CallTool result: the text block and
 * `structuredContent` together), in UTF-8 bytes of its JSON. The MCP TypeScript
 * SDK's stdio client (`ReadBuffer` in `@modelcontextprotocol/sdk/shared/stdio.js`,
 * `STDIO_DEFAULT_MAX_BUFFER_SIZE = 10 * 1024 * 1024`, 1.32.2) throws and closes
 * the session once the bytes it holds (the line being received plus the chunk
 * just read) pass 10 MiB. 8 MiB leaves 1 MiB for the JSON-RPC wrapper and the
 * transport's own check below it (`STDIO_SEND_MAX_BYTES`, 9 MiB), which keeps
 * 1 MiB for the chunk the client reads on top (a pipe read is 64 KiB on Linux).
 * A 2 MiB content of plain text (4 MiB in the two copies) always fits whole;
 * content that JSON escapes heavily is paged. HTTP answers keep the same budget:
 * one policy, and the same client may be pointed at either transport.
 */
export const ANSWER_MAX_BYTES = 8 * 1024 * 1024;
