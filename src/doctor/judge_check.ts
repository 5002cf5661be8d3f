/**
 * Doctor's check of the conflict judge: not configured (info: the rule stage decides alone),
 * ready (info, installed and its labels readable), or configured but unusable (warning, with
 * why and the fix). The weights are not loaded: doctor stays fast.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { judgeFindings } from "./judge_check.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * assert.equal(judgeFindings({ modelsDir: dir })[0].check_id, "judge.model");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import { inspectJudge } from "../conflicts/judge_state.ts";
import type { Finding } from "./mod.ts";

/** One finding about the configured judge. */
export function judgeFindings(
  config: Pick<MemaConfig, "judgeModel" | "manifestPath" | "modelsDir">,
): Finding[] {
  const report = inspectJudge(config);
  if (report.state === "off") {
    return [{
      check_id: "judge.model",
      severity: "info",
      title: "no conflict judge configured",
      detail: report.detail ?? "",
      fix_hint:
        "`mema setup --install --model mdeberta-v3-base-xnli` adds an NLI judge (about 340 MB)",
    }];
  }
  if (report.state === "unavailable") {
    return [{
      check_id: "judge.model",
      severity: "warning",
      title: `the conflict judge ${report.modelId} cannot be used`,
      detail: report.warning ?? "",
      fix_hint: report.fix,
    }];
  }
  return [{
    check_id: "judge.model",
    severity: "info",
    title: `conflict judge ${report.modelId}`,
    detail: report.detail ?? "",
  }];
}
