/**
 * The NLI judge on the committed random-weight fixture `tests/fixtures/models/tiny-nli/`
 * (BERT, id2label 0 contradiction, 1 entailment, 2 neutral): loading, batching, the softmax,
 * threshold mapping, mapping labels by name, and clear errors for a bad model directory. The
 * fixture's verdicts mean nothing; only the plumbing is checked.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createJudge, type JudgeVerdict, verdictFor } from "../../src/conflicts/judge.ts";
import { isMemaError, MemaError } from "../../src/errors/mod.ts";

const NLI_DIR = fileURLToPath(new URL("../fixtures/models/tiny-nli", import.meta.url));
const PAIRS = [
  { a: "I live in Berlin.", b: "I moved to Paris in 2021." },
  { a: "The meeting is on Friday.", b: "The meeting is on Friday." },
  { a: "We use Jenkins for CI.", b: "We switched to GitHub Actions." },
];
const MODEL_ID = "tiny-nli";

function sum(verdict: JudgeVerdict): number {
  const { contradiction, entailment, neutral } = verdict.probabilities;
  return contradiction + entailment + neutral;
}

async function withJudge<T>(
  options: Partial<Parameters<typeof createJudge>[0]>,
  use: (judge: ReturnType<typeof createJudge>) => Promise<T>,
): Promise<T> {
  const judge = createJudge({
    modelDir: NLI_DIR,
    modelId: MODEL_ID,
    thresholds: { conflict: 0.8, possible: 0.5 },
    ...options,
  });
  try {
    return await use(judge);
  } finally {
    await judge.unload();
  }
}

/** A copy of the fixture with `id2label` rewritten (weights untouched: this only relabels). */
async function fixtureCopy(id2label: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "mema-nli-" });
  await Deno.mkdir(`${dir}/onnx`);
  for await (const entry of Deno.readDir(NLI_DIR)) {
    if (entry.isFile) await Deno.copyFile(`${NLI_DIR}/${entry.name}`, `${dir}/${entry.name}`);
  }
  await Deno.copyFile(`${NLI_DIR}/onnx/model.onnx`, `${dir}/onnx/model.onnx`);
  const config = JSON.parse(await Deno.readTextFile(`${dir}/config.json`));
  config.id2label = id2label;
  config.label2id = Object.fromEntries(Object.entries(id2label).map(([i, name]) => [name, +i]));
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(config));
  return dir;
}

async function rejects(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isMemaError(error), `not a MemaError: ${error}`);
    assert.equal(error.code, code);
    assert.match(error.reason, pattern);
    return true;
  });
}

Deno.test("judge: a batch gives one verdict per pair with three probabilities summing to 1", async () => {
  await withJudge({ batchSize: 2 }, async (judge) => {
    const verdicts = await judge.judge(PAIRS);
    assert.equal(verdicts.length, PAIRS.length);
    for (const verdict of verdicts) {
      assert.deepEqual(Object.keys(verdict.probabilities).sort(), [
        "contradiction",
        "entailment",
        "neutral",
      ]);
      assert.ok(Math.abs(sum(verdict) - 1) < 1e-6, `sum ${sum(verdict)}`);
      assert.ok(Object.values(verdict.probabilities).every((p) => p > 0 && p < 1));
      assert.equal(verdict.modelId, MODEL_ID);
      assert.deepEqual(verdict.thresholds, { conflict: 0.8, possible: 0.5 });
      assert.equal(
        verdict.verdict,
        verdictFor(verdict.probabilities.contradiction, verdict.thresholds),
      );
    }
    assert.deepEqual(await judge.judge([]), []);
  });
});

Deno.test("judge: one direction matches the PyTorch reference; both ways keeps the max", async () => {
  const reference = JSON.parse(await Deno.readTextFile(`${NLI_DIR}/fixture_reference.json`));
  const pairs = (reference.pairs as [string, string][]).map(([a, b]) => ({ a, b }));
  const expected = reference.probabilities as number[][];
  const forward = await withJudge({ bothDirections: false }, (judge) => judge.judge(pairs));
  forward.forEach((verdict, i) => {
    // Fixture order: 0 contradiction, 1 entailment, 2 neutral.
    assert.ok(Math.abs(verdict.probabilities.contradiction - expected[i][0]) < 1e-4);
    assert.ok(Math.abs(verdict.probabilities.entailment - expected[i][1]) < 1e-4);
    assert.ok(Math.abs(verdict.probabilities.neutral - expected[i][2]) < 1e-4);
  });
  const swapped = await withJudge(
    { bothDirections: false },
    (judge) => judge.judge(pairs.map(({ a, b }) => ({ a: b, b: a }))),
  );
  const both = await withJudge({ bothDirections: true }, (judge) => judge.judge(pairs));
  both.forEach((verdict, i) => {
    const best = Math.max(
      forward[i].probabilities.contradiction,
      swapped[i].probabilities.contradiction,
    );
    assert.ok(Math.abs(verdict.probabilities.contradiction - best) < 1e-6);
    assert.ok(Math.abs(sum(verdict) - 1) < 1e-6);
  });
});

Deno.test("judge: verdicts follow the thresholds", async () => {
  const verdictsWith = (conflict: number, possible: number) =>
    withJudge({ thresholds: { conflict, possible } }, (judge) => judge.judge(PAIRS));
  for (const v of await verdictsWith(0, 0)) assert.equal(v.verdict, "conflict");
  for (const v of await verdictsWith(1, 0)) assert.equal(v.verdict, "possible_conflict");
  for (const v of await verdictsWith(1, 1)) assert.equal(v.verdict, "no_conflict");
  assert.equal(verdictFor(0.8, { conflict: 0.8, possible: 0.5 }), "conflict");
  assert.equal(verdictFor(0.79, { conflict: 0.8, possible: 0.5 }), "possible_conflict");
  assert.equal(verdictFor(0.49, { conflict: 0.8, possible: 0.5 }), "no_conflict");
});

Deno.test("judge: labels are mapped by id2label name, not by index", async () => {
  const original = await withJudge({ bothDirections: false }, (judge) => judge.judge(PAIRS));
  // Same weights, names permuted: output 0 is now called "neutral", 1 "contradiction",
  // 2 "entailment", so each probability must move to its new name.
  const dir = await fixtureCopy({ "0": "neutral", "1": "contradiction", "2": "entailment" });
  try {
    const relabelled = await withJudge(
      { modelDir: dir, bothDirections: false },
      (judge) => judge.judge(PAIRS),
    );
    relabelled.forEach((verdict, i) => {
      const before = original[i].probabilities;
      assert.ok(Math.abs(verdict.probabilities.neutral - before.contradiction) < 1e-6);
      assert.ok(Math.abs(verdict.probabilities.contradiction - before.entailment) < 1e-6);
      assert.ok(Math.abs(verdict.probabilities.entailment - before.neutral) < 1e-6);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judge: custom label names map through the labels option, case-insensitively", async () => {
  const dir = await fixtureCopy({ "0": "CONTRADICTION", "1": "ENTAILMENT", "2": "NEUTRAL" });
  try {
    const verdicts = await withJudge({ modelDir: dir }, (judge) => judge.judge(PAIRS));
    assert.equal(verdicts.length, PAIRS.length);
    const custom = await fixtureCopy({ "0": "clash", "1": "agrees", "2": "unrelated" });
    try {
      const labels = {
        clash: "conflict",
        agrees: "no_conflict",
        unrelated: "possible_conflict",
      } as const;
      const mapped = await withJudge({ modelDir: custom, labels }, (judge) => judge.judge(PAIRS));
      mapped.forEach((v, i) => assert.deepEqual(v.probabilities, verdicts[i].probabilities));
      await rejects(
        withJudge({ modelDir: custom }, (judge) => judge.judge(PAIRS)),
        "config_invalid",
        /label "clash" has no verdict/,
      );
    } finally {
      await Deno.remove(custom, { recursive: true });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judge: a config without all three roles is refused before loading", async () => {
  const dir = await fixtureCopy({ "0": "contradiction", "1": "entailment", "2": "entailment" });
  try {
    await rejects(
      withJudge({ modelDir: dir }, (judge) => judge.judge(PAIRS)),
      "config_invalid",
      /two labels map to no_conflict/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judge: a missing or broken model directory is a clear MemaError", async () => {
  const missing = await Deno.makeTempDir({ prefix: "mema-nli-missing-" });
  try {
    await rejects(
      withJudge({ modelDir: `${missing}/nothing` }, (judge) => judge.judge(PAIRS)),
      "not_found",
      /no judge model/,
    );
    // config.json present, weights absent: fails at load, still a MemaError.
    await Deno.copyFile(`${NLI_DIR}/config.json`, `${missing}/config.json`);
    await rejects(
      withJudge({ modelDir: missing }, (judge) => judge.judge(PAIRS)),
      "config_invalid",
      /could not load the judge model/,
    );
    await Deno.writeTextFile(`${missing}/config.json`, "{not json");
    await rejects(
      withJudge({ modelDir: missing }, (judge) => judge.judge(PAIRS)),
      "config_invalid",
      /not JSON/,
    );
  } finally {
    await Deno.remove(missing, { recursive: true });
  }
});

Deno.test("judge: bad options fail at creation", () => {
  const base = { modelDir: NLI_DIR, modelId: MODEL_ID };
  assert.throws(() => createJudge({ ...base, modelDir: "models/tiny" }), MemaError);
  assert.throws(
    () => createJudge({ ...base, thresholds: { conflict: 0.4, possible: 0.6 } }),
    /possible ≤ conflict/,
  );
  assert.throws(() => createJudge({ ...base, batchSize: 0 }), /batchSize/);
  assert.throws(
    () => createJudge({ ...base, labels: { contradiction: "maybe" as "conflict" } }),
    /unknown verdict/,
  );
});

Deno.test("judge: long pairs are truncated to maxLength instead of failing", async () => {
  const long = "the old man walked to the river and sat down near the water ".repeat(30);
  const verdicts = await withJudge(
    { maxLength: 64 },
    (judge) => judge.judge([{ a: long, b: long }]),
  );
  assert.ok(Math.abs(sum(verdicts[0]) - 1) < 1e-6);
});
