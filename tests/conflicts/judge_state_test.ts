/**
 * The judge's state as status and doctor see it, and what happens when an installed judge
 * cannot be loaded: the state turns unavailable with the error and the rules decide.
 */
import assert from "node:assert/strict";
import { inspectJudge, JudgeHandle } from "../../src/conflicts/judge_state.ts";

const FIXTURE = new URL("../fixtures/models/tiny-nli", import.meta.url).pathname;
const FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];

/** A models dir holding the tiny NLI fixture as an installed model, and a manifest naming it. */
function installFixture(): { modelsDir: string; manifestPath: string; cleanup(): void } {
  const dir = Deno.makeTempDirSync({ prefix: "mema-judge-state-" });
  const modelsDir = `${dir}/models`;
  const model = {
    id: "tiny-nli",
    task: "nli",
    description: "random-weight NLI fixture",
    license: "MIT",
    labels: [
      { name: "contradiction", verdict: "conflict" },
      { name: "entailment", verdict: "no_conflict" },
      { name: "neutral", verdict: "possible_conflict" },
    ],
    files: FILES.map((path) => ({
      path,
      url: `http://127.0.0.1:9/${path}`,
      size: null,
      sha256: null,
      no_sha256_reason: "test fixture",
    })),
  };
  Deno.mkdirSync(`${modelsDir}/tiny-nli/onnx`, { recursive: true });
  for (const path of FILES) {
    Deno.copyFileSync(`${FIXTURE}/${path}`, `${modelsDir}/tiny-nli/${path}`);
  }
  Deno.writeTextFileSync(
    `${modelsDir}/tiny-nli/installed.json`,
    JSON.stringify({
      schema_version: 1,
      id: "tiny-nli",
      installed_at: new Date().toISOString(),
      files: FILES.map((path) => ({ path, size: 0, sha256: "0".repeat(64) })),
      model,
    }),
  );
  const manifestPath = `${dir}/manifest.json`;
  Deno.writeTextFileSync(manifestPath, JSON.stringify({ schema_version: 1, models: [model] }));
  return { modelsDir, manifestPath, cleanup: () => Deno.removeSync(dir, { recursive: true }) };
}

Deno.test("judge state: off, unknown, not an NLI model, not installed", () => {
  assert.equal(inspectJudge({ modelsDir: "/nonexistent" }).state, "off");
  const unknown = inspectJudge({ modelsDir: "/nonexistent", judgeModel: "no-such-model" });
  assert.equal(unknown.state, "unavailable");
  assert.match(unknown.fix ?? "", /NLI model id/);
  const embedding = inspectJudge({ modelsDir: "/nonexistent", judgeModel: "static-wink-100d" });
  assert.match(embedding.warning ?? "", /not an NLI model/);
  const missing = inspectJudge({ modelsDir: "/nonexistent", judgeModel: "mdeberta-v3-base-xnli" });
  assert.match(missing.warning ?? "", /not installed/);
});

Deno.test("judge state: an installed judge is ready; one that fails to load turns unavailable", async () => {
  const home = installFixture();
  try {
    const config = { ...home, judgeModel: "tiny-nli" };
    assert.equal(inspectJudge(config).state, "ready");
    // A file gone missing after install is said before any load.
    Deno.removeSync(`${home.modelsDir}/tiny-nli/tokenizer.json`);
    assert.match(inspectJudge(config).warning ?? "", /files missing.*tokenizer\.json/);
    Deno.copyFileSync(`${FIXTURE}/tokenizer.json`, `${home.modelsDir}/tiny-nli/tokenizer.json`);

    // Weights that cannot be loaded: the handle answers no verdicts and says why.
    Deno.writeTextFileSync(`${home.modelsDir}/tiny-nli/onnx/model.onnx`, "not an onnx file");
    const handle = new JudgeHandle(config);
    assert.equal(handle.usable, true);
    assert.deepEqual(await handle.judge([{ a: "It rains.", b: "It does not rain." }]), []);
    const report = handle.describe();
    assert.equal(report.state, "unavailable");
    assert.match(report.warning ?? "", /failed to load or run/);
    assert.equal(handle.usable, false);
  } finally {
    home.cleanup();
  }
});
