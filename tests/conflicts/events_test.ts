import assert from "node:assert/strict";
import { detectConflicts } from "../../src/conflicts/detect.ts";
import { addToGroups, groupValues, sameStatedValue } from "../../src/conflicts/events.ts";
import { judgeConflict } from "../../src/conflicts/workflow.ts";
import { purgeMemories } from "../../src/govern/purge.ts";
import { retireMemory } from "../../src/govern/lifecycle.ts";
import { assessPair } from "../../src/conflicts/rules.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

Deno.test("value groups: units are normalized, text compares without case or punctuation", () => {
  assert.ok(sameStatedValue("3 days", "72 hours"));
  assert.ok(sameStatedValue("1 GB", "1024 MB"));
  assert.ok(sameStatedValue("$20", "20 USD"));
  assert.ok(!sameStatedValue("3 days", "5 days"));
  assert.ok(!sameStatedValue("50%", "5%"));
  assert.ok(sameStatedValue("LaunchDarkly", "launchdarkly."));
  assert.ok(!sameStatedValue("PostgreSQL 16", "PostgreSQL 15"));
  const groups = groupValues([
    { memoryId: 1, value: "3 days" },
    { memoryId: 2, value: "5 days" },
    { memoryId: 3, value: "72 hours" },
  ]);
  assert.deepEqual(groups.map((g) => [g.value, g.memory_ids, g.variants, g.normalized]), [
    ["3 days", [1, 3], ["3 days", "72 hours"], "259200 s"],
    ["5 days", [2], ["5 days"], "432000 s"],
  ]);
  // A member that changes its value moves to the other group.
  const moved = addToGroups(groups, 2, "three days".replace("three", "3"));
  assert.deepEqual(moved.map((g) => g.memory_ids), [[1, 3, 2]]);
});

async function store(t: TestContext, content: string, subject = "log retention") {
  const result = await rememberMemory(t.ctx, { content, subject, workspace: "acme" });
  await detectConflicts(t.ctx, result.memoryId, { assess: assessPair });
  return result.memoryId;
}

Deno.test("events: a third conflicting fact joins the open event, in its value's group", async () => {
  const t = await openTestContext();
  try {
    const a = await store(t, "Application logs are retained for 3 days.");
    const b = await store(t, "Application logs are retained for 5 days.");
    const c = await store(t, "Application logs are retained for 72 hours.");
    const { rows } = await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    );
    assert.equal(rows.length, 1, JSON.stringify(rows.map((r) => r.valueGroups)));
    const [event] = rows;
    assert.deepEqual(event.members.map((m) => m.memory_id).sort(), [a, b, c].sort());
    assert.deepEqual(
      event.valueGroups.map((g) => [g.memory_ids.sort(), g.normalized]).sort(),
      [[[a, c].sort(), "259200 s"], [[b], "432000 s"]].sort(),
    );
    // Running the check again (the scan, a retried job) changes nothing.
    await detectConflicts(t.ctx, c, { assess: assessPair });
    const again = await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    );
    assert.equal(again.rows.length, 1);
    assert.equal(again.rows[0].revision, event.revision);
  } finally {
    t.cleanup();
  }
});

Deno.test("judge apply: one call corrects the stale member and resolves; find ranks the holder first", async () => {
  const t = await openTestContext();
  try {
    const old = await store(
      t,
      "Feature flags are managed in LaunchDarkly. The flag review happens every quarter.",
      "feature flags",
    );
    const fresh = await store(t, "Feature flags are managed in Unleash.", "feature flags");
    const [event] = (await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    )).rows;
    assert.ok(event, "the pair was detected");
    const result = await judgeConflict(t.ctx, {
      conflictId: event.id,
      expectedRevision: event.revision,
      decidedBy: "agent",
      apply: true,
      authorized: true,
    });
    assert.equal(result.status, "resolved", JSON.stringify(result));
    assert.equal(result.chosenValue, "Unleash");
    assert.deepEqual(
      result.plan.map((s) => [s.memory_id, s.action, s.status]).sort(),
      [[old, "update_current_claim", "done"], [fresh, "use_as_resolution", "done"]].sort(),
    );
    const corrected = (await t.store.read(async () =>
      await t.store.getMemory(old)
    ))!;
    assert.equal(
      corrected.content,
      "Feature flags are managed in Unleash. The flag review happens every quarter.",
    );
    assert.deepEqual(result.staleMemoryIds, []);
  } finally {
    t.cleanup();
  }
});

Deno.test("judge apply: without authorization nothing is written", async () => {
  const t = await openTestContext();
  try {
    await store(t, "The deploy window is Tuesday.", "deploys");
    await store(t, "The deploy window is Friday.", "deploys");
    const [event] = (await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    )).rows;
    await assert.rejects(
      judgeConflict(t.ctx, {
        conflictId: event.id,
        expectedRevision: event.revision,
        decidedBy: "agent",
        apply: true,
      }),
      /runs its plan/,
    );
    const after = (await t.store.read(async () =>
      await t.store.conflicts.get(event.id)
    ))!;
    assert.equal(after.status, "open");
    assert.equal(after.revision, event.revision);
  } finally {
    t.cleanup();
  }
});

Deno.test("resolved loser kept as history ranks below the holder of the chosen value", async () => {
  const t = await openTestContext();
  try {
    const old = await store(t, "Application logs are retained for 5 days.");
    const fresh = await store(t, "Application logs are retained for 3 days.");
    const [event] = (await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    )).rows;
    const before = (await t.store.read(async () =>
      await findMemories(t.ctx, { query: "logs retained 5 days", limit: 10 })
    )).items.map((item) =>
      item.memory.id
    );
    assert.deepEqual(before, [old, fresh], "the question is worded like the old fact");
    const result = await judgeConflict(t.ctx, {
      conflictId: event.id,
      expectedRevision: event.revision,
      decidedBy: "agent",
      preserveHistory: true,
      apply: true,
      authorized: true,
    });
    assert.equal(result.status, "resolved");
    assert.deepEqual(result.staleMemoryIds, [old]);
    const page = await t.store.read(async () =>
      await findMemories(t.ctx, { query: "logs retained 5 days", limit: 10 })
    );
    assert.deepEqual(page.items.map((item) => item.memory.id), [fresh, old]);
  } finally {
    t.cleanup();
  }
});

Deno.test("purge: a member of a resolved event (keyed pairs, a replaced claim) is purged cleanly", async () => {
  const t = await openTestContext();
  try {
    const a = await store(t, "Application logs are retained for 3 days.");
    const b = await store(t, "Application logs are retained for 5 days.");
    const c = await store(t, "Application logs are retained for 72 hours.");
    const [event] = (await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    )).rows;
    const judged = await judgeConflict(t.ctx, {
      conflictId: event.id,
      expectedRevision: event.revision,
      chosenValue: "3 days",
      decidedBy: "agent",
      apply: true,
      authorized: true,
    });
    assert.deepEqual(judged.staleMemoryIds, [b]);
    await purgeMemories(t.ctx, { memoryId: c, reason: "test", authorized: true });
    const after = (await t.store.read(async () =>
      await t.store.conflicts.get(event.id)
    ))!;
    assert.deepEqual(after.valueGroups.map((g) => [g.memory_ids, g.variants]).sort(), [
      [[a], ["3 days"]],
      [[b], ["5 days"]],
    ]);
    assert.equal(after.chosenValue, "3 days");
    await purgeMemories(t.ctx, { memoryId: b, reason: "test", authorized: true });
    assert.equal(
      (await t.store.read(async () => await t.store.conflicts.staleClaimsOf([b]))).size,
      0,
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("judge apply: a member retired since detection is left as history, not edited", async () => {
  const t = await openTestContext();
  try {
    const a = await store(
      t,
      "The deploy window is Tuesday. Rollbacks need two approvals.",
      "deploys",
    );
    const b = await store(t, "The deploy window is Friday.", "deploys");
    const c = await store(t, "The deploy window is Monday.", "deploys");
    const [event] = (await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    )).rows;
    assert.deepEqual(
      event.members.map((m) =>
        m.memory_id
      ).sort(),
      [a, b, c].sort(),
    );
    await retireMemory(t.ctx, { memoryId: b, reason: "wrong", authorized: true });
    const result = await judgeConflict(t.ctx, {
      conflictId: event.id,
      expectedRevision: event.revision,
      chosenValue: "Monday",
      decidedBy: "agent",
      apply: true,
      authorized: true,
    });
    assert.equal(result.status, "resolved", JSON.stringify(result));
    const actions = Object.fromEntries(result.plan.map((s) => [s.memory_id, s.action]));
    assert.deepEqual(actions, {
      [a]: "update_current_claim",
      [b]: "preserve_historical_record",
      [c]: "use_as_resolution",
    });
    assert.equal((await t.store.read(async () => await t.store.getMemory(b)))!.version, 1);
    assert.equal(
      (await t.store.read(async () => await t.store.getMemory(a)))!.content,
      "The deploy window is Monday. Rollbacks need two approvals.",
    );
    assert.deepEqual(result.staleMemoryIds, []);
  } finally {
    t.cleanup();
  }
});
