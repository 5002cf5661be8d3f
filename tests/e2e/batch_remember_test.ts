import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

onBothBackends(
  "e2e: batch_remember stores many facts in one call, linked in order",
  async (home) => {
    const server = await startServer(home);
    try {
      const stored = await server.call("batch_remember", {
        items: [
          {
            content: "Alice: we ship the billing release on Friday.",
            subject: "standup",
            workspace: "team",
          },
          {
            content: "Bob: then QA needs the build by Thursday noon.",
            subject: "standup",
            workspace: "team",
            follows_item: 0,
          },
          {
            content: "Alice: we ship the billing release on Friday.",
            subject: "again",
            workspace: "team",
          },
        ],
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      const results = stored.data.results as {
        index: number;
        memory_id: number;
        duplicate_replay?: boolean;
      }[];
      assert.equal(results.length, 3);
      assert.equal(stored.data.stored, 2);
      assert.equal(stored.data.duplicates, 1);
      assert.equal(results[2].memory_id, results[0].memory_id, "the same content is stored once");
      assert.equal(results[2].duplicate_replay, true);

      const second = await server.call("read", { memory_id: results[1].memory_id });
      assert.equal(second.data.content, "Bob: then QA needs the build by Thursday noon.");
      assert.equal(second.data.follows, results[0].memory_id, "follows_item linked the sequence");

      const found = await server.call("find", { query: "QA build Thursday", workspace: "team" });
      assert.equal(found.data.results[0].memory_id, results[1].memory_id);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends(
  "e2e: one bad fact fails batch_remember, names it, and stores nothing",
  async (home) => {
    const server = await startServer(home);
    try {
      const bad = await server.call("batch_remember", {
        items: [
          { content: "A good fact about the deploy window.", subject: "ok", workspace: "w" },
          { content: "Another good fact about the on-call rota.", subject: "ok", workspace: "w" },
          { content: "   ", subject: "empty", workspace: "w" },
        ],
      });
      assert.equal(bad.ok, false);
      assert.equal(bad.data.error, "invalid_input");
      assert.equal(bad.data.field, "items.2.content");
      const forward = await server.call("batch_remember", {
        items: [{
          content: "Fact one of a sequence.",
          subject: "s",
          workspace: "w",
          follows_item: 0,
        }],
      });
      assert.equal(forward.ok, false);
      assert.equal(forward.data.field, "items.0.follows_item");
      const browse = await server.call("find", { workspace: "w" });
      assert.equal(browse.data.results.length, 0, "nothing of the failed calls was stored");
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);
