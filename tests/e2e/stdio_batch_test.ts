/**
 * A JSON-RPC batch (one line holding an array) over stdio is answered, never
 * left hanging: MCP 2025-06-18 removed batching, so each request in it gets a
 * "batches are not supported" error under its own id, notifications get
 * nothing, `[]` is an Invalid Request, and the server keeps serving.
 */
import assert from "node:assert/strict";
import { onBothBackends, snapshotLibrary } from "../helpers/e2e_backends.ts";
import { spawnRawStdio } from "../helpers/raw_stdio.ts";
import { makeTempHome } from "../helpers/server.ts";

type Reply = {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
};

const call = (id: number | string, action: string, data: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "memory", arguments: { action, data } },
});

onBothBackends(
  "stdio: a batch gets one error per request under its id, [] an Invalid Request, and nothing in it runs",
  async (home, backend) => {
    const raw = spawnRawStdio(home);
    let closed = false;
    try {
      await raw.initialize();
      const before = await snapshotLibrary(home, backend);

      await raw.send([
        call(1, "remember", { content: "batched fact", subject: "b", workspace: "w" }),
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
        { jsonrpc: "2.0", id: "two", method: "tools/list" },
        42,
      ]);
      const replies = await raw.nextReply() as Reply[];
      assert.ok(Array.isArray(replies), JSON.stringify(replies));
      // The notification gets no answer; the member that is not a message gets id null.
      assert.deepEqual(replies.map((reply) => reply.id), [1, "two", null]);
      for (const reply of replies) {
        assert.equal(reply.jsonrpc, "2.0");
        assert.equal(reply.error?.code, -32600);
        assert.match(reply.error!.message, /batches are not supported/);
      }

      await raw.send([]);
      const empty = await raw.nextReply() as Reply;
      assert.equal(Array.isArray(empty), false);
      assert.equal(empty.id, null);
      assert.equal(empty.error?.code, -32600);
      assert.match(empty.error!.message, /empty batch/);

      // A batch of notifications only gets no answer (JSON-RPC 2.0 never sends an empty array):
      // the next line is the reply to the request sent after it.
      await raw.send([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
      await raw.send(call(3, "find", { workspace: "w" }));
      const alive = await raw.nextReply() as Reply;
      assert.equal(alive.id, 3);
      const found =
        (alive.result as { structuredContent: { ok: boolean; data: { results: unknown[] } } })
          .structuredContent;
      assert.equal(found.ok, true);
      // Nothing in a refused batch ran.
      assert.deepEqual(found.data.results, []);
      assert.deepEqual(await snapshotLibrary(home, backend), before);
      closed = true;
      const { stderr } = await raw.close();
      assert.match(stderr, /batch of 4 messages refused/);
    } finally {
      if (!closed) await raw.close();
    }
  },
);

Deno.test("e2e stdio: a session that negotiated 2025-03-26 (which had batches) gets its batch run", async () => {
  const home = makeTempHome();
  const raw = spawnRawStdio(home);
  let closed = false;
  try {
    await raw.initialize("2025-03-26");
    await raw.send([
      call(1, "remember", { content: "batched fact", subject: "b", workspace: "w" }),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      call(2, "find", { workspace: "w" }),
    ]);
    const replies = await raw.nextReply() as Reply[];
    assert.deepEqual(replies.map((reply) => reply.id), [1, 2]);
    const [stored, found] = replies.map((reply) =>
      (reply.result as { structuredContent: { ok: boolean; data: Record<string, unknown> } })
        .structuredContent
    );
    assert.equal(stored.ok, true);
    // Members run in order: the find sees the fact the first member stored.
    assert.deepEqual(
      (found.data.results as { memory_id: string }[]).map((r) => r.memory_id),
      [stored.data.memory_id],
    );
    closed = true;
    await raw.close();
  } finally {
    if (!closed) await raw.close();
    home.cleanup();
  }
});
