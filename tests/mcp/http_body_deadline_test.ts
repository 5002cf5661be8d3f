import assert from "node:assert/strict";
import { readBodyWithin } from "../../src/mcp/http_guards.ts";

/** A body that sends `first` and then nothing more, ever (until cancelled). */
function stalledBody(
  first: string,
): { stream: ReadableStream<Uint8Array>; cancelled: Promise<void> } {
  const { promise: cancelled, resolve } = Promise.withResolvers<void>();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    cancel() {
      resolve();
    },
  });
  return { stream, cancelled };
}

Deno.test("a body that stops arriving is refused with 408 at the deadline, and its reading stops", async () => {
  const { stream, cancelled } = stalledBody('{"jsonrpc":');
  const verdict = await readBodyWithin(
    new Request("http://x/", { method: "POST", body: stream }),
    1024,
    { timeoutMs: 50 },
  );
  assert.deepEqual(verdict, {
    ok: false,
    status: 408,
    message: "the request body did not arrive within 50 ms",
  });
  await cancelled;
});

Deno.test("a body that arrives within the deadline is read whole", async () => {
  const verdict = await readBodyWithin(
    new Request("http://x/", { method: "POST", body: '{"q":"on time"}' }),
    1024,
    { timeoutMs: 5_000 },
  );
  assert.deepEqual(verdict, { ok: true, text: '{"q":"on time"}' });
});

Deno.test("a body cut short by the connection is refused with 400, not thrown", async () => {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.error(new Error("connection reset"));
    },
  });
  const verdict = await readBodyWithin(
    new Request("http://x/", { method: "POST", body: stream }),
    1024,
    { timeoutMs: 5_000 },
  );
  assert.equal(verdict.ok, false);
  if (!verdict.ok) assert.equal(verdict.status, 400);
});
