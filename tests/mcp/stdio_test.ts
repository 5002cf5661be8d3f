import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { LineStdioTransport, recoverRequestId } from "../../src/mcp/stdio.ts";

/** A transport over in-memory pipes, with everything it delivers and writes. */
async function harness(maxFrameBytes?: number, maxSendBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineStdioTransport({ input, output }, { maxFrameBytes, maxSendBytes });
  const messages: unknown[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  let written = "";
  output.on("data", (chunk: Uint8Array) => written += new TextDecoder().decode(chunk));
  await transport.start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    transport,
    messages,
    errors,
    async feed(...chunks: (string | Uint8Array)[]) {
      for (const chunk of chunks) {
        input.write(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
        await settle();
      }
    },
    replies: () =>
      written.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)),
  };
}

const request = (id: number | string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...extra });

Deno.test("frames split across chunks, CRLF endings and blank lines are read whole", async () => {
  const h = await harness();
  const frame = request(1, { params: { note: "ü漢\u{1F600}" } });
  const bytes = new TextEncoder().encode(frame + "\r\n\n  \n" + request(2) + "\n");
  // Split inside a multi-byte character too.
  await h.feed(bytes.slice(0, 45), bytes.slice(45, 47), bytes.slice(47));
  assert.deepEqual(h.messages, [JSON.parse(frame), JSON.parse(request(2))]);
  assert.deepEqual(h.replies(), []);
  await h.transport.close();
});

Deno.test("an oversized frame is answered with its id and reading goes on", async () => {
  const h = await harness(1_000);
  // The MCP SDK writes the id last; other clients write it first.
  const idLast = `{"method":"tools/call","params":{"x":"${
    "a".repeat(50_000)
  }"},"jsonrpc":"2.0","id":7}`;
  const idFirst = `{"jsonrpc":"2.0","id":"big-8","method":"tools/call","params":{"x":"${
    "b".repeat(50_000)
  }"}}`;
  const noId = `{"jsonrpc":"2.0","method":"notifications/x","params":{"x":"${"c".repeat(5_000)}"}}`;
  const chunks = (text: string) => text.match(/[^]{1,700}/g)!;
  await h.feed(...chunks(idLast + "\n"), ...chunks(idFirst + "\n"), noId + "\n", request(9) + "\n");
  const replies = h.replies();
  assert.deepEqual(replies.map((reply) => reply.id), [7, "big-8"]);
  for (const reply of replies) {
    assert.equal(reply.error.code, -32600);
    assert.equal(reply.error.data.error, "resource_limit_exceeded");
    assert.equal(reply.error.data.max_bytes, 1_000);
  }
  assert.equal(replies[0].error.data.actual_bytes, new TextEncoder().encode(idLast).length);
  assert.deepEqual(h.messages, [JSON.parse(request(9))]);
  await h.transport.close();
});

Deno.test("unparsable, invalid and non-UTF-8 frames get -32700 / -32600 when they carry an id", async () => {
  const h = await harness();
  const invalidUtf8 = new Uint8Array([
    ...new TextEncoder().encode('{"jsonrpc":"2.0","id":5,"method":"x","p":"'),
    0xed,
    0xa0,
    0x80,
    ...new TextEncoder().encode('"}\n'),
  ]);
  await h.feed(
    '{"jsonrpc":"2.0","id":3,"method":"tools/list",\n',
    '{"method":"tools/list","id":4}\n',
    invalidUtf8,
    '{"jsonrpc":"2.0","id":{"x":1},"method":42}\n',
    "garbage\n",
    request(6) + "\n",
  );
  assert.deepEqual(
    h.replies().map((reply) => [reply.id, reply.error.code]),
    [[3, -32700], [4, -32600], [5, -32700]],
  );
  assert.deepEqual(h.messages, [JSON.parse(request(6))]);
  await h.transport.close();
});

Deno.test("recoverRequestId finds only a top-level id at either end", () => {
  assert.equal(recoverRequestId('{"jsonrpc":"2.0","id":12,"method":', ""), 12);
  assert.equal(recoverRequestId('{ "id" : "a\\"b", "x":', ""), 'a"b');
  assert.equal(recoverRequestId("", '"params":{},"id":13}'), 13);
  assert.equal(recoverRequestId("", '"id":14,"jsonrpc":"2.0"}'), 14);
  assert.equal(recoverRequestId("", '"params":{"id":15}}'), undefined);
  assert.equal(recoverRequestId('{"method":"x","params":{"id":16', ""), undefined);
  assert.equal(recoverRequestId('{"id":1.5,', ""), undefined);
  assert.equal(recoverRequestId('{"id":null,', ""), undefined);
});

Deno.test("an answer past the send limit becomes an error for its request; other messages past it are dropped", async () => {
  const h = await harness(undefined, 2_000);
  await h.transport.send({ jsonrpc: "2.0", id: 21, result: { text: "é".repeat(1_500) } });
  await h.transport.send({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: "x".repeat(3_000) },
  });
  await h.transport.send({ jsonrpc: "2.0", id: 22, result: { text: "fits" } });
  const replies = h.replies();
  assert.deepEqual(replies.map((reply) => reply.id), [21, 22]);
  assert.equal(replies[0].error.code, -32603);
  assert.equal(replies[0].error.data.error, "resource_limit_exceeded");
  assert.equal(replies[0].error.data.max_bytes, 2_000);
  // Measured in UTF-8 bytes: 1 500 "é" are 3 000 bytes, though 1 500 characters would fit.
  assert.ok(replies[0].error.data.actual_bytes > 3_000);
  assert.deepEqual(replies[1].result, { text: "fits" });
  await h.transport.close();
});
