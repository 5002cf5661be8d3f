/**
 * One Streamable HTTP exchange (MCP 2025-06-18 transports, docs/SPEC.md §10): a POST whose body
 * holds one JSON-RPC message (or, under 2025-03-26, a batch) answered by a fresh
 * {@linkcode McpServer}. The server is stateless: it issues no `Mcp-Session-Id`, so every
 * request stands alone and GET (a server stream) and DELETE (ending a session) have nothing
 * to serve (http.ts answers them 405).
 *
 * - `Accept` chooses the answer's form: JSON when it allows `application/json` (or sends no
 *   `Accept`), else one SSE event per answer when it allows `text/event-stream`, else 406.
 *   The SDK client accepts both and gets JSON: a call has exactly one answer, and a complete
 *   body lets shutdown count the request as finished.
 * - `Content-Type` must be `application/json` (415).
 * - `MCP-Protocol-Version`, on every request but `initialize`: a revision mema does not speak
 *   is a 400; none means 2025-03-26, as the transport says.
 * - Only notifications (or responses): 202 with no body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpServer } from "./protocol.ts";
 * import { answerMcpPost, checkMediaTypes } from "./http_exchange.ts";
 *
 * const server = new McpServer({ name: "docs", version: "1", capabilities: {}, handlers: {} });
 * const headers = new Headers({
 *   accept: "application/json, text/event-stream",
 *   "content-type": "application/json",
 * });
 * const form = checkMediaTypes(headers);
 * assert.equal(form, "json");
 * const response = await answerMcpPost(server, headers, {
 *   body: { jsonrpc: "2.0", id: 1, method: "ping" },
 *   form: "json",
 * });
 * assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * ```
 * @module
 */
import {
  errorResponse,
  isRequest,
  isRequestId,
  JsonRpcErrorCode,
  type JsonRpcMessage,
  type JsonRpcResponse,
  readJsonRpcMessage,
} from "./jsonrpc.ts";
import { allowsBatches, BATCH_REFUSAL, type McpServer, refuseBatchMembers } from "./protocol.ts";
import {
  BATCH_MAX_MESSAGES,
  HTTP_ASSUMED_PROTOCOL_VERSION,
  QUOTED_NAME_MAX_CHARS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol_constants.ts";

/** How the answers go back: one JSON body, or an SSE stream of them. */
export type AnswerForm = "json" | "sse";

/** A refusal before anything runs: its HTTP status, JSON-RPC code and message. */
export interface ExchangeRefusal {
  status: number;
  code: number;
  message: string;
}

/** Media ranges in an `Accept` header with a non-zero quality, lower-cased. */
function acceptedRanges(accept: string): string[] {
  return accept.split(",").flatMap((part) => {
    const [range, ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith("q="));
    return range === "" || (quality !== undefined && Number(quality.slice(2)) === 0) ? [] : [range];
  });
}

/**
 * The answer form the request's `Accept` allows and whether its `Content-Type` is JSON:
 * `"json"`, `"sse"`, or the refusal (406, 415).
 */
export function checkMediaTypes(headers: Headers): AnswerForm | ExchangeRefusal {
  const accept = headers.get("accept");
  let form: AnswerForm | undefined = "json";
  if (accept !== null) {
    const ranges = acceptedRanges(accept);
    if (ranges.some((r) => r === "application/json" || r === "application/*" || r === "*/*")) {
      form = "json";
    } else if (ranges.some((r) => r === "text/event-stream" || r === "text/*")) {
      form = "sse";
    } else {
      form = undefined;
    }
  }
  if (form === undefined) {
    return {
      status: 406,
      code: -32000,
      message: "not acceptable: the Accept header must allow application/json or text/event-stream",
    };
  }
  const contentType = headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (contentType !== "application/json") {
    return {
      status: 415,
      code: -32000,
      message: "unsupported media type: the Content-Type must be application/json",
    };
  }
  return form;
}

/** What {@linkcode answerMcpPost} answers. */
export interface PostExchange {
  /** The parsed body. */
  body: unknown;
  form: AnswerForm;
}

function jsonBody(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function refusal(status: number, code: number, message: string): Response {
  return jsonBody(status, errorResponse(null, { code, message }));
}

/** The answers as the client asked for them: one JSON body, or one SSE event each. */
function answered(replies: JsonRpcResponse | JsonRpcResponse[], form: AnswerForm): Response {
  if (form === "json") return jsonBody(200, replies);
  const events = (Array.isArray(replies) ? replies : [replies])
    .map((reply) => `event: message\ndata: ${JSON.stringify(reply)}\n\n`)
    .join("");
  return new Response(events, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/**
 * Answers one POST whose body is already parsed and whose media types passed
 * {@linkcode checkMediaTypes}: validation, the protocol-version check, then the server.
 */
export async function answerMcpPost(
  server: McpServer,
  headers: Headers,
  exchange: PostExchange,
): Promise<Response> {
  const { body, form } = exchange;
  const members = Array.isArray(body) ? body : [body];
  const messages = members.map(readJsonRpcMessage);
  const initializing = messages.some((m) =>
    m !== undefined && isRequest(m) && m.method === "initialize"
  );
  const named = headers.get("mcp-protocol-version");
  if (!initializing && named !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(named)) {
    return refusal(
      400,
      -32000,
      `bad request: unsupported MCP-Protocol-Version "${named.slice(0, QUOTED_NAME_MAX_CHARS)}" ` +
        `(supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  const version = named ?? HTTP_ASSUMED_PROTOCOL_VERSION;
  if (Array.isArray(body)) return await answerBatch(server, body, { version, form });
  const message = messages[0];
  if (message === undefined) {
    const id = (body as { id?: unknown } | null)?.id;
    return jsonBody(
      400,
      errorResponse(isRequestId(id) ? id : null, {
        code: JsonRpcErrorCode.InvalidRequest,
        message: "invalid request: the body is not a JSON-RPC 2.0 message",
      }),
    );
  }
  const reply = await server.answer(message);
  if (!isRequest(message)) return new Response(null, { status: 202 });
  // A request is always answered here: nothing over stateless HTTP can cancel it.
  return answered(reply ?? cancelledReply(message), form);
}

function cancelledReply(message: JsonRpcMessage): JsonRpcResponse {
  return errorResponse(isRequest(message) ? message.id : null, {
    code: JsonRpcErrorCode.InternalError,
    message: "the request was cancelled",
  });
}

async function answerBatch(
  server: McpServer,
  batch: unknown[],
  options: { version: string; form: AnswerForm },
): Promise<Response> {
  if (!allowsBatches(options.version)) {
    const replies = refuseBatchMembers(batch, BATCH_REFUSAL);
    return replies.length === 0 ? new Response(null, { status: 202 }) : jsonBody(400, replies);
  }
  if (batch.length > BATCH_MAX_MESSAGES) {
    return refusal(
      400,
      JsonRpcErrorCode.InvalidRequest,
      `invalid request: a batch of ${batch.length} messages; a batch may hold at most ${BATCH_MAX_MESSAGES}`,
    );
  }
  const replies = await server.answerBatch(batch);
  if (replies.length === 0) return new Response(null, { status: 202 });
  return answered(replies, options.form);
}
