import assert from "node:assert/strict";
import { onBothBackends, snapshotLibrary } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

const MiB = 1024 * 1024;

onBothBackends(
  "every bad input gets a clear error and leaves the database unchanged",
  async (home, backend) => {
    const server = await startServer(home);
    try {
      const seed = await server.call("remember", {
        content: "alpha beta alpha gamma",
        subject: "seed",
        workspace: "w",
      });
      const id = seed.data.memory_id;
      const before = await snapshotLibrary(home, backend);

      const cases: {
        args: Record<string, unknown>;
        error: string;
        field?: string;
        didYouMean?: string;
      }[] = [
        {
          args: { action: "rememberr", data: {} },
          error: "unknown_action",
          field: "action",
          didYouMean: "remember",
        },
        { args: { data: {} }, error: "invalid_input", field: "action" },
        { args: { action: "remember", data: "content" }, error: "invalid_input", field: "data" },
        {
          args: { action: "remember", data: { content: "x", subject: "s" } },
          error: "invalid_input",
          field: "workspace",
        },
        {
          args: { action: "remember", data: { content: 42, subject: "s", workspace: "w" } },
          error: "invalid_input",
          field: "content",
        },
        {
          args: {
            action: "remember",
            data: { content: "x", subject: "s", workspace: "w", tags: "a,b" },
          },
          error: "invalid_input",
          field: "tags",
        },
        {
          args: {
            action: "remember",
            data: { content: "x", subject: "s", workspace: "w", confidence: 2 },
          },
          error: "invalid_input",
          field: "confidence",
        },
        {
          args: {
            action: "remember",
            data: { content: "x", subject: "s", workspace: "w", source_type: "gossip" },
          },
          error: "invalid_input",
          field: "source_type",
        },
        {
          args: {
            action: "remember",
            data: { content: "x", subject: "s", workspace: "w", event_time: "yesterday" },
          },
          error: "invalid_input",
          field: "event_time",
        },
        {
          args: {
            action: "remember",
            data: { content: "x", subject: "s", workspace: "w", subjct: "typo" },
          },
          error: "invalid_input",
          field: "subjct",
          didYouMean: "subject",
        },
        {
          args: {
            action: "remember",
            data: { content: "x".repeat(2 * MiB + 1), subject: "s", workspace: "w" },
          },
          error: "resource_limit_exceeded",
          field: "content",
        },
        {
          args: {
            action: "remember",
            data: { content: "x", subject: "s", workspace: "w", agent_id: "mallory" },
          },
          error: "identity_mismatch",
          field: "agent_id",
        },
        {
          args: {
            action: "remember",
            data: { content: "c", subject: "s", workspace: "w", follows: 0 },
          },
          error: "invalid_input",
          field: "follows",
        },
        {
          args: {
            action: "remember",
            data: { content: "c", subject: "s", workspace: "w", follows: 987654 },
          },
          error: "not_found",
          field: "follows",
        },
        {
          args: {
            action: "remember",
            data: { content: "c", subject: "s", workspace: "elsewhere", follows: id },
          },
          error: "invalid_input",
          field: "follows",
        },
        { args: { action: "find", data: { limit: 101 } }, error: "invalid_input", field: "limit" },
        { args: { action: "find", data: { limit: "5" } }, error: "invalid_input", field: "limit" },
        { args: { action: "find", data: { offset: -1 } }, error: "invalid_input", field: "offset" },
        {
          args: { action: "batch_find", data: { queries: [] } },
          error: "invalid_input",
          field: "queries",
        },
        {
          args: { action: "batch_find", data: { queries: Array(9).fill("q") } },
          error: "invalid_input",
          field: "queries",
        },
        {
          args: { action: "read", data: { memory_id: id, span: { start: 5, end: 2 } } },
          error: "invalid_input",
          field: "span",
        },
        {
          args: { action: "read", data: { memory_id: id, span: { start: 0, end: 1000 } } },
          error: "invalid_input",
          field: "span.end",
        },
        {
          args: { action: "read", data: { memory_id: 12345 } },
          error: "not_found",
          field: "memory_id",
        },
        {
          args: { action: "read", data: { memoryId: id } },
          error: "invalid_input",
          field: "memoryId",
          didYouMean: "memory_id",
        },
        {
          args: {
            action: "batch_read",
            data: { memory_ids: Array.from({ length: 11 }, (_, i) => i + 1) },
          },
          error: "resource_limit_exceeded",
          field: "memory_ids",
        },
        {
          args: {
            action: "update",
            data: { memory_id: id, new_content: "x", expected_version: 7 },
          },
          error: "version_conflict",
          field: "expected_version",
        },
        {
          args: {
            action: "update",
            data: { memory_id: id, new_content: "x", expected_content_hash: "a".repeat(64) },
          },
          error: "version_conflict",
          field: "expected_content_hash",
        },
        {
          args: { action: "update", data: { memory_id: id, old_text: "alpha", new_text: "x" } },
          error: "invalid_input",
          field: "old_text",
        },
        {
          args: { action: "update", data: { memory_id: id, old_text: "delta", new_text: "x" } },
          error: "invalid_input",
          field: "old_text",
        },
        {
          args: { action: "update", data: { memory_id: id, old_text: "beta" } },
          error: "invalid_input",
          field: "new_text",
        },
        {
          args: {
            action: "update",
            data: { memory_id: id, new_content: "x", patches: [{ old_text: "a", new_text: "b" }] },
          },
          error: "invalid_input",
        },
        {
          args: {
            action: "update",
            data: {
              memory_id: id,
              patches: [{ old_text: "beta", new_text: "B" }, { old_text: "zeta", new_text: "Z" }],
            },
          },
          error: "invalid_input",
          field: "patches.1.old_text",
        },
        { args: { action: "update", data: { memory_id: id } }, error: "invalid_input" },
        {
          args: { action: "update", data: { memory_id: id, add_tags: ["x"] } },
          error: "invalid_input",
          field: "add_tags",
        },
        {
          args: { action: "update", data: { memory_id: id, new_content: "y".repeat(2 * MiB + 1) } },
          error: "resource_limit_exceeded",
          field: "new_content",
        },
        {
          args: { action: "help", data: { topic: "remembre" } },
          error: "invalid_input",
          field: "topic",
          didYouMean: "remember",
        },
      ];
      for (const { args, error, field, didYouMean } of cases) {
        const label = JSON.stringify(args).slice(0, 120);
        const response = await server.callRaw(args);
        assert.equal(response.ok, false, label);
        assert.equal(response.isError, true, label);
        assert.equal(response.data.error, error, `${label}: ${JSON.stringify(response.data)}`);
        assert.equal(typeof response.data.reason, "string", label);
        if (field !== undefined) {
          assert.equal(response.data.field, field, `${label}: ${response.data.reason}`);
        }
        if (didYouMean !== undefined) assert.equal(response.data.did_you_mean, didYouMean, label);
      }
      const oversized = await server.callRaw(cases[10].args);
      assert.equal(oversized.data.max_bytes, 2 * MiB);
      assert.equal(oversized.data.actual_bytes, 2 * MiB + 1);

      const unknownTool = await server.callRaw({ action: "status" }, "memories");
      assert.equal(unknownTool.ok, false);
      assert.equal(unknownTool.data.did_you_mean, "memory");

      assert.equal(await snapshotLibrary(home, backend), before);
      const alive = await server.call("status");
      assert.equal(alive.ok, true);
    } finally {
      await server.close();
    }
  },
);

onBothBackends("an unknown field is ignored with a warning, not an error", async (home) => {
  const server = await startServer(home);
  try {
    const response = await server.call("remember", {
      content: "Lunch is at noon.",
      subject: "lunch",
      workspace: "default",
      mood: "hungry",
    });
    assert.equal(response.ok, true);
    assert.ok(response.warnings.includes("unknown field ignored: mood"));
  } finally {
    await server.close();
  }
});
