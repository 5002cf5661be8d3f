/**
 * The conflict judge's state, as `status`, `doctor` and every envelope report it: off (no
 * `judge_model`), ready (installed; the model loads on first use), or unavailable (configured
 * but unknown, not an NLI model, not installed, files missing, or it failed to load) with the
 * reason and the fix. An unavailable judge never stops detection: the rule stage decides alone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inspectJudge } from "./judge_state.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * assert.equal(inspectJudge({ modelsDir: dir }).state, "off");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { readInstallRecord } from "../models/install.ts";
import { findModel, loadManifest, type ModelEntry } from "../models/manifest.ts";
import { logWarn } from "../platform/log.ts";
import { pathExists } from "../platform/paths.ts";
import { checkJudgeLabels, createJudge, type JudgeDtype, type JudgeVerdictName } from "./judge.ts";
import type { JudgeVerdictLike, PairJudge } from "./types.ts";

/** What the judge can do right now. */
export interface JudgeReport {
  state: "off" | "ready" | "unavailable";
  /** The configured `judge_model`. */
  modelId?: string;
  /** Why it is unavailable (shown as an envelope warning), or what it is when ready. */
  warning?: string;
  detail?: string;
  fix?: string;
}

type JudgeConfig = Pick<MemaConfig, "judgeModel" | "manifestPath" | "modelsDir">;

const RULES_ONLY = "conflicts are found by the rule stage alone";

/** Inspects the configured judge without loading its weights. */
export function inspectJudge(config: JudgeConfig): JudgeReport & { entry?: ModelEntry } {
  const modelId = config.judgeModel;
  if (!modelId) return { state: "off", detail: `no judge_model is configured: ${RULES_ONLY}` };
  const unavailable = (why: string, fix: string): JudgeReport => ({
    state: "unavailable",
    modelId,
    warning: `the conflict judge ${modelId} cannot be used (${why}): ${RULES_ONLY}`,
    fix,
  });
  const install = `run \`mema setup --install --model ${modelId}\`, or unset judge_model`;
  let entry: ModelEntry;
  try {
    entry = findModel(loadManifest(config.manifestPath), modelId);
  } catch (error) {
    return unavailable(
      error instanceof MemaError ? error.reason : String(error),
      "set judge_model to an NLI model id from models.manifest.json, or unset it",
    );
  }
  if (entry.task !== "nli") {
    return unavailable(`${modelId} is an ${entry.task} model, not an NLI model`, install);
  }
  const dir = `${config.modelsDir}/${entry.id}`;
  if (readInstallRecord(config.modelsDir, entry.id) === undefined) {
    return unavailable("it is not installed", install);
  }
  const missing = entry.files.filter((file) => !pathExists(`${dir}/${file.path}`));
  if (missing.length > 0) {
    return unavailable(
      `files missing in ${dir}: ${missing.map((f) => f.path).join(", ")}`,
      install,
    );
  }
  try {
    checkJudgeLabels(dir, labelsOf(entry));
  } catch (error) {
    return unavailable(error instanceof MemaError ? error.reason : String(error), install);
  }
  return {
    state: "ready",
    modelId,
    entry,
    detail: `installed in ${dir}; loads on the first pair it judges`,
  };
}

function labelsOf(entry: ModelEntry): Record<string, JudgeVerdictName> | undefined {
  return entry.labels && entry.labels.length > 0
    ? Object.fromEntries(entry.labels.map((label) => [label.name, label.verdict]))
    : undefined;
}

/**
 * The configured judge for a running server: a {@link PairJudge} when it is installed, and its
 * state for status and the envelope. A model that fails to load turns the state to unavailable
 * (with the error) and the pairs are decided by the rules, never by a crashed job.
 */
export class JudgeHandle implements PairJudge {
  #report: JudgeReport;
  readonly #judge?: PairJudge;

  constructor(config: JudgeConfig & Pick<MemaConfig, "judgeThresholds">) {
    const { entry, ...report } = inspectJudge(config);
    this.#report = report;
    if (report.warning) logWarn(report.warning);
    if (report.state === "ready" && entry) {
      this.#judge = createJudge({
        modelDir: `${config.modelsDir}/${entry.id}`,
        modelId: entry.id,
        labels: labelsOf(entry),
        thresholds: config.judgeThresholds,
        ...(entry.dtype ? { dtype: entry.dtype as JudgeDtype } : {}),
      });
    }
  }

  /** True while the judge can be asked. */
  get usable(): boolean {
    return this.#judge !== undefined && this.#report.state === "ready";
  }

  /** The state every response reports. */
  describe(): JudgeReport {
    return this.#report;
  }

  /** Verdicts, or none (the rules decide) when the model cannot be loaded or run. */
  async judge(pairs: { a: string; b: string }[]): Promise<JudgeVerdictLike[]> {
    if (!this.usable) return [];
    try {
      return await this.#judge!.judge(pairs);
    } catch (error) {
      const why = error instanceof MemaError ? error.reason : String(error);
      this.#report = {
        state: "unavailable",
        modelId: this.#report.modelId,
        warning:
          `the conflict judge ${this.#report.modelId} failed to load or run (${why}): ${RULES_ONLY}`,
        fix:
          `check the files with \`mema doctor\`; reinstall with \`mema setup --install --model ${this.#report.modelId}\``,
      };
      logWarn(this.#report.warning!);
      return [];
    }
  }
}
