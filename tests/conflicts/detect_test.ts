/**
 * Write-time detection's candidates: neighbours by words and by meaning, and with a judge every
 * close neighbour is judged, not only the pairs the rule stage flags. The judge and the vector
 * index are stand-ins here (the judge's model is tested in judge_test.ts, the index in
 * tests/evidence); the store, the rules and the recording are the real ones.
 */
import assert from "node:assert/strict";
import {
  detectConflicts,
  type DetectionStages,
  type VectorNeighbours,
} from "../../src/conflicts/detect.ts";
import { assessPair } from "../../src/conflicts/rules.ts";
import type { JudgeVerdictLike, PairJudge } from "../../src/conflicts/types.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

/** A judge that answers `verdict` for every pair and remembers what it was asked. */
function fakeJudge(verdict: JudgeVerdictLike["verdict"]): PairJudge & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    judge(pairs) {
      asked.push(...pairs.map((pair) => [pair.a, pair.b]));
      return Promise.resolve(pairs.map(() => ({
        verdict,
        probabilities: { contradiction: verdict === "conflict" ? 0.95 : 0.02 },
        modelId: "fake-nli",
        thresholds: { conflict: 0.8, possible: 0.5 },
      })));
    },
  };
}

async function remember(t: TestContext, content: string, workspace = "acme"): Promise<number> {
  return (await rememberMemory(t.ctx, { content, subject: "notes", workspace })).memoryId;
}

async function openConflicts(t: TestContext): Promise<number[][]> {
  return (await t.store.read(async () =>
    await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
  ))
    .rows.map((row) => row.members.map((m) => m.memory_id).sort());
}

// The rules do not flag this pair (one row only adds detail), but the rows share most words.
const OLD = "The weekly newsletter is written by the marketing team.";
const NEW = "The weekly newsletter is written by the marketing team in Lisbon since the merger.";

Deno.test("with a judge, a close neighbour the rules let pass is judged and recorded", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const a = await remember(t, OLD);
    const b = await remember(t, NEW);
    assert.equal(assessPair({ text: OLD }, { text: NEW }).candidate, false);
    // Without a judge the rule stage decides: nothing is opened.
    await detectConflicts(t.ctx, b, { assess: assessPair });
    assert.deepEqual(await openConflicts(t), []);
    // A judge that sees no contradiction: still nothing, but it was asked.
    const calm = fakeJudge("no_conflict");
    await detectConflicts(t.ctx, b, { assess: assessPair, judge: calm });
    assert.deepEqual(calm.asked, [[NEW, OLD]]);
    assert.deepEqual(await openConflicts(t), []);
    // A judge that reads a contradiction opens the conflict.
    await detectConflicts(t.ctx, b, { assess: assessPair, judge: fakeJudge("conflict") });
    assert.deepEqual(await openConflicts(t), [[a, b].sort()]);
  } finally {
    t.cleanup();
  }
});

Deno.test("neighbours by meaning are compared even when they share no word", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const a = await remember(t, "Card payments are processed by Stripe.");
    const elsewhere = await remember(t, "Card payments are processed by Stripe.", "other");
    const b = await remember(t, "Adyen handles every checkout charge now.");
    const calls: { text: string; workspaces: string[] | undefined }[] = [];
    const vectors: VectorNeighbours = {
      near(text, workspaces) {
        calls.push({ text, workspaces });
        // The index would answer within the scope it is given.
        return Promise.resolve(
          [{ memoryId: a, similarity: 0.8 }, { memoryId: elsewhere, similarity: 0.8 }]
            .filter(({ memoryId }) => memoryId === a || workspaces === undefined),
        );
      },
    };
    const judge = fakeJudge("conflict");
    // Words alone find nothing to compare.
    await detectConflicts(t.ctx, b, { assess: assessPair, judge });
    assert.deepEqual(judge.asked, []);
    const stages: DetectionStages = { assess: assessPair, judge, vectors };
    await detectConflicts(t.ctx, b, stages);
    assert.deepEqual(calls.map((call) => call.workspaces), [["acme", "default"]]);
    assert.deepEqual(judge.asked, [[
      "Adyen handles every checkout charge now.",
      "Card payments are processed by Stripe.",
    ]]);
    assert.deepEqual(await openConflicts(t), [[a, b].sort()]);
  } finally {
    t.cleanup();
  }
});

Deno.test("a neighbour by meaning below the judge's similarity bar is not judged", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const a = await remember(t, "Card payments are processed by Stripe.");
    const b = await remember(t, "Adyen handles every checkout charge now.");
    const judge = fakeJudge("conflict");
    const vectors: VectorNeighbours = {
      near: () => Promise.resolve([{ memoryId: a, similarity: 0.1 }]),
    };
    await detectConflicts(t.ctx, b, { assess: assessPair, judge, vectors });
    assert.deepEqual(judge.asked, []);
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
});
