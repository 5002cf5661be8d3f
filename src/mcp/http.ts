/**
 * MCP over streamable HTTP (docs/SPEC.md §10): `POST /mcp` on `Deno.serve`, stateless
 * (a fresh protocol server per request, all over one shared runtime and store;
 * the exchange itself is http_exchange.ts), loopback-only unless
 * `--allow-remote` and a token are given.
 * Every request passes the guards in `http_guards.ts` first; identity comes
 * from the request's bearer token when a token file is in use
 * (`http_access.ts`), else from its headers, and lives in a per-request copy
 * of the service context, so one process serves many clients under their own
 * names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeCapabilities } from "../capabilities/mod.ts";
 * import { serveHttp } from "./http.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const runtime = {
 *   ctx,
 *   dbPath: `${dir}/mema.sqlite3`,
 *   startedAt: new Date().toISOString(),
 *   capabilities: () => Promise.resolve(describeCapabilities(store.capabilities)),
 * };
 * const http = serveHttp(runtime, { host: "127.0.0.1", port: 0 }); // 0 picks a free port
 * assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
 * await http.shutdown(10_000);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { auditAccessRefusal } from "../http/access_refusals.ts";
import { readTokenFile } from "../http/access_token_file.ts";
import type { CallerIdentity } from "../core/context.ts";
import { settlesWithin } from "../platform/deadline.ts";
import { logInfo, logWarn } from "../platform/log.ts";
import {
  HTTP_BODY_LIMIT_BYTES,
  HTTP_BODY_TIMEOUT_MS,
  HTTP_CLOSE_WAIT_MS,
  HTTP_MCP_PATH,
  HTTP_SHUTDOWN_GRACE_MS,
  HTTP_TOKEN_MAX_CHARS,
  HTTP_TOKEN_MIN_CHARS,
} from "./http_constants.ts";
import { type AccessVerdict, tokenCaller, TokenGate } from "./http_access.ts";
import {
  checkBearerToken,
  checkHostHeader,
  checkOriginHeader,
  isLoopbackHost,
  readBodyWithin,
  readCallerHeaders,
  type Refusal,
} from "./http_guards.ts";
import type { McpRuntime } from "./runtime.ts";
import { createMcpServer } from "./server.ts";
import { parseJsonFrame } from "./json_frame.ts";
import { answerMcpPost, checkMediaTypes } from "./http_exchange.ts";

/** Where and how the HTTP transport listens. */
export interface HttpServeOptions {
  /** Bind address; must be loopback unless `allowRemote`. */
  host: string;
  /** Port; 0 picks a free one (the chosen port is in the returned `url`). */
  port: number;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * The per-caller token file (`mema token`); while it exists, every request needs one of its
   * tokens (or the shared `token`), and identity comes from the token.
   */
  tokensFile?: string;
  /** Accept a non-loopback bind and non-loopback peers (requires a token). */
  allowRemote?: boolean;
  /** How long a request body may take to arrive; default {@linkcode HTTP_BODY_TIMEOUT_MS}. */
  bodyTimeoutMs?: number;
  /** How long shutdown waits for in-flight requests; default {@linkcode HTTP_SHUTDOWN_GRACE_MS}. */
  shutdownGraceMs?: number;
}

/** How a shutdown went. */
export interface ShutdownReport {
  /** Requests whose handler was still running when the grace period ran out: cut off. */
  cutOff: number;
  /**
   * True when every request had been answered but some connection was still
   * open at the end of the grace period (an answer still being delivered, or a
   * client that stopped mid-body and keeps its socket after its 408). The
   * listener is closed; those sockets close when the process exits.
   */
  connectionsLeftOpen: boolean;
}

/** A listening HTTP transport. */
export interface HttpTransport {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8000/mcp`. */
  url: string;
  port: number;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Requests being handled right now. */
  inFlight(): number;
  /**
   * Refuses new requests (503) and waits up to `graceMs` for the in-flight
   * ones. When they all finish, the server shuts down gracefully (the last
   * answers are delivered); when some are still running at the end of the
   * grace period, every connection is closed at once. Never waits on a client
   * beyond `graceMs`.
   */
  shutdown(graceMs?: number): Promise<ShutdownReport>;
}

const TOKEN_ALPHABET = /^[A-Za-z0-9._~+/=-]+$/;

/**
 * The identity of the shared HTTP runtime: what the server does on its own
 * (background jobs) runs under it. No request does: each one gets a copy of
 * the context with the identity from its own headers.
 */
export const HTTP_SERVER_CALLER: CallerIdentity = Object.freeze({
  client: "mema-http",
  agentId: "server",
});

/**
 * The HTTP options for `mema serve`, or undefined when the transport is
 * stdio. HTTP-only flags without HTTP are an error rather than silently
 * ignored, and a refused bind fails before the database is opened.
 */
export function resolveHttpOptions(
  config: MemaConfig,
  flags: { allowRemote?: boolean; hostOrPortFlag?: boolean },
): HttpServeOptions | undefined {
  if (config.transport !== "http") {
    if (flags.allowRemote || flags.hostOrPortFlag) {
      throw new MemaError("config_invalid", "--host, --port and --allow-remote need --http", {
        hint: "add --http (or set MEMA_TRANSPORT=http) to serve over HTTP",
      });
    }
    return undefined;
  }
  const options: HttpServeOptions = {
    host: config.http.host,
    port: config.http.port,
    token: config.http.token,
    tokensFile: config.http.tokensFile,
    allowRemote: flags.allowRemote === true,
  };
  if (config.http.shutdownGraceMs !== undefined) {
    options.shutdownGraceMs = config.http.shutdownGraceMs;
  }
  if (config.http.bodyTimeoutMs !== undefined) options.bodyTimeoutMs = config.http.bodyTimeoutMs;
  checkBindPolicy(options);
  return options;
}

/**
 * Refuses a bind that would expose the server: a non-loopback host needs
 * `allowRemote` and a token (the shared one, or a token file holding at least
 * one); a token must be long and header-safe; a malformed token file stops the
 * start rather than being half-applied.
 */
export function checkBindPolicy(options: HttpServeOptions): void {
  const { host, token, allowRemote } = options;
  const tokenFile = options.tokensFile === undefined
    ? undefined
    : readTokenFile(options.tokensFile);
  if (token !== undefined) {
    if (
      token.length < HTTP_TOKEN_MIN_CHARS || token.length > HTTP_TOKEN_MAX_CHARS ||
      !TOKEN_ALPHABET.test(token)
    ) {
      throw new MemaError(
        "config_invalid",
        `the HTTP token must be ${HTTP_TOKEN_MIN_CHARS}-${HTTP_TOKEN_MAX_CHARS} characters of letters, digits and . _ ~ + / = -`,
        { field: "http_token", hint: "generate one with: openssl rand -hex 32" },
      );
    }
  }
  if (allowRemote && token === undefined && !tokenFile?.tokens.length) {
    throw new MemaError("config_invalid", "--allow-remote requires a bearer token", {
      field: "http_token",
      hint:
        "add per-caller tokens with `mema token add`, or set MEMA_HTTP_TOKEN (e.g. to the output of `openssl rand -hex 32`)",
    });
  }
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new MemaError(
      "config_invalid",
      `refusing to listen on non-loopback host "${host}": mema serves this machine only`,
      {
        field: "host",
        hint:
          "use --host 127.0.0.1 (the default); to accept other machines pass --allow-remote and set MEMA_HTTP_TOKEN",
      },
    );
  }
}

function jsonRpcError(
  status: number,
  message: string,
  options: { code?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: options.code ?? -32000, message },
      id: null,
    }),
    { status, headers: { "content-type": "application/json", ...options.headers } },
  );
}

function refusalResponse(refusal: Refusal): Response {
  const headers: Record<string, string> = {};
  if (refusal.status === 401) headers["www-authenticate"] = 'Bearer realm="mema"';
  // The body was not read to its end, so the connection cannot carry another request.
  if (refusal.status === 408 || refusal.status === 413) headers.connection = "close";
  return jsonRpcError(refusal.status, refusal.message, { headers });
}

/**
 * A runtime whose service context acts as `caller`; the store is shared. A caller `limited` to
 * its token's workspaces runs under strict isolation whatever the server's mode: it can read
 * and write its own workspace only, unscoped finds and views included.
 */
function runtimeFor(runtime: McpRuntime, caller: CallerIdentity, limited: boolean): McpRuntime {
  const settings = limited
    ? { ...runtime.ctx.settings, workspaceIsolation: "strict" as const }
    : runtime.ctx.settings;
  return { ...runtime, ctx: { ...runtime.ctx, caller, settings } };
}

function formatUrl(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  return `http://${bare.includes(":") ? `[${bare}]` : bare}:${port}${HTTP_MCP_PATH}`;
}

/** How {@linkcode createMcpHttpHandler} checks requests. */
export interface HttpHandlerOptions {
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** The per-caller token file, re-read when it changes (see {@linkcode HttpServeOptions}). */
  tokensFile?: string;
  /** Accept non-loopback peers and any `Host` (the token guards instead). */
  allowRemote?: boolean;
  /** The port the server listens on, which `Host` must name. */
  listenPort: () => number;
  /** How long a request body may take to arrive; default {@linkcode HTTP_BODY_TIMEOUT_MS}. */
  bodyTimeoutMs?: number;
}

/** Answers one HTTP request from a peer address. */
export type McpHttpHandler = (request: Request, peer: string) => Promise<Response>;

/**
 * The request pipeline, without the socket: peer → Host → Origin → path →
 * method → token → identity → media types → body limit and deadline → JSON → a
 * stateless MCP exchange.
 * Each refusal is exactly one status; nothing reaches the store before every
 * check has passed, except the audit row of a refused token, workspace or
 * identity (coalesced per minute, src/http/access_refusals.ts).
 */
export function createMcpHttpHandler(
  runtime: McpRuntime,
  options: HttpHandlerOptions,
): McpHttpHandler {
  const allowRemote = options.allowRemote === true;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? HTTP_BODY_TIMEOUT_MS;
  const gate = options.tokensFile === undefined ? undefined : new TokenGate({
    tokensFile: options.tokensFile,
    sharedToken: options.token,
  });
  /** Answers a refusal; an audited one is written to the audit trail first. */
  const refused = async (verdict: AccessVerdict<never>, peer: string): Promise<Response> => {
    if (verdict.audit) await auditAccessRefusal(runtime.ctx.store, { ...verdict.audit, peer });
    return refusalResponse(verdict);
  };
  return async (request, peer) => {
    if (!allowRemote && !isLoopbackHost(peer)) {
      return jsonRpcError(403, "only clients on this machine may connect");
    }
    const host = request.headers.get("host");
    if (!allowRemote) {
      const hostCheck = checkHostHeader(host, options.listenPort());
      if (!hostCheck.ok) return refusalResponse(hostCheck);
    }
    const originCheck = checkOriginHeader(request.headers.get("origin"), {
      sameHost: allowRemote ? host : undefined,
    });
    if (!originCheck.ok) return refusalResponse(originCheck);
    if (new URL(request.url).pathname !== HTTP_MCP_PATH) {
      return jsonRpcError(404, `not found: the MCP endpoint is ${HTTP_MCP_PATH}`);
    }
    if (request.method !== "POST") {
      // Stateless: there is no session to stream to (GET) or to end (DELETE).
      return jsonRpcError(405, "method not allowed: this stateless server accepts POST only", {
        headers: { allow: "POST" },
      });
    }
    const bearer = gate
      ? await gate.check(request.headers.get("authorization"))
      : checkSharedToken(request.headers.get("authorization"), options.token);
    if (!bearer.ok) return await refused(bearer, peer);
    let identity: { caller: CallerIdentity; limited: boolean };
    if (bearer.kind === "token") {
      const granted = tokenCaller(request.headers, bearer.token, runtime.ctx.caller.workspace);
      if (!granted.ok) return await refused(granted, peer);
      identity = granted;
    } else {
      const headers = readCallerHeaders(request.headers);
      if (!headers.ok) return refusalResponse(headers);
      // No X-Mema-Workspace: the server's configured workspace, if any, is the caller's.
      headers.caller.workspace ??= runtime.ctx.caller.workspace;
      identity = { caller: headers.caller, limited: false };
    }
    if (
      runtime.ctx.settings.workspaceIsolation === "strict" &&
      identity.caller.workspace === undefined
    ) {
      return refusalResponse({
        ok: false,
        status: 400,
        message:
          "the X-Mema-Workspace header is required: this server runs with strict workspace isolation and has no workspace configured",
      });
    }
    const form = checkMediaTypes(request.headers);
    if (typeof form !== "string") {
      return jsonRpcError(form.status, form.message, { code: form.code });
    }
    const body = await readBodyWithin(request, HTTP_BODY_LIMIT_BYTES, {
      timeoutMs: bodyTimeoutMs,
    });
    if (!body.ok) {
      if (body.status === 408) {
        logWarn(
          `cut off a client (${identity.caller.client}/${identity.caller.agentId} at ${peer}): request body not complete within ${bodyTimeoutMs} ms`,
        );
      }
      return refusalResponse(body);
    }
    let parsed: unknown;
    try {
      parsed = parseJsonFrame(body.text);
    } catch {
      return jsonRpcError(400, "parse error: the body is not valid JSON", { code: -32700 });
    }
    if (Array.isArray(parsed) && parsed.length === 0) {
      // JSON-RPC 2.0 §6: an empty batch is one Invalid Request.
      return jsonRpcError(400, "invalid request: an empty batch", { code: -32600 });
    }
    const server = createMcpServer(runtimeFor(runtime, identity.caller, identity.limited));
    return await answerMcpPost(server, request.headers, { body: parsed, form });
  };
}

/** The shared token alone (no token file): identity from the headers once it matches. */
function checkSharedToken(
  authorization: string | null,
  token: string | undefined,
): AccessVerdict<{ ok: true; kind: "headers" }> {
  const verdict = checkBearerToken(authorization, token);
  return verdict.ok
    ? { ok: true, kind: "headers" }
    : { ...verdict, audit: { kind: "unknown_token" } };
}

/** Starts listening; throws a `config_invalid` MemaError for a refused or unusable address. */
export function serveHttp(runtime: McpRuntime, options: HttpServeOptions): HttpTransport {
  checkBindPolicy(options);
  let port = options.port;
  let inFlight = 0;
  let stopping = false;
  const idleWaiters: (() => void)[] = [];
  const handle = createMcpHttpHandler(runtime, {
    token: options.token,
    tokensFile: options.tokensFile,
    allowRemote: options.allowRemote,
    listenPort: () => port,
    bodyTimeoutMs: options.bodyTimeoutMs,
  });
  // Aborting closes the listener and every connection at once, where
  // `server.shutdown()` waits for each connection to end. Only one of the two
  // may be used: aborting after `shutdown()` throws inside the runtime.
  const abort = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: options.host.replace(/^\[(.*)\]$/, "$1"),
      port: options.port,
      signal: abort.signal,
      onListen: () => {},
      onError: (error) => {
        logWarn(`HTTP request failed: ${error instanceof Error ? error.stack : error}`);
        return jsonRpcError(500, "internal error", { code: -32603 });
      },
    }, async (request, info) => {
      if (stopping) {
        return jsonRpcError(503, "the server is shutting down", {
          headers: { connection: "close" },
        });
      }
      inFlight++;
      try {
        return await handle(request, info.remoteAddr.hostname);
      } finally {
        inFlight--;
        if (inFlight === 0) idleWaiters.splice(0).forEach((resolve) => resolve());
      }
    });
  } catch (error) {
    throw new MemaError(
      "config_invalid",
      `cannot listen on ${options.host}:${options.port}: ${
        error instanceof Error ? error.message : error
      }`,
      { field: "port", hint: "choose another port with --port (or stop the other server)" },
    );
  }
  port = server.addr.port;
  let shutdownPromise: Promise<ShutdownReport> | undefined;
  return {
    url: formatUrl(options.host, port),
    port,
    finished: server.finished,
    inFlight: () => inFlight,
    shutdown(graceMs = options.shutdownGraceMs ?? HTTP_SHUTDOWN_GRACE_MS) {
      stopping = true;
      shutdownPromise ??= (async () => {
        const deadline = Date.now() + graceMs;
        if (inFlight > 0) {
          const idle = new Promise<void>((resolve) => idleWaiters.push(resolve));
          await settlesWithin(idle, graceMs);
        }
        if (inFlight > 0) {
          // A handler is still running (a client stalled mid-body, a call that
          // hangs): nothing more is worth waiting for, so close everything now.
          const cutOff = inFlight;
          abort.abort();
          await settlesWithin(server.finished, HTTP_CLOSE_WAIT_MS);
          return { cutOff, connectionsLeftOpen: false };
        }
        // Every request is answered. A graceful shutdown closes the listener at
        // once and lets the runtime deliver the last answers; it also waits for
        // connections a client keeps open after its 408, which it may never end.
        const closed = await settlesWithin(server.shutdown(), Math.max(0, deadline - Date.now()));
        return { cutOff: 0, connectionsLeftOpen: !closed };
      })();
      return shutdownPromise;
    },
  };
}

/**
 * Serves until `stop` resolves (the CLI resolves it on SIGINT or SIGTERM),
 * then refuses new requests, waits for the in-flight ones up to the grace
 * period ({@linkcode HTTP_SHUTDOWN_GRACE_MS} unless `shutdownGraceMs`), and
 * closes every connection. Resolves once the server has stopped, so the
 * caller can close the store after the last answer.
 */
export async function serveHttpUntil(
  runtime: McpRuntime,
  options: HttpServeOptions & { describe?: (url: string) => string },
  stop: Promise<unknown>,
): Promise<void> {
  const http = serveHttp(runtime, options);
  logInfo(options.describe?.(http.url) ?? `serving MCP at ${http.url}`);
  await Promise.race([http.finished, stop]);
  const graceMs = options.shutdownGraceMs ?? HTTP_SHUTDOWN_GRACE_MS;
  logInfo(`shutting down: finishing ${http.inFlight()} in-flight request(s)`);
  const { cutOff, connectionsLeftOpen } = await http.shutdown(graceMs);
  if (cutOff > 0) {
    logWarn(`shutdown grace of ${graceMs} ms over; cutting off ${cutOff} request(s)`);
  }
  if (connectionsLeftOpen) {
    logWarn(
      `shutdown grace of ${graceMs} ms over; connections clients keep open close with the process`,
    );
  }
  logInfo("HTTP server stopped");
}
