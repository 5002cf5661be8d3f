/**
 * JSON-RPC 2.0 as MCP uses it: the four message shapes, the error codes, and the check that
 * turns a parsed frame into a message or says it is not one. Both transports and the
 * dispatcher (protocol.ts) share it; nothing here knows about tools or stores.
 *
 * MCP narrows JSON-RPC: an id is a string or an integer (never null), `params` is an object,
 * and a message carries no member beyond the ones its shape names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonRpcMessage } from "./jsonrpc.ts";
 *
 * assert.deepEqual(readJsonRpcMessage({ jsonrpc: "2.0", id: 1, method: "ping" }), {
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "ping",
 * });
 * assert.equal(readJsonRpcMessage({ jsonrpc: "2.0", id: 1, method: 42 }), undefined);
 * ```
 * @module
 */

/** A request id: a string or an integer. */
export type RequestId = string | number;

/** A request: answered with a response carrying its id. */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification: never answered. */
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

/** The error member of an error response. */
export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** A response: a result or an error for one request (id null when the request had none). */
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: RequestId | null; error: JsonRpcErrorBody };

/** Any message either side may send. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The JSON-RPC 2.0 error codes MCP uses (JSON-RPC 2.0 §5.1). */
export const JsonRpcErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
});

/** An error a request handler throws to answer with a JSON-RPC error rather than a result. */
export class ProtocolError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** An error response for `id`. */
export function errorResponse(
  id: RequestId | null,
  error: JsonRpcErrorBody,
): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** True for a string or a safe integer: the ids MCP allows. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

function hasOnly(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

/** The message `value` is, or undefined when it is none of the four shapes. */
export function readJsonRpcMessage(value: unknown): JsonRpcMessage | undefined {
  if (!isPlainObject(value) || value.jsonrpc !== "2.0") return undefined;
  if ("method" in value) {
    if (typeof value.method !== "string") return undefined;
    if ("params" in value && !isPlainObject(value.params)) return undefined;
    if ("id" in value) {
      if (!isRequestId(value.id)) return undefined;
      return hasOnly(value, ["jsonrpc", "id", "method", "params"])
        ? value as unknown as JsonRpcRequest
        : undefined;
    }
    return hasOnly(value, ["jsonrpc", "method", "params"])
      ? value as unknown as JsonRpcNotification
      : undefined;
  }
  if ("result" in value) {
    return isRequestId(value.id) && isPlainObject(value.result) &&
        hasOnly(value, ["jsonrpc", "id", "result"])
      ? value as unknown as JsonRpcResponse
      : undefined;
  }
  if ("error" in value) {
    const error = value.error;
    const idOk = !("id" in value) || value.id === null || isRequestId(value.id);
    return idOk && isPlainObject(error) && Number.isSafeInteger(error.code) &&
        typeof error.message === "string" && hasOnly(value, ["jsonrpc", "id", "error"])
      ? value as unknown as JsonRpcResponse
      : undefined;
  }
  return undefined;
}

/** True when `message` is a request (it expects an answer). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return "method" in message && "id" in message;
}

/** True when `message` is a notification. */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return "method" in message && !("id" in message);
}
