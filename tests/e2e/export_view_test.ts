import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { parseFrontmatter } from "../../src/portability/frontmatter.ts";
import { startServer } from "../helpers/server.ts";

onBothBackends(
  "memory_review export pages the facts in force as files, bounded in count and size",
  async (home) => {
    const server = await startServer(home);
    try {
      const items = Array.from({ length: 25 }, (_, i) => ({
        subject: `fact ${i}`,
        content: `Service ${i} listens on port ${8000 + i}.`,
        workspace: "infra",
        tags: ["ports"],
      }));
      const stored = await server.call("batch_remember", { items });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      await server.call("remember", {
        subject: "elsewhere",
        content: "Not infra.",
        workspace: "w2",
      });

      const view = (data: unknown) => server.callRaw({ view: "export", data }, "memory_review");
      const first = await view({ workspace: "Infra", format: "md" });
      assert.equal(first.ok, true, JSON.stringify(first.data));
      assert.equal(first.data.items.length, 20);
      assert.equal(first.data.total, 25);
      assert.equal(first.data.has_more, true);
      const note = parseFrontmatter(first.data.items[0].text);
      assert.equal(note.fields.title, "fact 0");
      assert.equal(note.body, "Service 0 listens on port 8000.");
      assert.match(first.data.items[0].path, /^infra\/\d{8}-fact-0\.md$/);
      const second = await view({
        workspace: "infra",
        format: "md",
        cursor: first.data.next_cursor,
      });
      assert.equal(second.data.items.length, 5);
      assert.equal(second.data.has_more, false);
      assert.equal(second.data.next_cursor, null);

      // JSONL lines carry every field; a page stops at ~256k characters, never cutting a fact.
      const big = "x".repeat(200_000);
      await server.call("remember", { subject: "big one", content: `${big}1`, workspace: "bulk" });
      await server.call("remember", { subject: "big two", content: `${big}2`, workspace: "bulk" });
      const bulk = await view({ workspace: "bulk" });
      assert.equal(bulk.data.format, "jsonl");
      assert.equal(bulk.data.items.length, 1);
      assert.equal(JSON.parse(bulk.data.items[0].text).content, `${big}1`);
      assert.equal(bulk.data.has_more, true);
      const rest = await view({ workspace: "bulk", cursor: bulk.data.next_cursor });
      assert.equal(JSON.parse(rest.data.items[0].text).content, `${big}2`);
      assert.equal(rest.data.has_more, false);

      const bad = await view({ format: "pdf" });
      assert.equal(bad.ok, false);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends(
  "memory_review export under strict isolation exports only the caller's own workspace",
  async (home) => {
    const open = await startServer(home);
    try {
      await open.call("remember", {
        subject: "alpha fact",
        content: "Alpha ships Mondays.",
        workspace: "alpha",
      });
      await open.call("remember", {
        subject: "beta fact",
        content: "Beta ships Fridays.",
        workspace: "beta",
      });
      await open.call("remember", {
        subject: "global",
        content: "Everyone uses UTC.",
        workspace: "default",
      });
    } finally {
      await open.close();
    }
    const alpha = await startServer(home, {
      env: { MEMA_WORKSPACE_ISOLATION: "strict", MEMA_WORKSPACE: "alpha" },
    });
    try {
      const view = (data: unknown) => alpha.callRaw({ view: "export", data }, "memory_review");
      const own = await view({});
      assert.equal(own.ok, true, JSON.stringify(own.data));
      assert.deepEqual(
        own.data.items.map((item: { text: string }) => JSON.parse(item.text).subject),
        [
          "alpha fact",
        ],
      );
      const other = await view({ workspace: "beta" });
      assert.equal(other.ok, false);
      assert.match(other.data.reason, /only your own workspace/);
    } finally {
      await alpha.close();
      home.cleanup();
    }
  },
);
