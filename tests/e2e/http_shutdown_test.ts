/**
 * Shutdown and slow clients (issue 12 item 8): a stalled request must not keep
 * a stopping server alive, a body that stops arriving is cut off, and a stdio
 * server stops cleanly on a signal. Bounds here are generous on purpose: they
 * tell "exits" from "hangs forever", not how fast.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import {
  connectHttp,
  identityHeaders,
  startHttpServer,
  toolCallFrame,
} from "../helpers/http_server.ts";
import { MAIN, makeTempHome } from "../helpers/server.ts";

/** Far above any grace used here; a server that is not gone by then never leaves. */
const HANG_BOUND_MS = 15_000;

/** Resolves with `promise`, or rejects when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Headers of a `tools/call` POST whose body is `bodyBytes` long. */
function requestHead(port: number, bodyBytes: number): string {
  return [
    "POST /mcp HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "X-Mema-Client: slow",
    "X-Mema-Agent-Id: agent",
    `Content-Length: ${bodyBytes}`,
    "",
    "",
  ].join("\r\n");
}

/** Opens a connection and sends the headers and the first `sent` bytes of a remember call. */
async function stalledRequest(port: number, sent = 40): Promise<Deno.Conn> {
  const body = new TextEncoder().encode(toolCallFrame(1, {
    action: "remember",
    data: { content: "a body that never finishes arriving", subject: "stalled", workspace: "w" },
  }));
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(requestHead(port, body.byteLength)));
  await conn.write(body.subarray(0, sent));
  return conn;
}

/** Reads until the peer closes (or resets) the connection; returns what arrived. */
async function readUntilClosed(conn: Deno.Conn): Promise<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16 * 1024);
  let text = "";
  for (;;) {
    let n: number | null;
    try {
      n = await conn.read(buffer);
    } catch {
      return text;
    }
    if (n === null) return text;
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
}

/** Reads until a whole HTTP response head has arrived; returns the status line. */
async function readStatusLine(conn: Deno.Conn): Promise<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16 * 1024);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buffer);
    if (n === null) break;
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  return text.split("\r\n")[0];
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

Deno.test("e2e http: SIGTERM with a stalled request exits after the grace period, not when the client leaves", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home, {
    // A short grace; a body timeout far beyond the test, so only the shutdown path can end it.
    env: { MEMA_HTTP_SHUTDOWN_GRACE_MS: "500", MEMA_HTTP_BODY_TIMEOUT_MS: "600000" },
  });
  const stalled = await stalledRequest(server.port);
  // A second client that never even finishes its headers.
  const headless = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    await headless.write(new TextEncoder().encode("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    // Let the server start handling the stalled request before the signal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.child.kill("SIGTERM");
    const status = await within(server.exited(), HANG_BOUND_MS, "the stopping server");
    assert.equal(status.code, 0, server.stderr());
    assert.match(server.stderr(), /finishing 1 in-flight request/);
    assert.match(server.stderr(), /grace of 500 ms over; cutting off 1 request/);
    // Both clients lose their connection with the server; nothing stays listening.
    await within(readUntilClosed(stalled), HANG_BOUND_MS, "the stalled connection");
    await within(readUntilClosed(headless), HANG_BOUND_MS, "the headless connection");
    await assert.rejects(() => Deno.connect({ hostname: "127.0.0.1", port: server.port }));
  } finally {
    closeQuietly(stalled);
    closeQuietly(headless);
    try {
      server.child.kill("SIGKILL");
    } catch {
      // exited as it should
    }
    await server.exited();
    home.cleanup();
  }
});

Deno.test("e2e http: a body that stops arriving gets 408 after the body timeout; others are served", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home, {
    env: { MEMA_HTTP_BODY_TIMEOUT_MS: "500", MEMA_HTTP_SHUTDOWN_GRACE_MS: "1000" },
  });
  const slow = await stalledRequest(server.port);
  try {
    const statusLine = await within(readStatusLine(slow), HANG_BOUND_MS, "the slow client");
    assert.match(statusLine, /^HTTP\/1\.1 408/);
    assert.match(server.stderr(), /request body not complete within 500 ms/);

    const session = await connectHttp(server.url, identityHeaders("fast", "agent"));
    try {
      const stored = await session.call("remember", {
        content: "served while a slow client was cut off",
        subject: "fast",
        workspace: "w",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      const found = await session.call("find", { query: "slow client", workspace: "w" });
      assert.deepEqual(
        found.data.results.map((hit: { subject: string }) => hit.subject),
        ["fast"],
        "the cut-off request wrote nothing",
      );
    } finally {
      await session.close();
    }

    // The cut-off client's socket is still open: it must not hold up shutdown either.
    server.child.kill("SIGTERM");
    const status = await within(server.exited(), HANG_BOUND_MS, "the stopping server");
    assert.equal(status.code, 0, server.stderr());
  } finally {
    closeQuietly(slow);
    try {
      server.child.kill("SIGKILL");
    } catch {
      // exited as it should
    }
    await server.exited();
    home.cleanup();
  }
});

Deno.test("e2e stdio: SIGTERM stops the server cleanly (database closed) and exits 0", async () => {
  const home = makeTempHome();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "serve"],
    env: { ...home.env, MEMA_CLIENT: "stdio-client", MEMA_AGENT_ID: "agent" },
    clearEnv: true,
    // stdin stays open: the client is still there when the signal comes.
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const { promise: serving, resolve: resolveServing } = Promise.withResolvers<void>();
  const pump = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      if (/over stdio/.test(stderr)) resolveServing();
    }
  })();
  try {
    await within(serving, 30_000, "the stdio server start");
    child.kill("SIGTERM");
    const status = await within(child.status, HANG_BOUND_MS, "the stopping stdio server");
    await pump;
    assert.equal(status.signal, null, `killed by ${status.signal} instead of stopping: ${stderr}`);
    assert.equal(status.code, 0, stderr);
    assert.match(stderr, /stopping on SIGTERM/);
    // A cleanly closed database leaves no write-ahead log behind.
    assert.equal(existsSync(`${home.dbPath}-wal`), false, "the database was not closed");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // exited as it should
    }
    await child.stdin.close().catch(() => {});
    await child.status;
    await pump;
    home.cleanup();
  }
});
