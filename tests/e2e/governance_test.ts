import assert from "node:assert/strict";
import { onBothBackends, snapshotLibrary } from "../helpers/e2e_backends.ts";
import { makeTempHome, type ServerSession, startServer } from "../helpers/server.ts";

async function remember(server: ServerSession, data: Record<string, unknown>): Promise<number> {
  const response = await server.call("remember", { workspace: "acme", ...data });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response.data.memory_id;
}

onBothBackends(
  "locked and protected memories change only with authorization",
  async (home, backend) => {
    const server = await startServer(home);
    try {
      const locked = await remember(server, {
        content: "The user's preferred language is Portuguese.",
        subject: "language",
        source_type: "user_confirmed",
        authorized: true,
      });
      const protectedId = await remember(server, {
        content: "Release branches are cut on the 1st.",
        subject: "branching",
        protection_level: "protected",
      });
      const before = await snapshotLibrary(home, backend);
      const refused = await server.call("update", {
        memory_id: locked,
        old_text: "Portuguese",
        new_text: "Spanish",
      });
      assert.equal(refused.ok, true);
      assert.equal(refused.data.applied, false);
      assert.equal(refused.data.action_required, "ask_user_for_authorization");
      assert.match(refused.data.impact, /locked/);
      assert.match(refused.data.impact, /authorized: true/);
      const tagRefused = await server.call("update", {
        memory_id: protectedId,
        tags_only: true,
        add_tags: ["x"],
      });
      assert.equal(tagRefused.data.action_required, "ask_user_for_authorization");
      const unconfirmed = await server.call("remember", {
        content: "User wants weekly reports.",
        subject: "reports",
        workspace: "acme",
        source_type: "user_confirmed",
      });
      assert.equal(unconfirmed.data.action_required, "ask_user_for_authorization");
      assert.equal(await snapshotLibrary(home, backend), before, "refusals write nothing");

      const allowed = await server.call("update", {
        memory_id: locked,
        old_text: "Portuguese",
        new_text: "Spanish",
        authorized: true,
        reason: "user said so",
      });
      assert.deepEqual([allowed.ok, allowed.data.version], [true, 2]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "confirm, retire with supersede chain, expired view, history diff and audit",
  async (home) => {
    const server = await startServer(home);
    try {
      const old = await remember(server, {
        content: "The office is at 12 Baker Street.",
        subject: "office address",
        tags: ["office"],
      });
      const fresh = await remember(server, {
        content: "The office moved to 5 Main Road.",
        subject: "office address (new)",
        tags: ["office"],
      });

      const noConfirm = await server.call("confirm", { memory_id: fresh }, "memory_govern");
      assert.equal(noConfirm.data.action_required, "ask_user_for_authorization");
      const confirmed = await server.call(
        "confirm",
        { memory_id: fresh, authorized: true },
        "memory_govern",
      );
      assert.deepEqual([confirmed.data.source_type, confirmed.data.protection_level], [
        "user_confirmed",
        "locked",
      ]);

      const noReason = await server.call("retire", {
        memory_id: old,
        superseded_by: fresh,
        authorized: true,
      }, "memory_govern");
      assert.equal(noReason.ok, false);
      assert.equal(noReason.data.field, "reason");
      const retired = await server.call(
        "retire",
        { memory_id: old, superseded_by: fresh, reason: "office moved", authorized: true },
        "memory_govern",
      );
      assert.deepEqual([retired.data.status, retired.data.superseded_by], ["superseded", fresh]);

      const live = await server.call("find", { query: "office" });
      assert.deepEqual(live.data.results.map((r: { memory_id: number }) => r.memory_id), [fresh]);
      const expired = await server.callRaw(
        { view: "expired", data: { query: "office" } },
        "memory_review",
      );
      assert.deepEqual(expired.data.results.map((r: { memory_id: number }) => r.memory_id), [old]);
      assert.equal(expired.data.results[0].superseded_by, fresh);
      const read = await server.call("read", { memory_id: old });
      assert.equal(read.data.status, "superseded", "superseded memories stay readable");

      await server.call("update", {
        memory_id: fresh,
        old_text: "5 Main Road",
        new_text: "7 Main Road",
        authorized: true,
        reason: "typo",
        // A typo fix: the fact held all along, so no window closes (and no close is audited).
        previous_still_valid: true,
      });
      const history = await server.callRaw(
        { view: "history", data: { memory_id: fresh } },
        "memory_review",
      );
      assert.deepEqual(history.data.versions.map((v: { version: number }) => v.version), [1, 2]);
      assert.match(history.data.diff.unified, /^-The office moved to 5 Main Road\.$/m);
      assert.match(history.data.diff.unified, /^\+The office moved to 7 Main Road\.$/m);
      assert.equal(history.data.versions[0].reason, "typo");
      const absorbed = await server.callRaw(
        { view: "history", data: { memory_id: fresh } },
        "memory_review",
      );
      assert.deepEqual(absorbed.data.absorbed.map((a: { memory_id: number }) => a.memory_id), [
        old,
      ]);

      const audit = await server.callRaw({ view: "audit", data: {} }, "memory_review");
      const actions = audit.data.entries.map((e: { action: string }) => e.action);
      assert.deepEqual(actions.slice(0, 2), ["retire", "confirm"]);
      const retireEntry = audit.data.entries[0];
      assert.deepEqual([retireEntry.memory_id, retireEntry.reason, retireEntry.agent_id], [
        old,
        "office moved",
        "test-agent",
      ]);

      const overview = await server.callRaw({ view: "overview", data: {} }, "memory_review");
      assert.equal(overview.data.memories.by_status.superseded, 1);
      assert.equal(overview.data.memories.by_source_type.user_confirmed, 1);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "merge keeps the losers readable and cleanup never removes the current version",
  async (home) => {
    const server = await startServer(home);
    try {
      const a = await remember(server, { content: "CI runs on every push.", subject: "ci" });
      const b = await remember(server, {
        content: "CI runs for each push to any branch.",
        subject: "ci again",
      });
      const c = await remember(server, {
        content: "Continuous integration triggers on push.",
        subject: "ci third",
      });
      const ask = await server.call("merge_memories", {
        survivor_id: a,
        loser_ids: [b, c],
        reason: "duplicates",
      }, "memory_govern");
      assert.equal(ask.data.action_required, "ask_user_for_authorization");
      const merged = await server.call(
        "merge_memories",
        {
          survivor_id: a,
          loser_ids: [b, c],
          merged_content: "CI runs on every push to any branch.",
          reason: "duplicates",
          authorized: true,
        },
        "memory_govern",
      );
      assert.deepEqual([merged.data.version, merged.data.merged_ids], [2, [b, c]]);
      for (const loser of [b, c]) {
        const read = await server.call("read", { memory_id: loser });
        assert.deepEqual([read.data.status, read.data.superseded_by], ["superseded", a]);
      }
      const survivor = await server.call("read", { memory_id: a });
      assert.deepEqual(survivor.data.metadata.merged_from, [b, c]);

      const current = await server.repair("cleanup_history", {
        memory_id: a,
        versions: [2],
        authorized: true,
      });
      assert.equal(current.ok, false);
      assert.match(current.data.reason, /current version/);
      const ask2 = await server.repair("cleanup_history", { memory_id: a, versions: [1] });
      assert.equal(ask2.data.action_required, "ask_user_for_authorization");
      const cleaned = await server.repair("cleanup_history", {
        memory_id: a,
        versions: [1],
        authorized: true,
      });
      assert.deepEqual(cleaned.data.removed_versions, [1]);
      const history = await server.callRaw(
        { view: "history", data: { memory_id: a } },
        "memory_review",
      );
      assert.deepEqual(history.data.versions.map((v: { version: number }) => v.version), [2]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "linked open items, closing a todo without a history row, and version conflicts",
  async (home) => {
    const server = await startServer(home);
    try {
      const fact = await remember(server, {
        content: "The billing API uses Stripe webhooks.",
        subject: "billing webhooks",
        tags: ["billing", "api"],
      });
      const todo = await remember(server, {
        content: "Rotate the payment signing secret.",
        subject: "rotate secret",
        tags: ["todo", "billing"],
      });
      await remember(server, {
        content: "Buy milk.",
        subject: "groceries",
        tags: ["todo", "home"],
      });
      const page = await server.call("find", { query: "webhooks" });
      assert.equal(page.data.results[0].memory_id, fact);
      assert.deepEqual(page.data.linked_open_items.map((i: { memory_id: number }) => i.memory_id), [
        todo,
      ]);
      assert.deepEqual(page.data.linked_open_items[0].shared_tags, ["billing"]);

      const closed = await server.call("update", {
        memory_id: todo,
        tags_only: true,
        remove_tags: ["todo"],
      });
      assert.equal(closed.data.version, 1);
      const history = await server.callRaw(
        { view: "history", data: { memory_id: todo } },
        "memory_review",
      );
      assert.equal(history.data.versions.length, 1);
      const after = await server.call("find", { query: "webhooks" });
      assert.equal(after.data.linked_open_items, undefined);

      await server.call("update", {
        memory_id: fact,
        new_content: "The billing API uses Stripe webhooks v2.",
        expected_version: 1,
      });
      const stale = await server.call("update", {
        memory_id: fact,
        new_content: "stale writer",
        expected_version: 1,
      });
      assert.equal(stale.data.error, "version_conflict");
      assert.equal(stale.data.current_version, 2);
    } finally {
      await server.close();
    }
  },
);

Deno.test("e2e: the agent_onboarding prompt and help topics explain storage, trust and the gate", async () => {
  const home = makeTempHome();
  const server = await startServer(home);
  try {
    const prompts = await server.client.listPrompts();
    assert.deepEqual(prompts.prompts.map((p) => p.name), ["agent_onboarding"]);
    const prompt = await server.client.getPrompt({ name: "agent_onboarding" });
    const text = (prompt.messages[0].content as { text: string }).text;
    assert.match(text, /What to store/);
    assert.match(text, /ask_user_for_authorization/);
    const trust = await server.call("help", { topic: "trust" });
    assert.match(trust.data.text, /user_confirmed/);
    const gate = await server.call("help", { topic: "authorization" });
    assert.match(gate.data.text, /authorized: true/);
  } finally {
    await server.close();
    home.cleanup();
  }
});
