import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { McpServer } from "../../src/mcp/protocol.ts";
import { ProtocolError } from "../../src/mcp/jsonrpc.ts";
import { LineStdioTransport } from "../../src/mcp/stdio.ts";

type Reply = {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** A server with a slow method (finishes when told), a failing one and a typed refusal. */
function testServer() {
  let release = () => {};
  const server = new McpServer({
    name: "test",
    version: "1.2.3",
    capabilities: { tools: {} },
    instructions: "be kind",
    handlers: {
      "tools/list": () => ({ tools: [] }),
      "slow/call": () => new Promise((resolve) => release = () => resolve({ done: true })),
      "broken/call": () => {
        throw new Error("disk on fire");
      },
      "refused/call": () => {
        throw new ProtocolError(-32602, "no such thing", { field: "name" });
      },
    },
  });
  return { server, release: () => release() };
}

const initialize = (protocolVersion: unknown) => ({
  jsonrpc: "2.0" as const,
  id: "init",
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "0" } },
});

Deno.test("initialize answers the requested revision when supported, else the newest", async () => {
  const { server } = testServer();
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    const reply = await server.answer(initialize(version)) as Reply;
    assert.equal(reply.result?.protocolVersion, version);
    assert.deepEqual(reply.result?.serverInfo, { name: "test", version: "1.2.3" });
    assert.deepEqual(reply.result?.capabilities, { tools: {} });
    assert.equal(reply.result?.instructions, "be kind");
  }
  const future = await server.answer(initialize("2099-01-01")) as Reply;
  assert.equal(future.result?.protocolVersion, "2025-11-25");
  const missing = await server.answer(initialize(undefined)) as Reply;
  assert.equal(missing.error?.code, -32602);
  assert.match(missing.error!.message, /protocolVersion/);
});

Deno.test("ping, unknown methods, failing and refusing handlers get their JSON-RPC answers", async () => {
  const { server } = testServer();
  assert.deepEqual(await server.answer({ jsonrpc: "2.0", id: 1, method: "ping" }), {
    jsonrpc: "2.0",
    id: 1,
    result: {},
  });
  const unknown = await server.answer({ jsonrpc: "2.0", id: 2, method: "x".repeat(5_000) });
  assert.equal((unknown as Reply).error?.code, -32601);
  // A huge method name is not echoed back whole.
  assert.ok((unknown as Reply).error!.message.length < 200);
  // Prototype keys are not methods.
  const proto = await server.answer({ jsonrpc: "2.0", id: 3, method: "constructor" });
  assert.equal((proto as Reply).error?.code, -32601);
  const broken = await server.answer({ jsonrpc: "2.0", id: 4, method: "broken/call" }) as Reply;
  assert.equal(broken.error?.code, -32603);
  assert.match(broken.error!.message, /disk on fire/);
  const refused = await server.answer({ jsonrpc: "2.0", id: 5, method: "refused/call" }) as Reply;
  assert.deepEqual(refused.error, {
    code: -32602,
    message: "no such thing",
    data: { field: "name" },
  });
  // Notifications and responses from the client are never answered.
  assert.equal(
    await server.answer({ jsonrpc: "2.0", method: "notifications/initialized" }),
    undefined,
  );
  assert.equal(await server.answer({ jsonrpc: "2.0", id: 9, result: {} }), undefined);
});

Deno.test("a cancelled request is not answered; the others are", async () => {
  const { server, release } = testServer();
  const slow = server.answer({ jsonrpc: "2.0", id: 7, method: "slow/call" });
  await server.answer({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 7, reason: "user gave up" },
  });
  release();
  assert.equal(await slow, undefined);
  const again = server.answer({ jsonrpc: "2.0", id: 8, method: "slow/call" });
  // Cancelling an id that is not running changes nothing.
  await server.answer({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 99 },
  });
  release();
  assert.deepEqual(await again, { jsonrpc: "2.0", id: 8, result: { done: true } });
});

/** The server on a stdio transport over in-memory pipes. */
async function overStdio() {
  const { server } = testServer();
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineStdioTransport({ input, output });
  let written = "";
  output.on("data", (chunk: Uint8Array) => written += new TextDecoder().decode(chunk));
  await server.connect(transport);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
  return {
    server,
    async send(message: unknown) {
      input.write(JSON.stringify(message) + "\n");
      await settle();
    },
    replies: () =>
      written.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)),
  };
}

Deno.test("stdio: a 2025-03-26 session's batch runs; a 2025-06-18 session's is refused", async () => {
  const old = await overStdio();
  await old.send(initialize("2025-03-26"));
  await old.send([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    initialize("2025-03-26"),
    42,
  ]);
  const batch = old.replies()[1] as Reply[];
  assert.deepEqual(batch.map((reply) => reply.id), [1, 2, "init", null]);
  assert.deepEqual(batch[0].result, {});
  assert.deepEqual(batch[1].result, { tools: [] });
  // initialize may not be batched; a member that is no message is an Invalid Request.
  assert.equal(batch[2].error?.code, -32600);
  assert.equal(batch[3].error?.code, -32600);
  await old.server.close();

  const current = await overStdio();
  await current.send(initialize("2025-06-18"));
  await current.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  const refused = current.replies()[1] as Reply[];
  assert.deepEqual(refused.map((reply) => reply.id), [1]);
  assert.equal(refused[0].error?.code, -32600);
  assert.match(refused[0].error!.message, /batches are not supported/);
  await current.server.close();
});

Deno.test("stdio: a batch past the limit runs nothing and tells each request", async () => {
  const session = await overStdio();
  await session.send(initialize("2025-03-26"));
  await session.send(
    Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "slow/call" })),
  );
  const replies = session.replies()[1] as Reply[];
  assert.equal(replies.length, 101);
  for (const reply of replies) {
    assert.equal(reply.error?.code, -32600);
    assert.match(reply.error!.message, /at most 100/);
  }
  await session.server.close();
});
