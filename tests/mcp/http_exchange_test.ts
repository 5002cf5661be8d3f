import assert from "node:assert/strict";
import { createMcpHttpHandler, HTTP_SERVER_CALLER } from "../../src/mcp/http.ts";
import { createRuntime } from "../../src/mcp/runtime.ts";
import { openTestContext, snapshotDatabase } from "../helpers/context.ts";

const PORT = 8124;

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://127.0.0.1:${PORT}/mcp`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: {
      host: `127.0.0.1:${PORT}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-mema-client": "unit-exchange",
      "x-mema-agent-id": "agent-1",
      ...headers,
    },
  });
}

function remember(id: number, content: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "memory",
      arguments: { action: "remember", data: { content, subject: content, workspace: "w" } },
    },
  };
}

async function withHandler(
  fn: (
    handle: (request: Request) => Promise<Response>,
    snapshot: () => unknown,
  ) => Promise<void>,
): Promise<void> {
  const test = await openTestContext({ skipVec: true });
  try {
    const runtime = createRuntime({ ...test.ctx, caller: HTTP_SERVER_CALLER }, {
      dbPath: test.dbPath,
    });
    const handler = createMcpHttpHandler(runtime, { listenPort: () => PORT });
    await fn((request) => handler(request, "127.0.0.1"), () => snapshotDatabase(test.dbPath));
  } finally {
    test.cleanup();
  }
}

Deno.test("http exchange: Accept picks JSON or SSE; neither is 406, a non-JSON body type 415", async () => {
  await withHandler(async (handle, snapshot) => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const json = await handle(post(ping, { accept: "application/json" }));
    assert.equal(json.status, 200);
    assert.equal(json.headers.get("content-type"), "application/json");
    assert.deepEqual(await json.json(), { jsonrpc: "2.0", id: 1, result: {} });

    const sse = await handle(post(remember(2, "streamed fact"), { accept: "text/event-stream" }));
    assert.equal(sse.status, 200);
    assert.equal(sse.headers.get("content-type"), "text/event-stream");
    const events = (await sse.text()).split("\n\n").filter((event) => event !== "");
    assert.equal(events.length, 1);
    assert.match(events[0], /^event: message\ndata: /);
    const answer = JSON.parse(events[0].split("\ndata: ")[1]);
    assert.equal(answer.id, 2);
    assert.equal(answer.result.structuredContent.ok, true);

    const before = snapshot();
    const html = await handle(post(remember(3, "refused fact"), { accept: "text/html" }));
    assert.equal(html.status, 406);
    assert.match((await html.json()).error.message, /Accept/);
    const zeroQuality = await handle(
      post(remember(4, "refused fact"), { accept: "application/json;q=0, text/html" }),
    );
    assert.equal(zeroQuality.status, 406);
    await zeroQuality.body?.cancel();
    const text = await handle(post(remember(5, "refused fact"), { "content-type": "text/plain" }));
    assert.equal(text.status, 415);
    await text.body?.cancel();
    assert.deepEqual(snapshot(), before);
  });
});

Deno.test("http exchange: MCP-Protocol-Version is checked after initialize; notifications get 202", async () => {
  await withHandler(async (handle) => {
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const unknown = await handle(post(list, { "mcp-protocol-version": "1999-01-01" }));
    assert.equal(unknown.status, 400);
    assert.match((await unknown.json()).error.message, /MCP-Protocol-Version "1999-01-01"/);
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const known = await handle(post(list, { "mcp-protocol-version": version }));
      assert.equal(known.status, 200, version);
      assert.ok(Array.isArray((await known.json()).result.tools));
    }
    const init = await handle(post({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t" } },
    }, { "mcp-protocol-version": "1999-01-01" }));
    assert.equal(init.status, 200);
    assert.equal((await init.json()).result.protocolVersion, "2025-06-18");
    assert.equal(init.headers.get("mcp-session-id"), null);

    const note = await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }));
    assert.equal(note.status, 202);
    assert.equal(await note.text(), "");

    const invalid = await handle(post({ jsonrpc: "2.0", id: 7, method: "tools/list", x: 1 }));
    assert.equal(invalid.status, 400);
    const body = await invalid.json();
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32600);
  });
});

Deno.test("http exchange: a batch runs under 2025-03-26 (or no version) and is refused under 2025-06-18", async () => {
  await withHandler(async (handle, snapshot) => {
    const before = snapshot();
    const refused = await handle(
      post([remember(1, "batched under 06-18")], { "mcp-protocol-version": "2025-06-18" }),
    );
    assert.equal(refused.status, 400);
    const errors = await refused.json();
    assert.deepEqual(errors.map((reply: { id: unknown }) => reply.id), [1]);
    assert.match(errors[0].error.message, /batches are not supported/);
    assert.deepEqual(snapshot(), before);

    const versions: Record<string, string>[] = [{ "mcp-protocol-version": "2025-03-26" }, {}];
    for (const headers of versions) {
      const ran = await handle(post([
        remember(2, `batched with ${JSON.stringify(headers)}`),
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 3, method: "ping" },
      ], headers));
      assert.equal(ran.status, 200);
      const replies = await ran.json();
      assert.deepEqual(replies.map((reply: { id: unknown }) => reply.id), [2, 3]);
      assert.equal(replies[0].result.structuredContent.ok, true);
    }
    const tooMany = await handle(post(
      Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })),
    ));
    assert.equal(tooMany.status, 400);
    assert.match((await tooMany.json()).error.message, /at most 100/);
  });
});
