/**
 * mema's own MCP protocol layer: JSON-RPC dispatch with the MCP lifecycle (docs/SPEC.md §10).
 *
 * Why not the SDK's `Server`: the `@modelcontextprotocol/sdk` package pulls ~93 npm packages
 * (express, ajv, cors, eventsource, ...) that a first start with empty caches has to fetch
 * before `initialize` can be answered; mema's server side needs a few hundred lines of it.
 * The SDK stays a development dependency: every end-to-end test drives this layer through the
 * SDK's client, which is the compatibility proof.
 *
 * What it implements: `initialize` (the requested revision when supported, else the newest;
 * docs/SPEC.md §10), `ping`, `notifications/initialized`, `notifications/cancelled` (the
 * cancelled request gets no answer), and the request handlers it is given (tools, resources,
 * prompts). An unknown method is -32601, bad params -32602, a handler's failure -32603. Only
 * what the server announces is served: no logging, completion or subscriptions. JSON-RPC
 * batches run only under 2025-03-26, the one revision that had them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpServer } from "./protocol.ts";
 *
 * const server = new McpServer({
 *   name: "docs",
 *   version: "1.0.0",
 *   capabilities: { tools: {} },
 *   handlers: { "tools/list": () => ({ tools: [] }) },
 * });
 * const hello = await server.answer({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "initialize",
 *   params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c" } },
 * });
 * assert.ok(hello !== undefined && "result" in hello);
 * assert.equal(hello.result.protocolVersion, "2025-06-18");
 * const listed = await server.answer({ jsonrpc: "2.0", id: 2, method: "tools/list" });
 * assert.deepEqual(listed, { jsonrpc: "2.0", id: 2, result: { tools: [] } });
 * ```
 * @module
 */
import { logWarn } from "../platform/log.ts";
import {
  errorResponse,
  isRequest,
  JsonRpcErrorCode,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  ProtocolError,
  readJsonRpcMessage,
  type RequestId,
} from "./jsonrpc.ts";
import {
  BATCH_MAX_MESSAGES,
  BATCH_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  QUOTED_NAME_MAX_CHARS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol_constants.ts";

/** What a request handler is told besides its params. */
export interface RequestContext {
  /** Aborted when the client cancels the request or the server closes. */
  signal: AbortSignal;
}

/** Answers one request method: its result, or a thrown {@linkcode ProtocolError}. */
export type RequestHandler = (
  params: Record<string, unknown>,
  context: RequestContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Who the server is and what it serves. */
export interface McpServerOptions {
  name: string;
  version: string;
  /** Announced in `initialize`; list only what `handlers` serve. */
  capabilities: Record<string, unknown>;
  /** Announced in `initialize`: how an agent should use the server. */
  instructions?: string;
  /** One handler per method (`tools/list`, `tools/call`, ...). */
  handlers: Record<string, RequestHandler>;
}

/**
 * A message channel (stdio; tests use the SDK's in-memory pair): the server sets the `on*`
 * callbacks, then calls `start`. The shape is the SDK's `Transport`, so either side fits.
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Set by the server: a JSON-RPC batch arrived (transports that can receive one). */
  onbatch?: (batch: unknown[]) => void;
  /** Answers a batch the session may not send without running any of it. */
  refuseBatch?(batch: unknown[]): void;
  /** Writes the answers to a batch as one batch. */
  sendBatch?(replies: JsonRpcResponse[]): Promise<void>;
}

/** The revision to speak when a client asks for `requested`. */
export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/** True when `version` has JSON-RPC batches (only 2025-03-26 does). */
export function allowsBatches(version: string | undefined): boolean {
  return version === BATCH_PROTOCOL_VERSION;
}

/** Why a batch is refused; clients see it in every error the batch gets. */
export const BATCH_REFUSAL =
  "batches are not supported: MCP 2025-06-18 removed JSON-RPC batching (only a 2025-03-26 session may send them); send each message separately";

/**
 * The answers to a batch that is refused without running any of it: each request gets
 * `reason` under its own id (a client waiting on it is told), each member that is not a
 * message an Invalid Request with id null, notifications nothing (JSON-RPC 2.0 §6).
 */
export function refuseBatchMembers(batch: readonly unknown[], reason: string): JsonRpcResponse[] {
  const replies: JsonRpcResponse[] = [];
  for (const member of batch) {
    const message = readJsonRpcMessage(member);
    if (message === undefined) {
      replies.push(errorResponse(null, {
        code: JsonRpcErrorCode.InvalidRequest,
        message: `invalid request: a batch member is not a JSON-RPC 2.0 message; ${reason}`,
      }));
    } else if (isRequest(message)) {
      replies.push(
        errorResponse(message.id, { code: JsonRpcErrorCode.InvalidRequest, message: reason }),
      );
    }
  }
  return replies;
}

function quoteMethod(method: string): string {
  return method.length > QUOTED_NAME_MAX_CHARS
    ? `${method.slice(0, QUOTED_NAME_MAX_CHARS)}…`
    : method;
}

/** An MCP server over a table of request handlers; see the module documentation. */
export class McpServer {
  readonly #options: McpServerOptions;
  readonly #inFlight = new Map<RequestId, AbortController>();
  #transport?: McpTransport;
  #closed = false;
  /** The revision `initialize` agreed on; undefined before it (or on stateless HTTP). */
  protocolVersion: string | undefined;

  constructor(options: McpServerOptions) {
    this.#options = options;
  }

  /**
   * The answer to one message: a response for a request, undefined for a notification, a
   * response from the client (mema sends no requests) or a request cancelled meanwhile.
   */
  async answer(message: JsonRpcMessage): Promise<JsonRpcResponse | undefined> {
    if (!("method" in message)) return undefined;
    if (!isRequest(message)) {
      this.#notified(message.method, message.params ?? {});
      return undefined;
    }
    const controller = new AbortController();
    this.#inFlight.set(message.id, controller);
    try {
      const result = await this.#run(message, controller.signal);
      if (controller.signal.aborted) return undefined;
      return { jsonrpc: "2.0", id: message.id, result };
    } catch (error) {
      if (controller.signal.aborted) return undefined;
      return errorResponse(message.id, this.#errorBody(message.method, error));
    } finally {
      if (this.#inFlight.get(message.id) === controller) this.#inFlight.delete(message.id);
    }
  }

  /**
   * The answers to a batch the session may send, in member order: each request's response,
   * an Invalid Request (id null) for each member that is not a message, nothing for
   * notifications. `initialize` may not be batched (2025-03-26 lifecycle).
   */
  async answerBatch(batch: readonly unknown[]): Promise<JsonRpcResponse[]> {
    const replies: JsonRpcResponse[] = [];
    if (batch.length > BATCH_MAX_MESSAGES) {
      return refuseBatchMembers(
        batch,
        `invalid request: a batch of ${batch.length} messages; a batch may hold at most ${BATCH_MAX_MESSAGES}`,
      );
    }
    for (const member of batch) {
      const message = readJsonRpcMessage(member);
      if (message === undefined) {
        replies.push(errorResponse(null, {
          code: JsonRpcErrorCode.InvalidRequest,
          message: "invalid request: a batch member is not a JSON-RPC 2.0 message",
        }));
        continue;
      }
      if (isRequest(message) && message.method === "initialize") {
        replies.push(errorResponse(message.id, {
          code: JsonRpcErrorCode.InvalidRequest,
          message: "invalid request: initialize must be sent on its own, not in a batch",
        }));
        continue;
      }
      const reply = await this.answer(message);
      if (reply !== undefined) replies.push(reply);
    }
    return replies;
  }

  /** Serves a message channel until it or the server closes. */
  async connect(transport: McpTransport): Promise<void> {
    this.#transport = transport;
    const closedBefore = transport.onclose;
    transport.onclose = () => {
      this.#abortAll();
      closedBefore?.();
    };
    const erroredBefore = transport.onerror;
    transport.onerror = (error) => {
      if (erroredBefore) erroredBefore(error);
      else logWarn(`MCP transport: ${error.message}`);
    };
    transport.onmessage = (message) => void this.#reply(this.answer(message));
    transport.onbatch = (batch) => {
      if (allowsBatches(this.protocolVersion) && transport.sendBatch) {
        void this.answerBatch(batch).then((replies) =>
          replies.length === 0 ? undefined : transport.sendBatch!(replies)
        ).catch((error) => transport.onerror?.(toError(error)));
      } else {
        transport.refuseBatch?.(batch);
      }
    };
    await transport.start();
  }

  /** Cancels what is running and closes the channel. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abortAll();
    await this.#transport?.close();
  }

  async #reply(answer: Promise<JsonRpcResponse | undefined>): Promise<void> {
    const transport = this.#transport;
    try {
      const reply = await answer;
      if (reply !== undefined && !this.#closed) await transport?.send(reply);
    } catch (error) {
      transport?.onerror?.(toError(error));
    }
  }

  #abortAll(): void {
    for (const controller of this.#inFlight.values()) controller.abort();
    this.#inFlight.clear();
  }

  #notified(method: string, params: Record<string, unknown>): void {
    if (method === "notifications/cancelled") {
      // The cancelled request stops being answered; a stale or unknown id is ignored.
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") {
        this.#inFlight.get(id)?.abort();
        this.#inFlight.delete(id);
      }
    }
    // notifications/initialized and any other notification need nothing from a server
    // that sends no requests of its own.
  }

  async #run(request: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const params = request.params ?? {};
    if (request.method === "initialize") return this.#initialize(params);
    if (request.method === "ping") return {};
    const handler = Object.hasOwn(this.#options.handlers, request.method)
      ? this.#options.handlers[request.method]
      : undefined;
    if (handler === undefined) {
      throw new ProtocolError(
        JsonRpcErrorCode.MethodNotFound,
        `method not found: "${quoteMethod(request.method)}"`,
      );
    }
    return await handler(params, { signal });
  }

  #initialize(params: Record<string, unknown>): Record<string, unknown> {
    if (typeof params.protocolVersion !== "string") {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        'initialize needs params.protocolVersion (a string such as "2025-06-18")',
      );
    }
    this.protocolVersion = negotiateProtocolVersion(params.protocolVersion);
    const { name, version, capabilities, instructions } = this.#options;
    return {
      protocolVersion: this.protocolVersion,
      capabilities,
      serverInfo: { name, version },
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  #errorBody(method: string, error: unknown): { code: number; message: string; data?: unknown } {
    if (error instanceof ProtocolError) {
      return {
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      };
    }
    logWarn(`MCP ${quoteMethod(method)} failed: ${error instanceof Error ? error.stack : error}`);
    return {
      code: JsonRpcErrorCode.InternalError,
      message: `internal error: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
