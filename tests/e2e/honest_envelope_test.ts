/**
 * Answers that say what they mean, over the real MCP client: `degraded` only when something the
 * configuration asks for is unavailable, and one naming style (snake_case) in every key of every
 * view and answer.
 * @module
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { makeTempHome, type ServerSession, startServer } from "../helpers/server.ts";

onBothBackends(
  "lexical recall chosen by default is not degraded; a configured model missing is",
  async (home) => {
    const server = await startServer(home);
    try {
      const stored = await server.call("remember", {
        content: "The staging API listens on port 8080.",
        subject: "staging api",
        workspace: "acme",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      assert.equal(stored.mode, "lexical");
      assert.equal(stored.degraded, false);
      // The choice is still said once, with how to turn meaning on.
      assert.ok(
        stored.warnings.some((w) => /semantic recall is off/.test(w)),
        stored.warnings[0],
      );
      for (
        const answer of [
          await server.call("find", { query: "staging port" }),
          await server.call("status"),
        ]
      ) {
        assert.equal(answer.mode, "lexical");
        assert.equal(answer.degraded, false);
      }
      const overview = await server.callRaw({ view: "overview" }, "memory_review");
      assert.equal(overview.data.capabilities.degraded, false);
    } finally {
      await server.close();
    }
    // A model the configuration names but that is not installed: that is degraded.
    const wanting = await startServer(home, {
      env: { MEMA_EMBEDDING_MODEL: "multilingual-e5-small", MEMA_MODELS_DIR: `${home.dir}/none` },
    });
    try {
      const found = await wanting.call("find", { query: "staging port" });
      assert.equal(found.mode, "lexical");
      assert.equal(found.degraded, true);
      assert.ok(
        found.warnings.some((w) => /semantic recall is unavailable/.test(w)),
        found.warnings.join("; "),
      );
    } finally {
      await wanting.close();
    }
  },
);

/** Every key of a JSON value that is not snake_case (lower case, digits, underscores). */
function camelKeys(value: unknown, path = "", found: string[] = []): string[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => camelKeys(item, `${path}[${index}]`, found));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (/[A-Z]/.test(key)) found.push(`${path}.${key}`);
      camelKeys(item, `${path}.${key}`, found);
    }
  }
  return found;
}

async function answers(server: ServerSession, conflictId: number, memoryId: number) {
  const review = (view: string, data: unknown = {}) =>
    server.callRaw({ view, data }, "memory_review");
  return {
    status: await server.call("status"),
    find: await server.call("find", { query: "staging database", include_size: true }),
    find_hits: await server.call("find", { query: "staging database", content_mode: "hits" }),
    read: await server.call("read", { memory_id: memoryId, include_history: true }),
    batch_read: await server.call("batch_read", { memory_ids: [memoryId] }),
    batch_find: await server.call("batch_find", { queries: [{ query: "postgres" }] }),
    overview: await review("overview"),
    history: await review("history", { memory_id: memoryId }),
    expired: await review("expired", {}),
    audit: await review("audit", {}),
    conflicts: await review("conflicts", { status: "all" }),
    conflict_detail: await review("conflict_detail", { conflict_id: conflictId }),
    workspaces: await review("workspaces", {}),
    export: await review("export", { format: "jsonl" }),
    scan_pipeline: await server.repair("scan_pipeline", { action: "kick" }),
    scan_queue: await server.repair("scan_queue", { action: "page" }),
    scan_duplicates: await server.repair("scan_duplicates", {}),
    semantic_control: await server.repair("semantic_control", { action: "status" }),
    notices: await server.repair("notice", { action: "list" }),
  };
}

onBothBackends("every view and answer names its keys in snake_case", async (home) => {
  // The write waits for its conflict check, so the conflict exists when the views are read.
  const server = await startServer(home, { env: { MEMA_NOTICE_SYNC_WAIT_MS: "3000" } });
  try {
    const first = await server.call("remember", {
      content: "The staging database runs PostgreSQL 15.",
      subject: "staging database",
      workspace: "acme",
    });
    const second = await server.call("remember", {
      content: "The staging database was upgraded to PostgreSQL 16.",
      subject: "staging database",
      workspace: "acme",
    });
    const notice = second.notices?.[0] as { conflict_id: number } | undefined;
    assert.ok(notice, JSON.stringify(second));
    const all = await answers(server, notice.conflict_id, first.data.memory_id);
    const wrong: string[] = [];
    for (const [name, answer] of Object.entries(all)) {
      // isError is the MCP result's own flag, added beside the envelope by the test helper.
      const { isError: _, ...envelope } = answer as typeof answer & { isError?: boolean };
      assert.equal(envelope.ok, true, `${name}: ${JSON.stringify(envelope.data)}`);
      wrong.push(...camelKeys(envelope).map((key) => `${name}${key}`));
    }
    assert.deepEqual(wrong, []);
  } finally {
    await server.close();
  }
});

Deno.test("e2e: tools/list names every verb with its required fields in under 5,000 characters", async () => {
  const home = makeTempHome();
  const server = await startServer(home);
  try {
    const listed = await server.client.listTools();
    // Every agent session pays for this text; `help` carries the rest (was 7,230 characters).
    assert.ok(
      JSON.stringify(listed).length <= 5_000,
      `${JSON.stringify(listed).length} characters`,
    );
    for (const tool of listed.tools) {
      const schema = tool.inputSchema as {
        required: string[];
        properties: Record<string, { enum: string[] }>;
      };
      for (const verb of schema.properties[schema.required[0]].enum) {
        assert.match(tool.description ?? "", new RegExp(`\\b${verb}\\b`), `${tool.name} ${verb}`);
      }
      const help = await server.callRaw({ [schema.required[0]]: "help" }, tool.name);
      assert.equal(help.ok, true, tool.name);
    }
  } finally {
    await server.close();
    home.cleanup();
  }
});
