import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

onBothBackends(
  "e2e: remember → find → read span → update → history, over stdio MCP",
  async (home) => {
    const server = await startServer(home);
    try {
      const tools = await server.client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name), [
        "memory",
        "memory_review",
        "memory_govern",
        "memory_repair",
      ]);

      const content =
        "# Deploys\nProduction deploys run on Tuesdays after 14:00 UTC.\nRollbacks need two approvals.";
      const remembered = await server.call("remember", {
        content,
        subject: "deploy policy",
        workspace: "Billing_Service",
        tags: ["deploy", "ops"],
        event_time: "2025-01-10T09:00:00+01:00",
      });
      assert.equal(remembered.ok, true);
      assert.equal(remembered.mode, "lexical");
      assert.equal(remembered.degraded, false);
      assert.ok(remembered.warnings.some((w) => /semantic recall is off/.test(w)));
      const id = remembered.data.memory_id;
      assert.equal(typeof id, "number");
      assert.equal(remembered.data.version, 1);
      assert.equal(remembered.data.workspace, "billing-service");

      const replay = await server.call("remember", {
        content,
        subject: "again",
        workspace: "billing service",
      });
      assert.deepEqual([replay.data.memory_id, replay.data.duplicate_replay], [id, true]);
      // The standing notice was told with the first answer of this connection; not again.
      assert.equal(replay.degraded, false);
      assert.deepEqual(replay.warnings, []);

      const query = { query: "when do production deploys run", workspace: "billing-service" };
      const found = await server.call("find", query);
      assert.equal(found.ok, true);
      assert.deepEqual(found.warnings, []);
      // Lean by default: what the agent needs, nothing null, empty or at its default.
      assert.deepEqual(found.data, {
        results: [{
          memory_id: id,
          subject: "deploy policy",
          tags: ["deploy", "ops"],
          event_time: "2025-01-10T08:00:00.000Z",
          content,
        }],
        has_more: false,
      });
      // include_size (and content_mode full) keep every field and the size block.
      const whole = await server.call("find", { ...query, include_size: true });
      const hit = whole.data.results[0];
      assert.equal(hit.memory_id, id);
      for (
        const key of [
          "subject",
          "tags",
          "workspace",
          "source_type",
          "status",
          "version",
          "score",
          "event_time",
          "ingest_time",
          "content_chars",
        ]
      ) {
        assert.ok(key in hit, `result has ${key}`);
      }
      assert.equal(hit.event_time, "2025-01-10T08:00:00.000Z");
      assert.equal(whole.data.has_more, false);
      assert.equal(whole.data.total_estimate, 1);
      assert.equal(whole.data.size.returned_count, 1);
      assert.ok(whole.data.size.tokens_estimate > 0);
      const fullMode = await server.call("find", { ...query, content_mode: "full" });
      assert.deepEqual(
        fullMode.data.results.map((r: { score: number }) => ({ ...r, score: 0 })),
        whole.data.results.map((r: { score: number }) => ({ ...r, score: 0 })),
      );
      assert.equal(fullMode.data.size.returned_count, 1);

      const start = content.indexOf("Production");
      const end = content.indexOf("\n", start);
      const span = await server.call("read", { memory_id: id, span: { start, end } });
      assert.equal(span.data.content, "Production deploys run on Tuesdays after 14:00 UTC.");
      assert.deepEqual(span.data.span, { start, end, total_chars: content.length });

      const updated = await server.call("update", {
        memory_id: id,
        old_text: "Tuesdays",
        new_text: "Wednesdays",
        reason: "release train moved",
        expected_version: 1,
        expected_content_hash: hit.content_hash,
      });
      assert.deepEqual([updated.ok, updated.data.version], [true, 2]);

      const full = await server.call("read", { memory_id: id, include_history: true });
      assert.match(full.data.content, /Wednesdays/);
      assert.equal(full.data.version, 2);
      assert.equal(full.data.history.length, 1);
      assert.equal(full.data.history[0].version, 1);
      assert.match(full.data.history[0].content, /Tuesdays/);
      assert.equal(full.data.history[0].reason, "release train moved");
      assert.equal(full.data.history[0].replaced_by_agent, "test-agent");
      assert.equal(full.data.agent_id, "test-agent");
      assert.equal(full.data.client, "test-client");

      const refind = await server.call("find", { query: "Wednesdays", content_mode: "full" });
      assert.equal(refind.data.results[0].content, full.data.content);
      assert.equal((await server.call("find", { query: "Tuesdays" })).data.results.length, 0);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends("e2e: batch_find, batch_read, tags_only, status and help", async (home) => {
  const server = await startServer(home);
  try {
    const ids: number[] = [];
    for (
      const [content, subject, tags] of [
        ["The staging database is PostgreSQL 16.", "staging db", ["db"]],
        ["Write the Q3 release notes.", "release notes", ["todo", "release"]],
        ["Ada prefers dark mode in every editor.", "editor theme", ["prefs"]],
      ] as const
    ) {
      ids.push(
        (await server.call("remember", { content, subject, workspace: "default", tags })).data
          .memory_id,
      );
    }
    const batch = await server.call("batch_find", {
      queries: ["staging database", { id: "notes", query: "release notes" }],
      limit_per_query: 2,
    });
    assert.equal(batch.ok, true);
    const byId = new Map(batch.data.results.map((r: { memory_id: number }) => [r.memory_id, r]));
    assert.deepEqual((byId.get(ids[0]) as { matched_queries: string[] }).matched_queries, ["q1"]);
    assert.deepEqual((byId.get(ids[1]) as { matched_queries: string[] }).matched_queries, [
      "notes",
    ]);
    assert.equal(batch.data.per_query.length, 2);

    const read = await server.call("batch_read", {
      memory_ids: [ids[0], 999, ids[2]],
      spans: { [ids[2]]: { start: 0, end: 3 } },
    });
    assert.equal(read.data.memories[0].content, "The staging database is PostgreSQL 16.");
    assert.equal(read.data.memories[1].error, "not_found");
    assert.equal(read.data.memories[2].content, "Ada");
    assert.deepEqual(read.data.missing, [999]);

    const closed = await server.call("update", {
      memory_id: ids[1],
      tags_only: true,
      remove_tags: ["todo"],
      add_tags: ["done"],
    });
    assert.deepEqual([closed.data.version, closed.data.tags], [1, ["release", "done"]]);
    const history = await server.call("read", { memory_id: ids[1], include_history: true });
    assert.equal(history.data.history.length, 0);

    const status = await server.call("status");
    assert.equal(status.data.memories.active, 3);
    assert.equal(status.data.capabilities.fts, true);
    if (home.env.MEMA_DB_URL === undefined) {
      assert.equal(status.data.capabilities.sqlite_vec.loaded, true);
    } else {
      assert.equal(status.data.backend.kind, "postgresql", "vectors need no extension there");
    }
    assert.deepEqual(status.data.identity, { client: "test-client", agent_id: "test-agent" });

    const help = await server.call("help");
    assert.deepEqual(Object.keys(help.data.actions), [
      "remember",
      "batch_remember",
      "find",
      "batch_find",
      "read",
      "batch_read",
      "update",
      "judge",
      "extract",
      "status",
      "help",
    ]);
    assert.equal(help.data.actions.remember.schema.type, "object");
    // workspace is optional: the caller's own workspace when the server has one.
    assert.deepEqual(help.data.actions.remember.schema.required.sort(), ["content", "subject"]);
    assert.equal(help.data.actions.update.example.action, "update");
  } finally {
    await server.close();
    home.cleanup();
  }
});

onBothBackends(
  "e2e: turns stored with follows: the answer is recalled through its question",
  async (home) => {
    const server = await startServer(home);
    try {
      const question = await server.call("remember", {
        content: "Caroline: Where did you go camping last summer?",
        subject: "chat",
        workspace: "friends",
      });
      const answer = await server.call("remember", {
        content: "Melanie: Up near Lake Tahoe, by the water. The kids swam every day.",
        subject: "chat",
        workspace: "friends",
        follows: question.data.memory_id,
      });
      assert.equal(answer.ok, true, JSON.stringify(answer.data));
      const found = await server.call("find", {
        query: "where did they go camping",
        workspace: "friends",
      });
      const ids = found.data.results.map((r: { memory_id: number }) => r.memory_id);
      assert.deepEqual(ids, [question.data.memory_id, answer.data.memory_id]);
      const carried = found.data.results[1];
      assert.equal(carried.follows, question.data.memory_id);
      assert.equal(carried.ranked_by_follows, question.data.memory_id);
      const read = await server.call("read", { memory_id: answer.data.memory_id });
      assert.equal(read.data.follows, question.data.memory_id);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);
