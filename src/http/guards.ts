/**
 * Checks shared by mema's local HTTP servers (the MCP transport and the console): loopback
 * hosts, DNS-rebinding protection on `Host` and `Origin`, constant-time secret comparison and a
 * bounded body read. Each check returns a verdict instead of throwing, so a server turns a
 * refusal into exactly one HTTP status.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHostHeader } from "./guards.ts";
 *
 * assert.deepEqual(checkHostHeader("127.0.0.1:8766", 8766), { ok: true });
 * assert.equal(checkHostHeader("evil.example:8766", 8766).ok, false);
 * ```
 * @module
 */

/** A refused request: the HTTP status and a message for the client. */
export interface Refusal {
  ok: false;
  status: number;
  message: string;
}

/** The outcome of a check that yields nothing. */
export type Verdict = { ok: true } | Refusal;

export const PASS: Verdict = { ok: true };

export function refuse(status: number, message: string): Refusal {
  return { ok: false, status, message };
}

/** True for an IPv4 address in 127.0.0.0/8. */
function isLoopbackIpv4(address: string): boolean {
  const parts = address.split(".");
  if (parts.length !== 4 || parts[0] !== "127") return false;
  return parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

/**
 * True when `host` names this machine only: `localhost`, an address in
 * 127.0.0.0/8, `::1` (with or without brackets) or an IPv4-mapped loopback
 * address. Used for the bind address and for peers.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (name === "localhost" || name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
  if (name.startsWith("::ffff:")) return isLoopbackIpv4(name.slice("::ffff:".length));
  return isLoopbackIpv4(name);
}

/** Splits an authority (`host[:port]`, `[v6][:port]`) into host and port; undefined when malformed. */
function splitAuthority(authority: string): { host: string; port?: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!match) return undefined;
  return { host: match[1], port: match[2] === undefined ? undefined : Number(match[2]) };
}

/**
 * DNS-rebinding protection: the `Host` header must name a loopback host and
 * the port the server listens on. A rebound attacker domain resolves to
 * 127.0.0.1 but still sends its own name, so it fails here. 421 Misdirected
 * Request: this server does not serve that authority.
 */
export function checkHostHeader(
  host: string | null,
  port: number,
  options: { path?: string } = {},
): Verdict {
  const path = options.path ?? "/";
  if (host === null || host === "") return refuse(421, "the Host header is required");
  const authority = splitAuthority(host);
  const effectivePort = authority?.port ?? 80;
  if (!authority || !isLoopbackHost(authority.host) || effectivePort !== port) {
    return refuse(
      421,
      `Host "${host}" is not served here: use http://127.0.0.1:${port}${path} or http://localhost:${port}${path}`,
    );
  }
  return PASS;
}

/**
 * A browser page may only call the server from a loopback origin; any other
 * `Origin` (including the opaque `null`) is refused. Requests without `Origin`
 * come from non-browser clients and pass. With `--allow-remote`, the origin
 * of the `Host` the request was sent to is accepted too.
 */
export function checkOriginHeader(
  origin: string | null,
  options: { sameHost?: string | null } = {},
): Verdict {
  if (origin === null) return PASS;
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  const webScheme = url !== undefined && (url.protocol === "http:" || url.protocol === "https:");
  if (webScheme && isLoopbackHost(url!.hostname)) return PASS;
  if (webScheme && options.sameHost && url!.host === options.sameHost.toLowerCase()) return PASS;
  return refuse(403, `Origin "${origin}" may not call this server`);
}

/** Compares two strings in time that depends only on their lengths. */
export function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i] ?? 0) ^ b[i];
  return difference === 0;
}

/** A request body read within the limit, or why it was refused. */
export type BodyVerdict = { ok: true; text: string } | Refusal;

/** How {@linkcode readBodyWithin} bounds a body besides its size. */
export interface BodyReadOptions {
  /**
   * The whole body must arrive within this many milliseconds of the call;
   * when it does not, reading stops and the request is refused with 408.
   */
  timeoutMs?: number;
}

/**
 * Reads the body as UTF-8 text, counting bytes as they arrive: a declared
 * `Content-Length` over the limit is refused unread, and a chunked body is cut
 * off as soon as it passes the limit (413). A body still incomplete after
 * `timeoutMs` is abandoned (408), so a client that stalls cannot hold the
 * request open; a body cut short by a closed connection is refused (400).
 * Invalid UTF-8 is refused (400) rather than silently replaced, so no mangled
 * text can reach storage.
 */
export async function readBodyWithin(
  request: Request,
  maxBytes: number,
  options: BodyReadOptions = {},
): Promise<BodyVerdict> {
  const tooLarge = refuse(413, `the request body must not exceed ${maxBytes} bytes`);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return tooLarge;
  }
  if (request.body === null) return { ok: true, text: "" };
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = Symbol("late");
  const deadline = options.timeoutMs === undefined
    ? undefined
    : new Promise<typeof late>((resolve) => {
      timer = setTimeout(() => resolve(late), options.timeoutMs);
    });
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array> | typeof late;
      try {
        next = deadline ? await Promise.race([reader.read(), deadline]) : await reader.read();
      } catch {
        // The client went away mid-body, or the server is closing its connections.
        return refuse(400, "the request body could not be read: the connection closed");
      }
      if (next === late) {
        // Not awaited: the runtime may only settle the cancel when the client moves.
        reader.cancel().catch(() => {});
        return refuse(408, `the request body did not arrive within ${options.timeoutMs} ms`);
      }
      const { done, value } = next;
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => {});
        return tooLarge;
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return refuse(400, "the request body is not valid UTF-8");
  }
}
