/**
 * The MCP stdio transport: one JSON-RPC message per line on stdin and stdout.
 *
 * Written here rather than taken from the SDK because the SDK's
 * `StdioServerTransport` (1.32.2) closes the whole session when a line passes
 * its 10 MiB buffer (a legal 2 MiB content can be 12 MiB of JSON), drops a
 * line that is not JSON without answering, and decodes invalid UTF-8 to
 * U+FFFD. This one keeps serving after any bad line: an oversized frame is
 * dropped as it arrives (never buffered past the limit) and answered with a
 * JSON-RPC error, an unparsable or invalid line is answered with -32700 /
 * -32600 whenever an `id` can be recovered from it, and every refusal is
 * logged to stderr.
 *
 * A JSON-RPC batch (a line holding an array) runs only in a session that
 * negotiated MCP 2025-03-26, the one revision that had batches (the server
 * decides, protocol.ts); otherwise it is refused, never left unanswered: each
 * request in it gets its own -32600 "batches are not supported" error in one
 * batch response (a client waiting on any of its ids is told), notifications
 * in it get nothing, and `[]` gets an Invalid Request error with id null, as
 * JSON-RPC 2.0 says.
 *
 * Answers are bounded too: a message whose line would pass
 * {@linkcode STDIO_SEND_MAX_BYTES} (the SDK client's read buffer stops at
 * 10 MiB and then closes the session) is replaced by a JSON-RPC error for the
 * same request. Tool answers never get there: the envelope layer pages them
 * under a smaller budget first (answer_budget.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineStdioTransport } from "./stdio.ts";
 *
 * // `serve` connects the MCP server to it: `await server.connect(transport)`.
 * const transport = new LineStdioTransport();
 * assert.equal(typeof transport.send, "function");
 * ```
 * @module
 */
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import {
  JsonRpcErrorCode as ErrorCode,
  type JsonRpcMessage,
  type JsonRpcResponse,
  readJsonRpcMessage,
  type RequestId,
} from "./jsonrpc.ts";
import { BATCH_REFUSAL, type McpTransport, refuseBatchMembers } from "./protocol.ts";
import { logWarn } from "../platform/log.ts";
import { parseJsonFrame } from "./json_frame.ts";
import { fitsUtf8, utf8Length } from "./answer_bytes.ts";
import {
  STDIO_FRAME_MAX_BYTES,
  STDIO_ID_SCAN_BYTES,
  STDIO_SEND_MAX_BYTES,
} from "./stdio_constants.ts";

/** What the transport reads from and writes to (process.stdin / process.stdout by default). */
export interface StdioStreams {
  input: Readable;
  output: Writable;
}

/** Options for {@linkcode LineStdioTransport}. */
export interface LineStdioOptions {
  /** Largest frame in bytes; default {@linkcode STDIO_FRAME_MAX_BYTES}. */
  maxFrameBytes?: number;
  /** Largest line written, in bytes; default {@linkcode STDIO_SEND_MAX_BYTES}. */
  maxSendBytes?: number;
}

const NEWLINE = 0x0a;
const ID_VALUE = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")`;
/** `{"id":…` or `{"jsonrpc":"2.0","id":…` at the start of a frame. */
const ID_AT_HEAD = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + ID_VALUE,
);
/** `"id":…}` (optionally followed by `"jsonrpc":"2.0"`) closing the frame. */
const ID_AT_TAIL = new RegExp(
  String.raw`"id"\s*:\s*` + ID_VALUE + String.raw`\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`,
);

/**
 * The top-level `id` of a frame that could not be parsed, from its first and
 * last bytes, or undefined. Best effort: a reply is only useful when it names
 * the request the client is waiting on.
 */
export function recoverRequestId(head: string, tail: string): RequestId | undefined {
  const match = ID_AT_HEAD.exec(head.slice(0, STDIO_ID_SCAN_BYTES)) ??
    ID_AT_TAIL.exec(tail.slice(-STDIO_ID_SCAN_BYTES));
  if (!match) return undefined;
  try {
    const value = JSON.parse(match[1]);
    return typeof value === "string" || Number.isSafeInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A line being received: its pieces while within the limit, only its ends once past it. */
class PendingLine {
  pieces: Uint8Array[] = [];
  bytes = 0;
  /** Set once the line passes the limit: its first bytes; `tail` keeps the latest. */
  head?: Uint8Array;
  tail: Uint8Array[] = [];
  tailBytes = 0;

  constructor(readonly maxBytes: number) {}

  get oversized(): boolean {
    return this.head !== undefined;
  }

  add(piece: Uint8Array): void {
    if (piece.byteLength === 0) return;
    this.bytes += piece.byteLength;
    if (!this.oversized && this.bytes <= this.maxBytes) {
      this.pieces.push(piece);
      return;
    }
    if (!this.oversized) {
      const all = concat(this.pieces);
      this.head = all.slice(0, STDIO_ID_SCAN_BYTES);
      this.pieces = [];
      this.keepTail(all);
    }
    this.keepTail(piece);
  }

  private keepTail(piece: Uint8Array): void {
    const kept = piece.byteLength > STDIO_ID_SCAN_BYTES
      ? piece.slice(piece.byteLength - STDIO_ID_SCAN_BYTES)
      : piece.slice();
    this.tail.push(kept);
    this.tailBytes += kept.byteLength;
    while (this.tailBytes - this.tail[0].byteLength >= STDIO_ID_SCAN_BYTES) {
      this.tailBytes -= this.tail.shift()!.byteLength;
    }
  }

  take(): Uint8Array {
    return concat(this.pieces);
  }

  ends(): { head: string; tail: string } {
    const decoder = new TextDecoder();
    return { head: decoder.decode(this.head), tail: decoder.decode(concat(this.tail)) };
  }
}

function concat(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const total = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.byteLength;
  }
  return out;
}

function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d);
}

/** The MCP stdio transport; see the module documentation. */
export class LineStdioTransport implements McpTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onbatch?: (batch: unknown[]) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxFrameBytes: number;
  readonly #maxSendBytes: number;
  #line: PendingLine;
  #started = false;

  constructor(
    streams: StdioStreams = { input: process.stdin, output: process.stdout },
    options: LineStdioOptions = {},
  ) {
    this.#input = streams.input;
    this.#output = streams.output;
    this.#maxFrameBytes = options.maxFrameBytes ?? STDIO_FRAME_MAX_BYTES;
    this.#maxSendBytes = options.maxSendBytes ?? STDIO_SEND_MAX_BYTES;
    this.#line = new PendingLine(this.#maxFrameBytes);
  }

  #onData = (chunk: Uint8Array | string): void => {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    let from = 0;
    for (;;) {
      const end = bytes.indexOf(NEWLINE, from);
      if (end < 0) {
        this.#line.add(bytes.subarray(from));
        return;
      }
      this.#line.add(bytes.subarray(from, end));
      const line = this.#line;
      this.#line = new PendingLine(this.#maxFrameBytes);
      from = end + 1;
      try {
        this.#receive(line);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };

  #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  /** Starts reading stdin. */
  start(): Promise<void> {
    if (this.#started) throw new Error("the stdio transport is already started");
    this.#started = true;
    this.#input.on("data", this.#onData);
    this.#input.on("error", this.#onError);
    return Promise.resolve();
  }

  /**
   * Writes one message as one line; resolves once stdout has taken it. A line
   * past the send limit is not written: a response becomes an error for its
   * request, anything else is dropped and logged (either would close the client).
   */
  send(message: JsonRpcMessage): Promise<void> {
    let line = JSON.stringify(message) + "\n";
    if (!fitsUtf8(line, this.#maxSendBytes)) {
      const bytes = utf8Length(line);
      const id = "id" in message && !("method" in message) ? message.id : undefined;
      logWarn(
        `stdio: an answer of ${bytes} bytes passes the ${this.#maxSendBytes}-byte send limit; ` +
          (id === undefined ? "dropped" : "replaced by an error"),
      );
      if (id === undefined) return Promise.resolve();
      line = JSON.stringify({
        jsonrpc: "2.0",
        id,
        error: {
          code: ErrorCode.InternalError,
          message: `the answer is ${bytes} bytes; a stdio answer may be at most ` +
            `${this.#maxSendBytes} bytes (MCP clients close the session past 10 MiB)`,
          data: {
            error: "resource_limit_exceeded",
            actual_bytes: bytes,
            max_bytes: this.#maxSendBytes,
          },
        },
      }) + "\n";
    }
    return this.#write(line);
  }

  #write(line: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(line)) resolve();
      else this.#output.once("drain", () => resolve());
    });
  }

  /** Stops reading stdin and reports the close. */
  close(): Promise<void> {
    this.#input.off("data", this.#onData);
    this.#input.off("error", this.#onError);
    if (this.#input.listenerCount("data") === 0) this.#input.pause();
    this.#line = new PendingLine(this.#maxFrameBytes);
    this.onclose?.();
    return Promise.resolve();
  }

  #receive(line: PendingLine): void {
    if (line.oversized) {
      const { head, tail } = line.ends();
      this.#refuse(
        recoverRequestId(head, tail),
        ErrorCode.InvalidRequest,
        `the frame is ${line.bytes} bytes; a frame may be at most ${this.#maxFrameBytes} bytes ` +
          `(content itself is limited to 2 MiB)`,
        {
          error: "resource_limit_exceeded",
          actual_bytes: line.bytes,
          max_bytes: this.#maxFrameBytes,
        },
      );
      return;
    }
    let bytes = line.take();
    if (bytes.byteLength > 0 && bytes[bytes.byteLength - 1] === 0x0d) {
      bytes = bytes.subarray(0, bytes.byteLength - 1);
    }
    if (isBlank(bytes)) return;
    let text: string;
    try {
      // Invalid UTF-8 is refused, as HTTP refuses it: replacing it would store other text.
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      const loose = new TextDecoder().decode(bytes);
      this.#refuse(
        recoverRequestId(loose, loose),
        ErrorCode.ParseError,
        "parse error: the frame is not valid UTF-8",
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = parseJsonFrame(text);
    } catch {
      this.#refuse(
        recoverRequestId(text, text),
        ErrorCode.ParseError,
        "parse error: the frame is not valid JSON",
      );
      return;
    }
    if (Array.isArray(parsed)) {
      if (parsed.length > 0 && this.onbatch) this.onbatch(parsed);
      else this.refuseBatch(parsed);
      return;
    }
    const message = readJsonRpcMessage(parsed);
    if (message === undefined) {
      const id = (parsed as { id?: unknown } | null)?.id;
      this.#refuse(
        typeof id === "string" || Number.isSafeInteger(id) ? id as RequestId : undefined,
        ErrorCode.InvalidRequest,
        "invalid request: the frame is not a JSON-RPC 2.0 message",
      );
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * Answers a batch without running any of it: `[]` is an Invalid Request (id
   * null); otherwise as {@linkcode refuseBatchMembers} says, and nothing is
   * sent when that is nothing (JSON-RPC 2.0 §6: no empty array is sent).
   */
  refuseBatch(batch: unknown[]): void {
    if (batch.length === 0) {
      logWarn("stdio: an empty batch ([]); answered with an Invalid Request error");
      void this.#write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: ErrorCode.InvalidRequest, message: "invalid request: an empty batch" },
        }) + "\n",
      ).catch((error) => this.onerror?.(error));
      return;
    }
    const replies = refuseBatchMembers(batch, BATCH_REFUSAL);
    logWarn(`stdio: a batch of ${batch.length} messages refused (${BATCH_REFUSAL})`);
    if (replies.length === 0) return;
    void this.#write(JSON.stringify(replies) + "\n").catch((error) => this.onerror?.(error));
  }

  /**
   * Writes the answers to a batch as one line. Each answer fits on its own, but together they
   * may pass the send limit; then every answer becomes an error naming the total, so the
   * client sends the requests one by one.
   */
  sendBatch(replies: JsonRpcResponse[]): Promise<void> {
    let line = JSON.stringify(replies) + "\n";
    if (!fitsUtf8(line, this.#maxSendBytes)) {
      const bytes = utf8Length(line);
      logWarn(`stdio: the answers to a batch are ${bytes} bytes together; replaced by errors`);
      line = JSON.stringify(replies.map((reply) => ({
        jsonrpc: "2.0",
        id: reply.id,
        error: {
          code: ErrorCode.InternalError,
          message: `the batch's answers are ${bytes} bytes together; a stdio line may be at ` +
            `most ${this.#maxSendBytes} bytes: send these requests one by one`,
          data: {
            error: "resource_limit_exceeded",
            actual_bytes: bytes,
            max_bytes: this.#maxSendBytes,
          },
        },
      }))) + "\n";
    }
    return this.#write(line);
  }

  /** Logs a refused frame and answers it when the request it belongs to is known. */
  #refuse(
    id: RequestId | undefined,
    code: number,
    message: string,
    data?: Record<string, unknown>,
  ): void {
    logWarn(`stdio: ${message}${id === undefined ? " (no id found; not answered)" : ""}`);
    if (id === undefined) return;
    void this.send({ jsonrpc: "2.0", id, error: { code, message, ...(data ? { data } : {}) } })
      .catch((error) => this.onerror?.(error));
  }
}
