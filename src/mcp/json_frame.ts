/**
 * Parsing one JSON-RPC frame (a stdio line, an HTTP body) so that numbers a tool call's
 * arguments cannot keep exactly reach the write path marked, while the rest of the frame
 * (ids, protocol fields) is what `JSON.parse` gives. The SDK would parse with `JSON.parse`
 * and round silently; both transports call this instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonFrame } from "./json_frame.ts";
 *
 * assert.deepEqual(parseJsonFrame('{"jsonrpc":"2.0","id":1,"method":"ping"}'), {
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "ping",
 * });
 * ```
 * @module
 */
import { InexactNumber, parseJsonExact, releaseInexact } from "../memory/exact_json.ts";

function confine(message: unknown): void {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    releaseInexact(message);
    return;
  }
  const frame = message as { method?: unknown; params?: unknown };
  const params = frame.params as { arguments?: unknown } | undefined;
  const keep = frame.method === "tools/call" && params !== null && typeof params === "object"
    ? params.arguments
    : undefined;
  // Only a tool call's arguments keep their marks: validation turns them into invalid_input
  // naming the field. Elsewhere (ids, protocol fields) the parsed float is used as before.
  if (keep !== undefined) (params as { arguments?: unknown }).arguments = undefined;
  releaseInexact(message);
  if (keep !== undefined) {
    (params as { arguments?: unknown }).arguments = keep instanceof InexactNumber
      ? keep.value
      : keep;
  }
}

/** `JSON.parse` for a frame; throws as it does on text that is not JSON. */
export function parseJsonFrame(text: string): unknown {
  const parsed = parseJsonExact(text);
  if (parsed instanceof InexactNumber) return parsed.value;
  if (!Array.isArray(parsed)) {
    confine(parsed);
    return parsed;
  }
  for (let i = 0; i < parsed.length; i++) {
    if (parsed[i] instanceof InexactNumber) parsed[i] = parsed[i].value;
    confine(parsed[i]);
  }
  return parsed;
}
