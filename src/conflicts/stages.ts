/**
 * The detection stages a process runs: the rule stage always, the NLI judge
 * when `judge_model` names an installed manifest model.
 *
 * @example
 * ```ts
 * import { defaultStages } from "./src/conflicts/stages.ts";
 * const stages = defaultStages();
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import { logWarn } from "../platform/mod.ts";
import { findModel, loadManifest } from "../models/manifest.ts";
import { readInstallRecord } from "../models/install.ts";
import { createJudge } from "./judge.ts";
import { assessPair } from "./rules.ts";
import type { DetectionStages, VectorNeighbours } from "./detect.ts";
import type { PairJudge } from "./types.ts";

/** The rule stage, plus a judge and neighbours by meaning when they are given. */
export function defaultStages(
  options: { judge?: PairJudge; vectors?: VectorNeighbours } = {},
): DetectionStages {
  return { assess: assessPair, judge: options.judge, vectors: options.vectors };
}

/** Opens the configured NLI judge (lazily loaded on first use), or undefined with a warning. */
export function openJudge(config: MemaConfig): PairJudge | undefined {
  if (!config.judgeModel) return undefined;
  try {
    const entry = findModel(loadManifest(config.manifestPath), config.judgeModel);
    if (entry.task !== "nli") {
      logWarn(`judge_model ${entry.id} is not an NLI model; conflicts are found by rules only`);
      return undefined;
    }
    if (readInstallRecord(config.modelsDir, entry.id) === undefined) {
      logWarn(
        `judge model ${entry.id} is not installed; conflicts are found by rules only (run \`mema setup --install --model ${entry.id}\`)`,
      );
      return undefined;
    }
    const labels = Object.fromEntries((entry.labels ?? []).map((l) => [l.name, l.verdict]));
    return createJudge({
      modelDir: `${config.modelsDir}/${entry.id}`,
      modelId: entry.id,
      labels,
      thresholds: config.judgeThresholds,
    });
  } catch (error) {
    logWarn(`the judge model cannot be used (${error}); conflicts are found by rules only`);
    return undefined;
  }
}
