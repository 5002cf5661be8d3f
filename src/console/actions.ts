/**
 * The console's state-changing requests. Each one validates its form, checks the workspace in
 * view, calls the same service an agent's tool calls (with `authorized: true`: the person at the
 * keyboard is the user), and answers with where to go next.
 * @module
 */
import { PLAN_ACTIONS, type PlanAction } from "../conflicts/resolution_plan.ts";
import {
  applyConflictAction,
  judgeConflict,
  replanConflict,
  resolveConflict,
} from "../conflicts/workflow.ts";
import { scanQueueSubmit } from "../conflicts/scan.ts";
import { MemaError } from "../errors/mod.ts";
import { confirmMemory, retireMemory } from "../govern/lifecycle.ts";
import { purgeMemories } from "../govern/purge.ts";
import { readMemory } from "../memory/read.ts";
import { conflictDetail } from "../views/conflicts.ts";
import type { ConsoleScope } from "./scope.ts";
import { checkInScope } from "./workspace.ts";

/** Where the browser goes after a change, and the message it shows there. */
export interface ActionOutcome {
  location: string;
  done: DoneCode;
}

/** The messages an action can leave (fixed texts: a link cannot make the console say anything). */
export const DONE_MESSAGES = {
  confirmed: "Memory confirmed: it is user-confirmed and locked now.",
  retired: "Memory retired: it left default recall and stays readable here.",
  purged: "Memory purged.",
  judged: "Conflict judged: apply the plan's steps below.",
  not_a_conflict: "Conflict closed: not a conflict.",
  applied: "Step applied.",
  step_failed: "The step failed and was recorded in the plan: replan it.",
  replanned: "Plan replaced.",
  resolved: "Conflict resolved.",
  item_confirmed: "Pair confirmed: it is a conflict to judge now.",
  item_dismissed: "Pair dismissed: it will not be asked about again.",
  item_other: "The pair was already decided or changed since the scan.",
} as const;

/** One of {@linkcode DONE_MESSAGES}' keys. */
export type DoneCode = keyof typeof DONE_MESSAGES;

function positiveInt(form: URLSearchParams, field: string, required = true): number | undefined {
  const text = form.get(field)?.trim() ?? "";
  if (text === "") {
    if (!required) return undefined;
    throw new MemaError("invalid_input", `${field} is required`, { field });
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new MemaError("invalid_input", `${field} must be a positive whole number`, { field });
  }
  return value;
}

function text(form: URLSearchParams, field: string): string | undefined {
  const value = form.get(field);
  return value === null || value.trim() === "" ? undefined : value;
}

async function memoryInScope(scope: ConsoleScope, memoryId: number): Promise<void> {
  const { memory } = await readMemory(scope.ctx, { memoryId });
  checkInScope(scope, memory.workspaceCanonical, `memory ${memoryId}`);
}

async function conflictInScope(scope: ConsoleScope, conflictId: number): Promise<void> {
  const { group } = await conflictDetail(scope.ctx, conflictId);
  checkInScope(scope, group.workspaceCanonical, `conflict ${conflictId}`);
}

/** Routes one POST; undefined when the path is no action. */
export async function runAction(
  scope: ConsoleScope,
  path: string,
  form: URLSearchParams,
): Promise<ActionOutcome | undefined> {
  const memoryAction = /^\/memories\/(\d+)\/(confirm|retire|purge)$/.exec(path);
  if (memoryAction) {
    const memoryId = Number(memoryAction[1]);
    await memoryInScope(scope, memoryId);
    const back = `/memories/${memoryId}`;
    switch (memoryAction[2]) {
      case "confirm":
        await confirmMemory(scope.ctx, {
          memoryId,
          reason: text(form, "reason"),
          authorized: true,
        });
        return { location: back, done: "confirmed" };
      case "retire":
        await retireMemory(scope.ctx, {
          memoryId,
          supersededBy: positiveInt(form, "superseded_by", false),
          reason: text(form, "reason"),
          authorized: true,
        });
        return { location: back, done: "retired" };
      default:
        await purgeMemories(scope.ctx, {
          memoryId,
          reason: text(form, "reason"),
          authorized: true,
        });
        return { location: "/memories", done: "purged" };
    }
  }
  const conflictAction = /^\/conflicts\/(\d+)\/(judge|apply|replan|resolve)$/.exec(path);
  if (conflictAction) {
    const conflictId = Number(conflictAction[1]);
    await conflictInScope(scope, conflictId);
    const expectedRevision = positiveInt(form, "expected_revision")!;
    const back = `/conflicts/${conflictId}`;
    switch (conflictAction[2]) {
      case "judge": {
        const verdict = form.get("verdict") === "not_a_conflict" ? "not_a_conflict" : "conflict";
        const chosen = verdict === "conflict"
          ? text(form, "choice") ?? text(form, "custom_value")
          : undefined;
        if (verdict === "conflict" && chosen === undefined) {
          throw new MemaError("invalid_input", "choose the current value or type one", {
            field: "custom_value",
          });
        }
        const apply = verdict === "conflict" && form.get("apply") === "1";
        const judged = await judgeConflict(scope.ctx, {
          conflictId,
          expectedRevision,
          verdict,
          chosenValue: chosen,
          decidedBy: "user",
          reason: text(form, "reason"),
          preserveHistory: verdict === "conflict" && form.get("preserve_history") === "1",
          apply,
          authorized: true,
        });
        const done: DoneCode = verdict === "not_a_conflict"
          ? "not_a_conflict"
          : !apply
          ? "judged"
          : judged.error
          ? "step_failed"
          : "resolved";
        return { location: back, done };
      }
      case "apply": {
        const result = await applyConflictAction(scope.ctx, {
          conflictId,
          expectedRevision,
          memoryId: positiveInt(form, "memory_id")!,
          // Empty: the service puts the chosen value in place of the member's own.
          content: text(form, "content"),
          authorized: true,
        });
        return { location: back, done: result.error ? "step_failed" : "applied" };
      }
      case "replan": {
        const applyPlan: { memory_id: number; action: PlanAction }[] = [];
        for (const [key, value] of form) {
          const step = /^step_(\d+)$/.exec(key);
          if (!step) continue;
          if (!(PLAN_ACTIONS as readonly string[]).includes(value)) {
            throw new MemaError("invalid_input", `unknown plan action "${value}"`, { field: key });
          }
          applyPlan.push({ memory_id: Number(step[1]), action: value as PlanAction });
        }
        if (applyPlan.length === 0) {
          throw new MemaError("invalid_input", "the plan needs at least one step", {
            field: "step",
          });
        }
        await replanConflict(scope.ctx, {
          conflictId,
          expectedRevision,
          applyPlan,
          authorized: true,
        });
        return { location: back, done: "replanned" };
      }
      default:
        await resolveConflict(scope.ctx, { conflictId, expectedRevision, authorized: true });
        return { location: back, done: "resolved" };
    }
  }
  if (path === "/scan-queue/decide") {
    const itemId = positiveInt(form, "item_id")!;
    const status = form.get("status");
    if (status !== "confirmed" && status !== "dismissed") {
      throw new MemaError("invalid_input", "status must be confirmed or dismissed", {
        field: "status",
      });
    }
    const result = await scanQueueSubmit(scope.ctx, {
      decisions: [{ itemId, status, reason: "decided in the console" }],
    });
    const first = (result.outcomes as { outcome?: string; conflict_id?: number | null }[])[0];
    const outcome = first?.outcome;
    return {
      location: outcome === "confirmed" && typeof first.conflict_id === "number"
        ? `/conflicts/${first.conflict_id}`
        : "/scan-queue",
      done: outcome === "dismissed"
        ? "item_dismissed"
        : outcome === "confirmed"
        ? "item_confirmed"
        : "item_other",
    };
  }
  return undefined;
}
