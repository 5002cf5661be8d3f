/**
 * Test helpers for the streamable HTTP transport: a real `mema serve --http`
 * process on a free port, and SDK clients that talk to it the way an
 * HTTP-speaking agent does.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Envelope, MAIN, type TempHome, textAsEnvelope } from "./server.ts";

/** A running `mema serve --http` process. */
export interface HttpServerProcess {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  port: number;
  child: Deno.ChildProcess;
  stderr(): string;
  /** Sends a signal and resolves with the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Resolves with the exit status once the process has ended by itself. */
  exited(): Promise<Deno.CommandStatus>;
}

/** Spawns `mema serve --http --port 0` (plus `args`) and waits until it listens. */
export async function startHttpServer(
  home: TempHome,
  options: {
    args?: string[];
    env?: Record<string, string>;
    timeoutMs?: number;
    /** Pass `--http`; false relies on MEMA_TRANSPORT or the config file instead. */
    httpFlag?: boolean;
  } = {},
): Promise<HttpServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      MAIN,
      "serve",
      ...(options.httpFlag === false ? [] : ["--http", "--port", "0"]),
      ...(options.args ?? []),
    ],
    env: { ...home.env, ...options.env },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const { promise: listening, resolve: resolveUrl } = Promise.withResolvers<string>();
  const pump = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      const match = / at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolveUrl(match[1]);
    }
  })();
  const timeoutMs = options.timeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = await Promise.race([
    listening,
    child.status.then((status) => {
      throw new Error(`mema serve --http exited with ${status.code}: ${stderr}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`mema serve --http did not listen: ${stderr}`)),
        timeoutMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => stderr,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch {
        // already exited
      }
      const status = await child.status;
      await pump;
      return status;
    },
    async exited() {
      const status = await child.status;
      await pump;
      return status;
    },
  };
}

/** Identity headers for a client. */
export function identityHeaders(client: string, agentId: string): Record<string, string> {
  return { "X-Mema-Client": client, "X-Mema-Agent-Id": agentId };
}

/** A connected SDK client over streamable HTTP. */
export interface HttpSession {
  client: Client;
  call(action: string, data?: unknown, tool?: string): Promise<Envelope & { isError?: boolean }>;
  close(): Promise<void>;
}

/** Converts a CallTool result into its envelope, checking text and structured content agree. */
export function envelopeOf(result: Record<string, unknown>): Envelope & { isError?: boolean } {
  const envelope = result.structuredContent as Envelope;
  const text = (result.content as { type: string; text: string }[])[0].text;
  if (!isDeepStrictEqual(textAsEnvelope(text), JSON.parse(JSON.stringify(envelope)))) {
    throw new Error("text content and structuredContent differ");
  }
  return { ...envelope, isError: result.isError as boolean | undefined };
}

/** Connects the SDK's StreamableHTTPClientTransport with the given headers. */
export async function connectHttp(
  url: string,
  headers: Record<string, string>,
): Promise<HttpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
  });
  const client = new Client({ name: "mema-http-tests", version: "0" });
  await client.connect(transport);
  return {
    client,
    call: async (action, data, tool = "memory") =>
      envelopeOf(await client.callTool({ name: tool, arguments: { action, data } })),
    close: () => client.close(),
  };
}

/** A raw JSON-RPC `tools/call` frame. */
export function toolCallFrame(id: number, args: unknown, tool = "memory"): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: tool, arguments: args },
  });
}

/** POSTs a body to the endpoint with MCP's required headers plus `headers`. */
export async function postRaw(
  url: string,
  body: BodyInit | null,
  headers: Record<string, string> | Headers = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const merged = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  for (const [name, value] of new Headers(headers)) merged.set(name, value);
  const response = await fetch(url, { method: "POST", body, headers: merged });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/**
 * Sends one HTTP/1.1 request written by hand over a raw TCP connection, for
 * what `fetch` will not send: a foreign `Host`, repeated headers.
 */
export async function rawHttp(
  port: number,
  head: string[],
  body: Uint8Array | string = "",
): Promise<{ status: number; text: string }> {
  const payload = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = [...head, `Content-Length: ${payload.byteLength}`, "Connection: close", "", ""];
    const request = new TextEncoder().encode(lines.join("\r\n"));
    const bytes = new Uint8Array(request.byteLength + payload.byteLength);
    bytes.set(request);
    bytes.set(payload, request.byteLength);
    let written = 0;
    while (written < bytes.byteLength) written += await conn.write(bytes.subarray(written));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    const response = new TextDecoder().decode(
      chunks.reduce((all, chunk) => {
        const merged = new Uint8Array(all.byteLength + chunk.byteLength);
        merged.set(all);
        merged.set(chunk, all.byteLength);
        return merged;
      }, new Uint8Array()),
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
    const split = response.indexOf("\r\n\r\n");
    return { status, text: split < 0 ? "" : response.slice(split + 4) };
  } finally {
    try {
      conn.close();
    } catch {
      // already closed by the server
    }
  }
}
