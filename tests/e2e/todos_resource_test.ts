/**
 * `memory://todos` through the real server: listed by `resources/list`, named by the onboarding
 * prompt, and read as open todos then the ones an agent just completed by removing the tag.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

onBothBackends(
  "memory://todos lists open todos, then the ones completed this week",
  async (home) => {
    const server = await startServer(home, { env: { MEMA_WORKSPACE: "alpha" } });
    try {
      const open = await server.call("remember", {
        content: "Write the migration guide for 2.0.",
        subject: "docs todo",
        tags: ["todo", "docs"],
      });
      const done = await server.call("remember", {
        content: "Tag the 1.9 release.",
        subject: "release todo",
        tags: ["todo"],
      });
      assert.equal(done.ok, true, JSON.stringify(done.data));
      const completed = await server.call("update", {
        memory_id: done.data.memory_id,
        tags_only: true,
        remove_tags: ["todo"],
      });
      assert.equal(completed.ok, true, JSON.stringify(completed.data));

      const listed = await server.client.listResources();
      assert.ok(listed.resources.some((r) => r.uri === "memory://todos"));
      const prompt = await server.client.getPrompt({ name: "agent_onboarding" });
      assert.match(JSON.stringify(prompt.messages), /memory:\/\/todos/);

      const read = await server.client.readResource({ uri: "memory://todos" });
      const content = read.contents[0] as { text: string; _meta: Record<string, unknown> };
      const openAt = content.text.indexOf(`[${open.data.memory_id}]`);
      const doneAt = content.text.indexOf(`[${done.data.memory_id}]`);
      assert.ok(openAt > 0 && doneAt > openAt, content.text);
      assert.match(content.text, /Completed in the last 7 days/);
      assert.equal(content._meta.pending, 1);
      assert.equal(content._meta.completed, 1);
      await assert.rejects(() => server.client.readResource({ uri: "memory://todos?tokens=3" }));
    } finally {
      await server.close();
    }
  },
);
