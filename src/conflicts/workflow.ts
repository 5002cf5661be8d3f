/**
 * The conflict workflow (docs/SPEC.md §8): `judge` pins a revision and records the
 * chosen value and a plan of per-member actions (open → applying);
 * `apply_conflict_action` runs one step; a failed step leaves the group
 * applying with `replan_conflict` as the way forward; `resolve_conflict`
 * closes it when every step is done. Every step is compare-and-set on the
 * revision, so two agents cannot act on a stale view. The suggested value and
 * the default plan come from `resolution_plan.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { openStore } from "../store/mod.ts";
 * import { detectConflicts } from "./detect.ts";
 * import { defaultStages } from "./stages.ts";
 * import { judgeConflict } from "./workflow.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * await rememberMemory(ctx, {
 *   content: "The Atlas deadline is Friday.",
 *   subject: "atlas deadline",
 *   workspace: "atlas",
 * });
 * const newer = await rememberMemory(ctx, {
 *   content: "The Atlas deadline moved to Monday.",
 *   subject: "atlas deadline",
 *   workspace: "atlas",
 * });
 * const [groupId] = (await detectConflicts(ctx, newer.memoryId, defaultStages())).recorded;
 * const group = (await store.conflicts.get(groupId))!;
 * const judged = await judgeConflict(ctx, {
 *   conflictId: groupId,
 *   expectedRevision: group.revision,
 *   chosenValue: "Monday",
 *   decidedBy: "user",
 *   authorized: true,
 * });
 * assert.equal(judged.status, "applying");
 * assert.equal(judged.chosenValue, "Monday");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { requireAuthorization } from "../core/authorization.ts";
import type { ServiceContext } from "../core/context.ts";
import { updateInTransaction } from "../memory/update.ts";
import { closedWindow } from "../memory/validity.ts";
import { nowIso } from "../platform/clock.ts";
import type { ConflictRecord, MemoryRecord, PlanStep } from "../store/mod.ts";
import {
  correctedContent,
  defaultPlan,
  holdsValue,
  type PlanAction,
  suggestResolution,
} from "./resolution_plan.ts";
import { conflictNotFound, conflictVisible } from "./visibility.ts";

async function loadGroup(ctx: ServiceContext, conflictId: number): Promise<ConflictRecord> {
  const group = await ctx.store.conflicts.get(conflictId);
  if (!group || !await conflictVisible(ctx, group)) throw conflictNotFound(conflictId);
  return group;
}

/** The group at the expected revision, which must be applying (plan steps in progress). */
async function loadApplying(
  ctx: ServiceContext,
  input: { conflictId: number; expectedRevision: number },
): Promise<ConflictRecord> {
  const group = await loadGroup(ctx, input.conflictId);
  checkRevision(group, input.expectedRevision);
  if (group.status !== "applying") {
    throw new MemaError("invalid_input", `conflict ${group.id} is ${group.status}, not applying`, {
      field: "conflict_id",
      hint: group.status === "open" ? "judge it first (memory judge)" : undefined,
    });
  }
  return group;
}

function checkRevision(group: ConflictRecord, expected: number): void {
  if (group.revision !== expected) {
    throw new MemaError(
      "version_conflict",
      `conflict ${group.id} is at revision ${group.revision}, not the expected ${expected}`,
      {
        field: "expected_revision",
        details: { current_revision: group.revision, status: group.status },
        hint: 'read it again with memory_review {"view": "conflict_detail"} and retry',
      },
    );
  }
}

async function commit(
  ctx: ServiceContext,
  group: ConflictRecord,
  change: Parameters<ServiceContext["store"]["conflicts"]["update"]>[2],
): Promise<number> {
  if (!await ctx.store.conflicts.update(group.id, group.revision, change)) {
    throw new MemaError("version_conflict", `conflict ${group.id} changed meanwhile`, {
      field: "expected_revision",
    });
  }
  return group.revision + 1;
}

async function audit(
  ctx: ServiceContext,
  action: string,
  group: ConflictRecord,
  detail: Record<string, unknown>,
  reason?: string,
): Promise<void> {
  await ctx.store.appendAudit({
    at: nowIso(),
    action,
    memoryId: null,
    agentId: ctx.caller.agentId,
    client: ctx.caller.client,
    reason: reason ?? null,
    detail: { conflict_id: group.id, ...detail },
  });
}

function checkPlan(
  group: ConflictRecord,
  plan: { memory_id: number; action: PlanAction }[],
  chosen: string,
): PlanStep[] {
  const memberIds = group.members.map((m) => m.memory_id);
  const seen = new Set<number>();
  plan.forEach((step, index) => {
    if (!memberIds.includes(step.memory_id)) {
      throw new MemaError(
        "invalid_input",
        `memory ${step.memory_id} is not a member of conflict ${group.id}`,
        {
          field: `apply_plan.${index}.memory_id`,
          hint: `members: ${memberIds.join(", ")}`,
        },
      );
    }
    if (seen.has(step.memory_id)) {
      throw new MemaError("invalid_input", `memory ${step.memory_id} appears twice in the plan`, {
        field: `apply_plan.${index}.memory_id`,
      });
    }
    seen.add(step.memory_id);
    if (step.action === "use_as_resolution") {
      if (!holdsValue(group, step.memory_id, chosen)) {
        throw new MemaError(
          "invalid_input",
          `memory ${step.memory_id} does not hold the chosen value, so it cannot be the resolution`,
          {
            field: `apply_plan.${index}.action`,
            hint: "use update_current_claim to make it hold the value",
          },
        );
      }
    }
  });
  const missing = memberIds.filter((id) => !seen.has(id));
  if (missing.length > 0) {
    throw new MemaError(
      "invalid_input",
      `the plan has no action for member(s) ${missing.join(", ")}`,
      {
        field: "apply_plan",
      },
    );
  }
  return plan.map((step) => ({
    memory_id: step.memory_id,
    action: step.action,
    status: "pending",
  }));
}

/** Input of `judge`. */
export interface JudgeInput {
  conflictId: number;
  expectedRevision: number;
  verdict?: "conflict" | "not_a_conflict";
  chosenValue?: string;
  decidedBy: "user" | "agent";
  ref?: string;
  reason?: string;
  applyPlan?: { memory_id: number; action: PlanAction }[];
  /** Keep the other members as history instead of correcting them (default plan only). */
  preserveHistory?: boolean;
  /** Run the plan and resolve in the same call (needs `authorized`). */
  apply?: boolean;
  authorized?: boolean;
}

/** What `judge` did. */
export interface JudgeResult {
  conflictId: number;
  revision: number;
  status: string;
  plan: PlanStep[];
  chosenValue: string | null;
  /** With `apply`: the step that failed (the group stays applying; replan it). */
  error?: string;
  actionRequired?: "replan_conflict";
  /** With `apply`: members left carrying the replaced claim (annotated or kept as history). */
  staleMemoryIds?: number[];
}

/**
 * Decides a conflict: a chosen value and a plan (→ applying), or not a conflict. With
 * `apply`, also runs every step and resolves (→ resolved) in the same call; a step that fails
 * leaves the group applying with `replan_conflict` as the way forward, as step by step.
 */
export async function judgeConflict(
  ctx: ServiceContext,
  input: JudgeInput,
): Promise<JudgeResult> {
  const judged = await decide(ctx, input);
  if (!input.apply || judged.status !== "applying") return judged;
  return await runPlan(ctx, judged);
}

/** Runs every pending step of a freshly judged plan, then resolves (already authorized). */
async function runPlan(ctx: ServiceContext, judged: JudgeResult): Promise<JudgeResult> {
  let revision = judged.revision;
  // The resolution first: the group names its resolution memory before others are corrected.
  const order = [...judged.plan].sort((a, b) =>
    Number(b.action === "use_as_resolution") - Number(a.action === "use_as_resolution")
  );
  for (const step of order) {
    const done = await applyConflictAction(ctx, {
      conflictId: judged.conflictId,
      expectedRevision: revision,
      memoryId: step.memory_id,
      authorized: true,
    });
    revision = done.revision;
    if (done.error !== undefined) {
      const group = await loadGroup(ctx, judged.conflictId);
      return {
        ...judged,
        revision,
        plan: group.plan,
        error: `memory ${step.memory_id} (${step.action}): ${done.error}`,
        actionRequired: "replan_conflict",
      };
    }
  }
  const resolved = await resolveConflict(ctx, {
    conflictId: judged.conflictId,
    expectedRevision: revision,
    authorized: true,
  });
  const group = await loadGroup(ctx, judged.conflictId);
  return {
    ...judged,
    revision: resolved.revision,
    status: resolved.status,
    plan: group.plan,
    staleMemoryIds: resolved.staleMemoryIds,
  };
}

function describePlan(plan: readonly { memory_id: number; action: PlanAction }[]): string {
  return plan.map((step) => `${step.action} on memory ${step.memory_id}`).join(", ");
}

async function decide(ctx: ServiceContext, input: JudgeInput): Promise<JudgeResult> {
  return await ctx.store.write(async () => {
    const group = await loadGroup(ctx, input.conflictId);
    checkRevision(group, input.expectedRevision);
    if (group.status !== "open") {
      throw new MemaError(
        "invalid_input",
        `conflict ${group.id} is ${group.status}; only open conflicts are judged`,
        {
          field: "conflict_id",
          hint: group.status === "applying"
            ? "use memory_govern replan_conflict to change the plan"
            : undefined,
        },
      );
    }
    if (input.decidedBy === "user") {
      requireAuthorization(input.authorized, {
        action: "judge",
        impact: `This records the user's decision on conflict ${group.id}${
          input.chosenValue ? `: "${input.chosenValue}" is the current value` : ""
        }.`,
      });
    }
    const now = nowIso();
    if (input.verdict === "not_a_conflict") {
      const revision = await commit(ctx, group, {
        status: "not_a_conflict",
        decidedBy: input.decidedBy,
        decisionRef: input.ref ?? null,
        decisionReason: input.reason ?? null,
        now,
      });
      await ctx.store.conflicts.setNoticeStatus(await ctx.store.conflicts.noticesOf(group.id), {
        status: "dismissed",
        now,
      });
      await audit(ctx, "judge_conflict", group, { verdict: "not_a_conflict" }, input.reason);
      return {
        conflictId: group.id,
        revision,
        status: "not_a_conflict",
        plan: [],
        chosenValue: null,
      };
    }
    const members: MemoryRecord[] = [];
    for (const m of group.members) {
      const memory = await ctx.store.getMemory(m.memory_id);
      if (memory) members.push(memory);
    }
    const options = { preserveHistory: input.preserveHistory };
    const chosen = input.chosenValue ?? suggestResolution(group, members, options).chosenValue;
    if (chosen.trim() === "") {
      throw new MemaError("invalid_input", "chosen_value must not be empty", {
        field: "chosen_value",
      });
    }
    const plan = checkPlan(
      group,
      input.applyPlan ?? defaultPlan(group, members, chosen, options),
      chosen,
    );
    if (input.apply) {
      requireAuthorization(input.authorized, {
        action: "judge",
        memoryIds: plan.map((step) => step.memory_id),
        impact: `This decides conflict ${group.id} ("${chosen}" is the current value), runs ` +
          `its plan (${describePlan(plan)}) and closes it.`,
      });
    }
    const revision = await commit(ctx, group, {
      status: "applying",
      chosenValue: chosen,
      decidedBy: input.decidedBy,
      decisionRef: input.ref ?? null,
      decisionReason: input.reason ?? null,
      plan,
      planHistory: [...group.planHistory, {
        at: now,
        plan,
        chosen_value: chosen,
        by: ctx.caller.agentId,
      }],
      now,
    });
    await audit(ctx, "judge_conflict", group, { chosen_value: chosen, plan }, input.reason);
    return { conflictId: group.id, revision, status: "applying", plan, chosenValue: chosen };
  });
}

/** Input of `apply_conflict_action`. */
export interface ApplyInput {
  conflictId: number;
  expectedRevision: number;
  memoryId: number;
  content?: string;
  oldText?: string;
  newText?: string;
  /** The replaced claim still held: its validity window stays open (closed by default). */
  previousStillValid?: boolean;
  authorized?: boolean;
}

/**
 * docs/SPEC.md §16: a claim a resolution replaced stops holding where the resolution's fact
 * starts (its `valid_from`; the resolution's time when it names none). Audited.
 */
async function closeReplacedClaim(
  ctx: ServiceContext,
  group: ConflictRecord,
  memoryId: number,
): Promise<void> {
  const memory = await ctx.store.getMemory(memoryId);
  if (!memory) return;
  const now = nowIso();
  const resolutionId = group.resolutionMemoryId ??
    group.plan.find((step) => step.action === "use_as_resolution")?.memory_id;
  const resolution = resolutionId === undefined || resolutionId === null
    ? undefined
    : await ctx.store.getMemory(resolutionId);
  const closed = closedWindow(memory, resolution?.validFrom ?? now);
  if (closed.validTo === memory.validTo) return;
  await ctx.store.changeMemory(memory.id, { validTo: closed.validTo, updatedAt: now });
  await ctx.store.appendAudit({
    at: now,
    action: "close_validity",
    memoryId: memory.id,
    agentId: ctx.caller.agentId,
    client: ctx.caller.client,
    reason: `conflict ${group.id}: replaced by "${group.chosenValue ?? ""}"`,
    detail: {
      version: memory.version,
      valid_from: closed.validFrom,
      valid_to: closed.validTo,
      conflict_id: group.id,
      ...(resolution ? { closed_by_memory: resolution.id } : {}),
    },
  });
}

/** What one step did. */
export interface ApplyResult {
  conflictId: number;
  revision: number;
  step: PlanStep;
  remaining: number;
  actionRequired?: "replan_conflict" | "resolve_conflict";
  error?: string;
}

/**
 * Runs the plan step of one member. A step that cannot run (the edited text
 * lacks the chosen value, the memory changed) is marked failed: the group
 * stays applying and the answer says replan_conflict.
 */
export async function applyConflictAction(
  ctx: ServiceContext,
  input: ApplyInput,
): Promise<ApplyResult> {
  const prepared = await ctx.store.read(async () => {
    const group = await loadApplying(ctx, input);
    const index = group.plan.findIndex((step) => step.memory_id === input.memoryId);
    if (index < 0) {
      throw new MemaError(
        "invalid_input",
        `memory ${input.memoryId} has no step in the plan of conflict ${group.id}`,
        {
          field: "memory_id",
        },
      );
    }
    if (group.plan[index].status === "done") {
      throw new MemaError("invalid_input", `the step of memory ${input.memoryId} is already done`, {
        field: "memory_id",
      });
    }
    return { group, index };
  });
  const { group, index } = prepared;
  const step = group.plan[index];
  requireAuthorization(input.authorized, {
    action: "apply_conflict_action",
    memoryIds: [step.memory_id],
    impact:
      `This runs "${step.action}" on memory ${step.memory_id} for conflict ${group.id} (chosen value: "${group.chosenValue}").`,
  });
  const chosen = group.chosenValue ?? "";
  let failure: string | undefined;
  try {
    await ctx.store.write(async () => {
      const memory = await ctx.store.getMemory(step.memory_id);
      if (!memory) throw new MemaError("not_found", `memory ${step.memory_id} no longer exists`);
      const original = group.members.find((m) => m.memory_id === memory.id)!;
      if (step.action === "update_current_claim") {
        // Without the agent's edit, the chosen value is put in place of the member's own.
        const derived = input.content === undefined && input.oldText === undefined
          ? correctedContent(group, original, memory, chosen)
          : undefined;
        const content = input.content ?? derived;
        const edit = content !== undefined
          ? { kind: "new_content" as const, content }
          : input.oldText !== undefined && input.newText !== undefined
          ? { kind: "replace_text" as const, oldText: input.oldText, newText: input.newText }
          : undefined;
        if (!edit) {
          throw new MemaError(
            "invalid_input",
            `update_current_claim needs content or old_text+new_text: "${chosen}" cannot ` +
              `replace the value of memory ${memory.id} by itself`,
            {
              field: "content",
              hint: "pass the corrected content, or replan with append_superseded_context",
            },
          );
        }
        const after = edit.kind === "new_content"
          ? edit.content
          : memory.content.replace(edit.oldText, edit.newText);
        // Grounding check: the edited fact must state the chosen value verbatim.
        if (!after.includes(chosen)) {
          throw new MemaError(
            "invalid_input",
            `the edited content does not contain the chosen value "${chosen}"`,
            {
              field: "content",
            },
          );
        }
        await updateInTransaction(ctx, {
          memoryId: memory.id,
          edit,
          reason: `conflict ${group.id}: update to "${chosen}"`,
          expectedVersion: original.version === memory.version ? memory.version : undefined,
          previousStillValid: input.previousStillValid,
          authorized: true,
        });
      } else if (step.action === "append_superseded_context") {
        const note = input.content ??
          `\n\n[Superseded ${
            nowIso().slice(0, 10)
          }: the current value is "${chosen}" (conflict ${group.id}).]`;
        // The note changes no value: the member still states the replaced claim, whose window
        // closes below, on the annotated version.
        await updateInTransaction(ctx, {
          memoryId: memory.id,
          edit: { kind: "new_content", content: memory.content + note },
          reason: `conflict ${group.id}: superseded by "${chosen}"`,
          previousStillValid: true,
          authorized: true,
        });
        if (!input.previousStillValid) await closeReplacedClaim(ctx, group, memory.id);
      } else if (step.action === "preserve_historical_record" && !input.previousStillValid) {
        await closeReplacedClaim(ctx, group, memory.id);
      } else if (step.action === "use_as_resolution") {
        if (!memory.content.includes(chosen) && !holdsValue(group, memory.id, chosen)) {
          throw new MemaError("invalid_input", `memory ${memory.id} does not contain "${chosen}"`, {
            field: "memory_id",
          });
        }
      }
      const now = nowIso();
      const plan = group.plan.map((s, i) =>
        i === index ? { ...s, status: "done" as const, done_at: now } : s
      );
      await commit(ctx, group, {
        plan,
        resolutionMemoryId: step.action === "use_as_resolution" ? memory.id : undefined,
        now,
      });
      await audit(ctx, "apply_conflict_action", group, {
        memory_id: memory.id,
        action: step.action,
      });
    });
  } catch (error) {
    if (
      !(error instanceof MemaError) ||
      error.code === "version_conflict" && error.field === "expected_revision"
    ) {
      throw error;
    }
    failure = error.reason;
    await ctx.store.write(async () => {
      const now = nowIso();
      const plan = group.plan.map((s, i) =>
        i === index ? { ...s, status: "failed" as const, error: failure } : s
      );
      await commit(ctx, group, { plan, now });
      await audit(ctx, "apply_conflict_action_failed", group, {
        memory_id: step.memory_id,
        error: failure,
      });
    });
  }
  const updated = await loadGroup(ctx, group.id);
  const done = updated.plan[index];
  const remaining = updated.plan.filter((s) => s.status !== "done").length;
  return {
    conflictId: group.id,
    revision: updated.revision,
    step: done,
    remaining,
    actionRequired: failure ? "replan_conflict" : remaining === 0 ? "resolve_conflict" : undefined,
    error: failure,
  };
}

/** Replaces the plan of an applying group (keeping finished steps and the plan history). */
export async function replanConflict(
  ctx: ServiceContext,
  input: {
    conflictId: number;
    expectedRevision: number;
    applyPlan: { memory_id: number; action: PlanAction }[];
    chosenValue?: string;
    reason?: string;
    authorized?: boolean;
  },
): Promise<{ conflictId: number; revision: number; plan: PlanStep[] }> {
  return await ctx.store.write(async () => {
    const group = await loadApplying(ctx, input);
    requireAuthorization(input.authorized, {
      action: "replan_conflict",
      impact: `This replaces the plan of conflict ${group.id}; finished steps stay done.`,
    });
    const chosen = input.chosenValue ?? group.chosenValue ?? "";
    const plan = checkPlan(group, input.applyPlan, chosen).map((step) => {
      const previous = group.plan.find((s) => s.memory_id === step.memory_id);
      return previous?.status === "done" && previous.action === step.action ? previous : step;
    });
    const now = nowIso();
    const revision = await commit(ctx, group, {
      plan,
      chosenValue: chosen,
      planHistory: [...group.planHistory, {
        at: now,
        plan,
        chosen_value: chosen,
        by: ctx.caller.agentId,
        replaced: group.plan,
      }],
      now,
    });
    await audit(ctx, "replan_conflict", group, { plan, chosen_value: chosen }, input.reason);
    return { conflictId: group.id, revision, plan };
  });
}

/**
 * Closes a group whose every step is done. Members left carrying the replaced claim (annotated
 * or kept as history) are recorded as such at their current version, with the members that
 * hold the chosen value: recall ranks those above them (src/recall/stale.ts).
 */
export async function resolveConflict(
  ctx: ServiceContext,
  input: { conflictId: number; expectedRevision: number; authorized?: boolean },
): Promise<
  { conflictId: number; revision: number; status: "resolved"; staleMemoryIds: number[] }
> {
  return await ctx.store.write(async () => {
    const group = await loadApplying(ctx, input);
    const open = group.plan.filter((s) => s.status !== "done");
    if (open.length > 0) {
      throw new MemaError(
        "invalid_input",
        `conflict ${group.id} still has ${open.length} unfinished step(s): ${
          open.map((s) => `${s.memory_id} (${s.status})`).join(", ")
        }`,
        { field: "conflict_id", hint: "apply each step, or replan the failed ones" },
      );
    }
    requireAuthorization(input.authorized, {
      action: "resolve_conflict",
      impact: `This closes conflict ${group.id} with "${group.chosenValue}" as the current value.`,
    });
    const now = nowIso();
    const revision = await commit(ctx, group, { status: "resolved", now });
    await ctx.store.conflicts.setNoticeStatus(await ctx.store.conflicts.noticesOf(group.id), {
      status: "resolved",
      now,
    });
    const holders = group.plan.filter((s) =>
      s.action === "use_as_resolution" || s.action === "update_current_claim"
    ).map((s) => s.memory_id);
    const staleMemoryIds: number[] = [];
    for (const step of group.plan) {
      if (step.action === "use_as_resolution" || step.action === "update_current_claim") continue;
      const memory = await ctx.store.getMemory(step.memory_id);
      if (!memory || memory.status !== "active") continue;
      await ctx.store.conflicts.markStale({
        memoryId: memory.id,
        conflictId: group.id,
        memoryVersion: memory.version,
        holderIds: holders,
        chosenValue: group.chosenValue ?? "",
        now,
      });
      staleMemoryIds.push(memory.id);
    }
    await audit(ctx, "resolve_conflict", group, {
      chosen_value: group.chosenValue,
      stale_memory_ids: staleMemoryIds,
    });
    return { conflictId: group.id, revision, status: "resolved", staleMemoryIds };
  });
}
