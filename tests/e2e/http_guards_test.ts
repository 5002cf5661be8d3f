import assert from "node:assert/strict";
import { snapshotDatabase } from "../helpers/context.ts";
import {
  connectHttp,
  identityHeaders,
  postRaw,
  rawHttp,
  startHttpServer,
  toolCallFrame,
} from "../helpers/http_server.ts";
import { makeTempHome, runCli } from "../helpers/server.ts";

const MiB = 1024 * 1024;
const TOKEN = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

function rememberFrame(id: number, content: string): string {
  return toolCallFrame(id, {
    action: "remember",
    data: { content, subject: `guard ${id}`, workspace: "guards" },
  });
}

/** A raw request head with everything right except what `overrides` replaces or drops. */
function head(port: number, overrides: Record<string, string | null> = {}, extra: string[] = []) {
  const fields: Record<string, string | null> = {
    Host: `127.0.0.1:${port}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "X-Mema-Client": "guard-test",
    "X-Mema-Agent-Id": "guard-agent",
    ...overrides,
  };
  const lines = ["POST /mcp HTTP/1.1"];
  for (const [name, value] of Object.entries(fields)) {
    if (value !== null) lines.push(`${name}: ${value}`);
  }
  return [...lines, ...extra];
}

Deno.test("e2e http guards: Host, Origin, identity, method, path and body are checked on the wire", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home);
  const port = server.port;
  try {
    const seeded = await rawHttp(port, head(port), rememberFrame(1, "seed fact"));
    assert.equal(seeded.status, 200, seeded.text);
    const before = snapshotDatabase(home.dbPath);

    const refusals: {
      label: string;
      lines: string[];
      body?: string | Uint8Array;
      status: number;
    }[] = [
      { label: "rebound Host", lines: head(port, { Host: `evil.example:${port}` }), status: 421 },
      { label: "Host without port", lines: head(port, { Host: "localhost" }), status: 421 },
      {
        label: "Host on another port",
        lines: head(port, { Host: `127.0.0.1:${port + 1}` }),
        status: 421,
      },
      {
        label: "foreign Origin",
        lines: head(port, { Origin: "http://evil.example" }),
        status: 403,
      },
      { label: "opaque Origin", lines: head(port, { Origin: "null" }), status: 403 },
      {
        label: "rebound Origin",
        lines: head(port, { Origin: `http://localhost.evil.example:${port}` }),
        status: 403,
      },
      { label: "no client header", lines: head(port, { "X-Mema-Client": null }), status: 400 },
      { label: "no agent header", lines: head(port, { "X-Mema-Agent-Id": null }), status: 400 },
      { label: "empty client", lines: head(port, { "X-Mema-Client": "" }), status: 400 },
      {
        label: "client twice",
        lines: head(port, {}, ["X-Mema-Client: mallory"]),
        status: 400,
      },
      {
        label: "agent twice, same value",
        lines: head(port, {}, ["X-Mema-Agent-Id: guard-agent"]),
        status: 400,
      },
      { label: "client with a space", lines: head(port, { "X-Mema-Client": "a b" }), status: 400 },
      {
        label: "path-like agent",
        lines: head(port, { "X-Mema-Agent-Id": "../../etc/passwd" }),
        status: 400,
      },
      {
        label: "SQL-like agent",
        lines: head(port, { "X-Mema-Agent-Id": "x';DROP TABLE memories;--" }),
        status: 400,
      },
      {
        label: "client of 65",
        lines: head(port, { "X-Mema-Client": "c".repeat(65) }),
        status: 400,
      },
      {
        label: "agent of 129",
        lines: head(port, { "X-Mema-Agent-Id": "a".repeat(129) }),
        status: 400,
      },
      {
        label: "invalid UTF-8",
        lines: head(port),
        body: new Uint8Array([
          ...new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"x":"'),
          0xc3,
          0x28,
          0x22,
          0x7d,
        ]),
        status: 400,
      },
      { label: "not JSON", lines: head(port), body: "{remember this", status: 400 },
      { label: "GET", lines: [`GET /mcp HTTP/1.1`, ...head(port).slice(1)], status: 405 },
      { label: "DELETE", lines: [`DELETE /mcp HTTP/1.1`, ...head(port).slice(1)], status: 405 },
      { label: "other path", lines: [`POST /api HTTP/1.1`, ...head(port).slice(1)], status: 404 },
    ];
    for (const { label, lines, body, status } of refusals) {
      const response = await rawHttp(port, lines, body ?? rememberFrame(9, `refused: ${label}`));
      assert.equal(response.status, status, `${label}: ${response.text}`);
      const error = JSON.parse(response.text).error;
      assert.equal(typeof error.message, "string", label);
    }
    const twice = await rawHttp(port, head(port, {}, ["X-Mema-Client: mallory"]), "{}");
    assert.match(JSON.parse(twice.text).error.message, /exactly once/);

    const allowedHeaders: Record<string, string>[] = [
      { Host: `localhost:${port}` },
      { Host: `[::1]:${port}` },
      { Origin: "http://localhost:5173" },
      { Origin: `http://127.0.0.1:${port}` },
    ];
    for (const allowed of allowedHeaders) {
      const response = await rawHttp(
        port,
        head(port, allowed),
        toolCallFrame(3, { action: "status" }),
      );
      assert.equal(response.status, 200, `${JSON.stringify(allowed)}: ${response.text}`);
    }
    assert.equal(snapshotDatabase(home.dbPath), before, "no refused request wrote anything");
  } finally {
    await server.stop();
    home.cleanup();
  }
});

Deno.test("e2e http guards: bodies over 4 MiB get 413, declared or streamed; 4 MiB itself passes", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home);
  const headers = identityHeaders("body-test", "agent");
  try {
    const before = snapshotDatabase(home.dbPath);
    const declared = await postRaw(
      server.url,
      rememberFrame(1, "x".repeat(4 * MiB)),
      headers,
    );
    assert.equal(declared.status, 413, declared.text);

    // No Content-Length (chunked): the limit must hold while the chunks arrive.
    const chunk = new TextEncoder().encode(" ".repeat(256 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Far more than the limit: were the server to read it all before
        // answering, this would take seconds and end in a 200 or 400, not 413.
        if (sent > 64 * MiB) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const streamed = await postRaw(server.url, stream, headers).catch((error) => ({
      status: -1,
      text: String(error),
      headers: new Headers(),
    }));
    assert.equal(streamed.status, 413, streamed.text);
    assert.ok(sent < 64 * MiB, `the server stopped reading early (${sent} bytes sent)`);

    // Exactly the limit: a valid frame padded with whitespace up to 4 MiB.
    const frame = toolCallFrame(2, { action: "status" });
    const exact = frame + " ".repeat(4 * MiB - new TextEncoder().encode(frame).byteLength);
    const atLimit = await postRaw(server.url, exact, headers);
    assert.equal(atLimit.status, 200, atLimit.text.slice(0, 300));

    // A remember at the 2 MiB content limit, with quotes and newlines to escape, fits.
    let document = "";
    for (let i = 0; document.length < 2 * MiB; i++) {
      document += `Line ${i}: the "deploy" step for service-${i} runs at ${i % 24}:00 UTC.\n`;
    }
    const big = await postRaw(server.url, rememberFrame(3, document.slice(0, 2 * MiB)), headers);
    assert.equal(big.status, 200);
    assert.equal(JSON.parse(big.text).result.structuredContent.ok, true);
    const after = snapshotDatabase(home.dbPath);
    assert.notEqual(after, before);
    const status = await postRaw(server.url, toolCallFrame(4, { action: "status" }), headers);
    assert.equal(status.status, 200, "the server is still up");
  } finally {
    await server.stop();
    home.cleanup();
  }
});

Deno.test("e2e http guards: a non-loopback bind is refused without --allow-remote and a token", async () => {
  const home = makeTempHome();
  try {
    const cases: { args: string[]; env?: Record<string, string>; pattern: RegExp }[] = [
      { args: ["--host", "0.0.0.0"], pattern: /non-loopback host "0\.0\.0\.0"/ },
      { args: ["--host", "192.168.77.1"], pattern: /non-loopback/ },
      { args: ["--host", "0.0.0.0"], env: { MEMA_HTTP_TOKEN: TOKEN }, pattern: /non-loopback/ },
      { args: ["--host", "0.0.0.0", "--allow-remote"], pattern: /requires a bearer token/ },
      {
        args: ["--host", "0.0.0.0", "--allow-remote"],
        env: { MEMA_HTTP_TOKEN: "short" },
        pattern: /token must be/,
      },
    ];
    for (const { args, env: extra, pattern } of cases) {
      const run = await runCli(home, ["serve", "--http", "--port", "0", ...args], extra);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, pattern);
      assert.equal(run.stdout, "");
    }
    const stdioWithPort = await runCli(home, ["serve", "--port", "9000"], {
      MEMA_CLIENT: "c",
      MEMA_AGENT_ID: "a",
    });
    assert.equal(stdioWithPort.code, 1);
    assert.match(stdioWithPort.stderr, /need --http/);
    const badTransport = await runCli(home, ["serve"], { MEMA_TRANSPORT: "carrier-pigeon" });
    assert.equal(badTransport.code, 1);
    assert.match(badTransport.stderr, /MEMA_TRANSPORT must be "stdio" or "http"/);
    assert.throws(() => Deno.statSync(home.dbPath), "a refused bind opens no database");
  } finally {
    home.cleanup();
  }
});

Deno.test("e2e http guards: with --allow-remote and a token, every request needs the bearer token", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home, {
    args: ["--host", "0.0.0.0", "--allow-remote"],
    env: { MEMA_HTTP_TOKEN: TOKEN },
  });
  try {
    const frame = toolCallFrame(1, { action: "status" });
    const headers = identityHeaders("remote", "agent");
    const none = await postRaw(server.url, frame, headers);
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
    const wrong = await postRaw(server.url, frame, {
      ...headers,
      authorization: `Bearer ${TOKEN.slice(0, -1)}0`,
    });
    assert.equal(wrong.status, 401);
    const session = await connectHttp(server.url, {
      ...headers,
      authorization: `Bearer ${TOKEN}`,
    });
    const status = await session.call("status");
    assert.equal(status.ok, true);
    assert.deepEqual(status.data.identity, { client: "remote", agent_id: "agent" });
    await session.close();
  } finally {
    await server.stop();
    home.cleanup();
  }
});
