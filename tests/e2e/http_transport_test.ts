import assert from "node:assert/strict";
import { libraryRows, onBothBackends } from "../helpers/e2e_backends.ts";
import {
  connectHttp,
  identityHeaders,
  postRaw,
  startHttpServer,
  toolCallFrame,
} from "../helpers/http_server.ts";
import { startServer } from "../helpers/server.ts";

onBothBackends(
  "http: remember, find, read and update through the SDK's streamable HTTP client",
  async (home) => {
    const server = await startHttpServer(home);
    const session = await connectHttp(server.url, identityHeaders("http-e2e", "agent-one"));
    try {
      const stored = await session.call("remember", {
        content: "The staging database lives on db-staging-3, port 5433.",
        subject: "staging database",
        workspace: "billing",
        tags: ["infra"],
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      assert.equal(stored.data.version, 1);
      const id = stored.data.memory_id;

      // HTTP has no session: the standing notice is told once per client identity.
      assert.ok(stored.warnings.some((w) => /semantic recall is off/.test(w)), "first answer");
      const found = await session.call("find", {
        query: "staging database port",
        include_size: true,
      });
      assert.equal(found.ok, true);
      assert.deepEqual(found.warnings, []);
      assert.equal(found.degraded, false);
      assert.equal(found.data.results[0].memory_id, id);
      assert.ok(found.data.size.returned_count >= 1);
      const other = await connectHttp(server.url, identityHeaders("http-e2e", "agent-two"));
      try {
        const first = await other.call("find", { query: "staging database port" });
        assert.ok(first.warnings.some((w) => /semantic recall is off/.test(w)), "other identity");
        const status = await session.call("status");
        assert.ok(status.warnings.some((w) => /semantic recall is off/.test(w)), "status");
      } finally {
        await other.close();
      }

      const read = await session.call("read", { memory_id: id, span: { start: 4, end: 20 } });
      assert.equal(read.data.content, "staging database");
      assert.equal(read.data.span.total_chars, 54);

      const updated = await session.call("update", {
        memory_id: id,
        old_text: "5433",
        new_text: "5434",
        expected_version: 1,
      });
      assert.equal(updated.ok, true, JSON.stringify(updated.data));
      assert.equal(updated.data.version, 2);

      const replay = await session.call("remember", {
        content: "The staging database lives on db-staging-3, port 5434.",
        subject: "again",
        workspace: "billing",
      });
      assert.equal(replay.data.duplicate_replay, true);
      assert.equal(replay.data.memory_id, id);

      const status = await session.call("status");
      assert.deepEqual(status.data.identity, { client: "http-e2e", agent_id: "agent-one" });

      const failure = await session.call("read", { memory_id: 999_999 });
      assert.equal(failure.ok, false);
      assert.equal(failure.isError, true);
      assert.equal(failure.data.error, "not_found");
    } finally {
      await session.close();
      await server.stop();
    }
  },
);

onBothBackends(
  "http: each request writes under its own headers' identity",
  async (home, backend) => {
    const server = await startHttpServer(home);
    const alice = await connectHttp(server.url, identityHeaders("cursor", "alice"));
    const bob = await connectHttp(server.url, identityHeaders("claude-code", "bob@laptop"));
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? alice : bob).call("remember", {
            content: `parallel fact ${i}`,
            subject: `fact ${i}`,
            workspace: "w",
          })),
      );
      assert.ok(results.every((r) => r.ok));
      const edited = await bob.call("update", {
        memory_id: results[0].data.memory_id,
        new_content: "parallel fact 0, corrected by bob",
        reason: "typo",
      });
      assert.equal(edited.ok, true);
      const spoof = await alice.call("remember", {
        content: "x",
        subject: "x",
        workspace: "w",
        agent_id: "bob@laptop",
      });
      assert.equal(spoof.data.error, "identity_mismatch", "identity never comes from data");

      const rows = await libraryRows(
        home,
        backend,
        "SELECT subject, client, agent_id FROM memories ORDER BY id",
      );
      const bySubject = new Map(rows.map((row) => [row.subject, `${row.client}/${row.agent_id}`]));
      for (let i = 0; i < 10; i++) {
        assert.equal(
          bySubject.get(`fact ${i}`),
          i % 2 === 0 ? "cursor/alice" : "claude-code/bob@laptop",
        );
      }
      const history = await libraryRows(
        home,
        backend,
        "SELECT changed_by, changed_by_client FROM memory_history WHERE memory_id = ?",
        [results[0].data.memory_id],
      );
      assert.deepEqual(history, [{ changed_by: "bob@laptop", changed_by_client: "claude-code" }]);
    } finally {
      await alice.close();
      await bob.close();
      await server.stop();
    }
  },
);

onBothBackends("http: the same tools and envelope as stdio", async (home) => {
  const http = await startHttpServer(home);
  const stdio = await startServer(home);
  const session = await connectHttp(http.url, identityHeaders("test-client", "test-agent"));
  try {
    const overHttp = await session.client.listTools();
    const overStdio = await stdio.client.listTools();
    assert.deepEqual(overHttp.tools, overStdio.tools);
    assert.ok(overHttp.tools.length >= 2);
    const helpHttp = await session.call("help", { topic: "remember" });
    const helpStdio = await stdio.call("help", { topic: "remember" });
    assert.deepEqual(helpHttp.data, helpStdio.data);
    const badHttp = await session.call("find", { limit: 101 });
    const badStdio = await stdio.callRaw({ action: "find", data: { limit: 101 } });
    assert.deepEqual(
      { ...badHttp, isError: badHttp.isError },
      { ...badStdio, isError: badStdio.isError },
    );
    assert.deepEqual(Object.keys(badHttp).sort(), [
      "data",
      "degraded",
      "isError",
      "mode",
      "ok",
      "warnings",
    ]);
  } finally {
    await session.close();
    await stdio.close();
    await http.stop();
  }
});

onBothBackends("http: MEMA_TRANSPORT=http selects the transport without a flag", async (home) => {
  const server = await startHttpServer(home, {
    httpFlag: false,
    args: ["--port", "0"],
    env: { MEMA_TRANSPORT: "http" },
  });
  try {
    const session = await connectHttp(server.url, identityHeaders("env", "env-agent"));
    assert.equal((await session.call("status")).ok, true);
    await session.close();
  } finally {
    await server.stop();
  }
});

onBothBackends(
  "http: SIGTERM finishes the request in flight, refuses new ones, then exits 0",
  async (home, backend) => {
    const server = await startHttpServer(home);
    const body = new TextEncoder().encode(toolCallFrame(1, {
      action: "remember",
      data: { content: "written while the server was stopping", subject: "slow", workspace: "w" },
    }));
    const head = [
      "POST /mcp HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      "X-Mema-Client: shutdown",
      "X-Mema-Agent-Id: agent",
      `Content-Length: ${body.byteLength}`,
      "Connection: close",
      // The server answers "100 Continue" once its handler reads the body: then the request
      // is surely in flight (a fixed sleep raced the server's start of it on a loaded CI).
      "Expect: 100-continue",
      "",
      "",
    ].join("\r\n");
    // Headers and part of the body: the request is in flight, its body still arriving.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    await conn.write(new TextEncoder().encode(head));
    await conn.write(body.subarray(0, 40));
    await readUntil(conn, /^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    server.child.kill("SIGTERM");
    await waitFor(() => /finishing 1 in-flight request/.test(server.stderr()), "the shutdown log");
    const late = await postRaw(
      server.url,
      toolCallFrame(2, {
        action: "remember",
        data: { content: "sent after the signal", subject: "late", workspace: "w" },
      }),
      identityHeaders("shutdown", "agent"),
    );
    assert.equal(late.status, 503, "a request arriving during shutdown is refused");

    await conn.write(body.subarray(40));
    const response = new TextDecoder().decode(await readAll(conn));
    assert.match(response, /^HTTP\/1\.1 200/, response);
    const envelope = JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4)).result
      .structuredContent;
    assert.equal(envelope.ok, true, JSON.stringify(envelope.data));

    const status = await server.exited();
    assert.equal(status.code, 0, server.stderr());
    assert.match(server.stderr(), /finishing 1 in-flight request/);
    const rows = await libraryRows(
      home,
      backend,
      "SELECT CAST(id AS INTEGER) AS id, subject FROM memories",
    );
    assert.deepEqual(rows, [{ id: envelope.data.memory_id, subject: "slow" }]);
    await assert.rejects(() => fetch(server.url, { method: "POST", body: "{}" }));
  },
);

/** Reads from `conn` until what came matches `pattern` (nothing after it is read). */
async function readUntil(conn: Deno.Conn, pattern: RegExp): Promise<void> {
  let text = "";
  const buffer = new Uint8Array(1);
  while (!pattern.test(text)) {
    const n = await conn.read(buffer);
    if (n === null) throw new Error(`connection closed before ${pattern}: ${text}`);
    text += String.fromCharCode(buffer[0]);
  }
}

async function waitFor(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function readAll(conn: Deno.Conn): Promise<Uint8Array> {
  const chunks: number[] = [];
  const buffer = new Uint8Array(16 * 1024);
  for (;;) {
    const n = await conn.read(buffer);
    if (n === null) break;
    chunks.push(...buffer.subarray(0, n));
  }
  conn.close();
  return new Uint8Array(chunks);
}
