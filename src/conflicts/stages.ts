/**
 * The detection stages a process runs: the rule stage always, the NLI judge when `judge_model`
 * names an installed manifest model, and neighbours by meaning when an embedding model is set
 * up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultStages } from "./stages.ts";
 *
 * // No judge and no vectors: the rules alone decide which pairs conflict.
 * const stages = defaultStages();
 * assert.equal(typeof stages.assess, "function");
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import { JudgeHandle } from "./judge_state.ts";
import { assessPair } from "./rules.ts";
import type { DetectionStages, VectorNeighbours } from "./detect.ts";
import type { PairJudge } from "./types.ts";

/** The rule stage, plus a judge and neighbours by meaning when they are given. */
export function defaultStages(
  options: { judge?: PairJudge; vectors?: VectorNeighbours } = {},
): DetectionStages {
  // A judge handle that is not usable (off, not installed) is no judge: the rules decide.
  const judge = options.judge instanceof JudgeHandle && !options.judge.usable
    ? undefined
    : options.judge;
  return { assess: assessPair, judge, vectors: options.vectors };
}

/**
 * The configured NLI judge (loaded on first use) with its state; `usable` is false when none is
 * configured or it cannot be used, and its state says why on every response.
 */
export function openJudge(config: MemaConfig): JudgeHandle {
  return new JudgeHandle(config);
}
