/**
 * The rule-based resolution of a conflict (docs/SPEC.md §4, §8): which value wins (higher trust,
 * then newer event time) and the default plan of per-member actions for a chosen value — members
 * that state it are the resolution, the others are corrected in place where that can be done
 * exactly, annotated otherwise, or kept as history when asked. Pure functions over a group and its
 * members; the commands that carry a plan out are in `workflow.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { detectConflicts } from "./detect.ts";
 * import { suggestResolution } from "./resolution_plan.ts";
 * import { defaultStages } from "./stages.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const older = await rememberMemory(ctx, {
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
 * const members = [
 *   (await store.getMemory(older.memoryId))!,
 *   (await store.getMemory(newer.memoryId))!,
 * ];
 * assert.ok(suggestResolution(group, members).explanation.length > 0);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ConflictMember, ConflictRecord, MemoryRecord } from "../store/mod.ts";
import { SOURCE_TYPES } from "../store/mod.ts";
import { sameStatedValue } from "./events.ts";

/** The per-member actions of a plan. */
export const PLAN_ACTIONS = [
  "update_current_claim",
  "append_superseded_context",
  "preserve_historical_record",
  "use_as_resolution",
] as const;
/** One of {@linkcode PLAN_ACTIONS}. */
export type PlanAction = typeof PLAN_ACTIONS[number];

/** The rule-based suggestion of docs/SPEC.md §4: higher trust wins, then newer event time. */
export interface Suggestion {
  winnerMemoryId: number;
  chosenValue: string;
  explanation: string;
  plan: { memory_id: number; action: PlanAction }[];
}

function trustRank(memory: MemoryRecord): number {
  return SOURCE_TYPES.indexOf(memory.sourceType);
}

function when(memory: MemoryRecord): string {
  return memory.eventTime ?? memory.ingestTime;
}

/** How the default plan treats members that state another value. */
export interface PlanOptions {
  /**
   * Keep them as they are, as history (`preserve_historical_record`) instead of correcting
   * them; only when the user asks for it (docs/SPEC.md §8, as in the seed system).
   */
  preserveHistory?: boolean;
}

/** The value a member states in a group: its own as written, else its value group's. */
export function statedValue(group: ConflictRecord, memoryId: number): string | undefined {
  return group.members.find((m) => m.memory_id === memoryId)?.value ??
    group.valueGroups.find((g) => g.memory_ids.includes(memoryId))?.value;
}

/** True when the member states the chosen value (as written, or in its value group). */
export function holdsValue(group: ConflictRecord, memoryId: number, chosen: string): boolean {
  const holders =
    group.valueGroups.find((g) =>
      [g.value, ...(g.variants ?? [])].some((written) => sameStatedValue(written, chosen))
    )?.memory_ids ?? [];
  if (holders.includes(memoryId)) return true;
  const stated = statedValue(group, memoryId);
  if (stated !== undefined && sameStatedValue(stated, chosen)) return true;
  return group.members.find((m) => m.memory_id === memoryId)?.row_text.includes(chosen) ?? false;
}

/**
 * The member's content with its stated value replaced by the chosen one, inside the row that
 * disagreed; undefined when that cannot be done safely (the memory changed since detection,
 * the row or the value is not found exactly once, or the value is a whole sentence and the
 * chosen value is not one).
 */
export function correctedContent(
  group: ConflictRecord,
  member: ConflictMember,
  memory: MemoryRecord,
  chosen: string,
): string | undefined {
  const stated = statedValue(group, member.memory_id);
  if (memory.version !== member.version || !stated?.trim() || !chosen.trim()) return undefined;
  const content = memory.content;
  const row = member.row_text;
  let start = member.start_offset;
  let end = member.end_offset;
  if (start === null || end === null || content.slice(start, end) !== row) {
    start = content.indexOf(row);
    if (start < 0 || content.indexOf(row, start + 1) >= 0) return undefined;
    end = start + row.length;
  }
  let corrected: string;
  if (stated === row) {
    // A whole-sentence value (a negation, a reworded claim): only a whole sentence replaces it.
    if (!group.members.some((m) => m.row_text === chosen)) return undefined;
    corrected = chosen;
  } else {
    const at = row.indexOf(stated);
    if (at < 0 || row.indexOf(stated, at + 1) >= 0) return undefined;
    corrected = row.slice(0, at) + chosen + row.slice(at + stated.length);
  }
  return content.slice(0, start) + corrected + content.slice(end);
}

/**
 * The default plan for a chosen value (docs/SPEC.md §8, as in the seed system): members stating it
 * are the resolution; the others are corrected — `update_current_claim` (the chosen value put in
 * place of theirs) where that can be done safely, else `append_superseded_context` (a note
 * saying what the current value is) — or, when asked, kept as history.
 */
export function defaultPlan(
  group: ConflictRecord,
  members: readonly MemoryRecord[],
  chosen: string,
  options: PlanOptions = {},
): { memory_id: number; action: PlanAction }[] {
  return group.members.map((member) => {
    const memory = members.find((m) => m.id === member.memory_id);
    const corrected = memory && correctedContent(group, member, memory, chosen);
    // A correction that would repeat another member word for word adds nothing (and the
    // store keeps one copy of a text per workspace): annotate that member instead.
    const repeats = corrected !== undefined &&
      members.some((m) => m.id !== member.memory_id && m.content === corrected);
    const action: PlanAction = holdsValue(group, member.memory_id, chosen)
      ? "use_as_resolution"
      : options.preserveHistory || memory?.status !== "active"
      // A member retired, superseded or purged since detection is no current claim to fix.
      ? "preserve_historical_record"
      : corrected !== undefined && !repeats
      ? "update_current_claim"
      : "append_superseded_context";
    return { memory_id: member.memory_id, action };
  });
}

/** Suggests which value wins and a plan, with a human-readable explanation. */
export function suggestResolution(
  group: ConflictRecord,
  members: MemoryRecord[],
  options: PlanOptions = {},
): Suggestion {
  const ranked = [...members].sort((a, b) =>
    trustRank(a) - trustRank(b) || when(b).localeCompare(when(a)) || b.id - a.id
  );
  const [winner, runnerUp] = ranked;
  let explanation: string;
  if (runnerUp && trustRank(winner) < trustRank(runnerUp)) {
    explanation =
      `memory ${winner.id} wins on trust: ${winner.sourceType} outranks ${runnerUp.sourceType} (memory ${runnerUp.id})`;
  } else if (runnerUp && when(winner) !== when(runnerUp)) {
    explanation = `equal trust (${winner.sourceType}); memory ${winner.id} is newer (${
      when(winner)
    } vs ${when(runnerUp)} for memory ${runnerUp.id})`;
  } else {
    explanation = `equal trust and time; memory ${winner.id} was stored last`;
  }
  const chosenValue = statedValue(group, winner.id) ??
    group.members.find((m) => m.memory_id === winner.id)?.row_text ?? "";
  return {
    winnerMemoryId: winner.id,
    chosenValue,
    explanation,
    plan: defaultPlan(group, members, chosenValue, options),
  };
}
