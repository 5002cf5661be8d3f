/**
 * Conflict views: the list of groups, one group side by side with its suggested plan and the
 * next lifecycle step, and which memories belong to an unresolved conflict.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectConflicts } from "../conflicts/detect.ts";
 * import { defaultStages } from "../conflicts/stages.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { openStore } from "../store/mod.ts";
 * import { conflictDetail } from "./conflicts.ts";
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
 * for (const content of ["The Atlas deadline is Friday.", "The Atlas deadline moved to Monday."]) {
 *   await rememberMemory(ctx, { content, subject: "atlas deadline", workspace: "atlas" });
 * }
 * const [groupId] = (await detectConflicts(ctx, 2, defaultStages())).recorded;
 * const detail = await conflictDetail(ctx, groupId);
 * assert.equal(detail.nextStep, "judge"); // an open group waits for a verdict
 * assert.equal(detail.members.length, 2);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { type Suggestion, suggestResolution } from "../conflicts/resolution_plan.ts";
import type { ServiceContext } from "../core/context.ts";
import type { ConflictMember, ConflictRecord, ConflictStatus, MemoryRecord } from "../store/mod.ts";
import { conflictListScope, conflictNotFound, conflictVisible } from "../conflicts/visibility.ts";

/** Page size of the conflict list when the caller gives none. */
export const CONFLICT_PAGE_DEFAULT = 20;

/** Which groups the list shows; `unresolved` = open + applying, the default. */
export type ConflictListStatus = ConflictStatus | "unresolved" | "all";

/** A page of conflict groups, newest first. */
export interface ConflictListView {
  conflicts: ConflictRecord[];
  total: number;
  hasMore: boolean;
  offset: number;
  limit: number;
}

/** Conflict groups by status. */
export async function conflictList(
  ctx: ServiceContext,
  input: {
    status?: ConflictListStatus;
    /** Only this workspace's groups: a filter the caller chose, inside what isolation allows. */
    workspace?: string;
    limit?: number;
    offset?: number;
  },
): Promise<ConflictListView> {
  const { store } = ctx;
  const statuses: ConflictStatus[] = input.status === undefined || input.status === "unresolved"
    ? ["open", "applying"]
    : input.status === "all"
    ? ["open", "applying", "resolved", "not_a_conflict"]
    : [input.status];
  const limit = input.limit ?? CONFLICT_PAGE_DEFAULT;
  const offset = input.offset ?? 0;
  const workspace = conflictListScope(ctx) ?? input.workspace;
  const { rows, total } = await store.read(async () =>
    await store.conflicts.list({ statuses, limit, offset, workspace })
  );
  return { conflicts: rows, total, hasMore: offset + rows.length < total, offset, limit };
}

/** One member of a group with the memory as it is now (absent when it no longer exists). */
export interface ConflictMemberView {
  member: ConflictMember;
  memory?: MemoryRecord;
  /** The memory moved on since detection (null when it is gone). */
  changedSince: boolean | null;
}

/** What to do next with a group. */
export type ConflictNextStep = "judge" | "apply" | "replan" | "resolve" | null;

/** One conflict group side by side. */
export interface ConflictDetailView {
  group: ConflictRecord;
  members: ConflictMemberView[];
  /** The rule-based suggestion (needs at least two members that still exist). */
  suggestion?: Suggestion;
  nextStep: ConflictNextStep;
}

/** The lifecycle step a group waits for. */
export function nextConflictStep(group: ConflictRecord): ConflictNextStep {
  if (group.status === "open") return "judge";
  if (group.status !== "applying") return null;
  if (group.plan.some((s) => s.status === "failed")) return "replan";
  if (group.plan.every((s) => s.status === "done")) return "resolve";
  return "apply";
}

/** One conflict group, its members as they are now and the suggested plan. */
export async function conflictDetail(
  ctx: ServiceContext,
  conflictId: number,
): Promise<ConflictDetailView> {
  const { store } = ctx;
  return await store.read(async () => {
    const group = await store.conflicts.get(conflictId);
    if (!group || !await conflictVisible(ctx, group)) throw conflictNotFound(conflictId);
    const memories = await store.getMemories(group.members.map((m) => m.memory_id));
    const present = [...memories.values()];
    const suggestion = present.length > 1 ? suggestResolution(group, present) : undefined;
    return {
      group,
      members: group.members.map((member) => {
        const memory = memories.get(member.memory_id);
        return {
          member,
          memory,
          changedSince: memory ? memory.version !== member.version : null,
        };
      }),
      suggestion,
      nextStep: nextConflictStep(group),
    };
  });
}

/** An unresolved conflict a memory belongs to. */
export interface OpenConflictRef {
  conflictId: number;
  status: ConflictStatus;
  revision: number;
}

/** For each of `memoryIds` that belongs to an unresolved conflict: those conflicts. */
export async function openConflictsOf(
  ctx: ServiceContext,
  memoryIds: readonly number[],
): Promise<Map<number, OpenConflictRef[]>> {
  const { store } = ctx;
  return await store.read(async () => {
    const refs = await store.conflicts.openOf(memoryIds);
    if (conflictListScope(ctx) === undefined) return refs;
    // Strict isolation: a conflict reaching outside the caller's workspace is not shown.
    const seen = new Map<number, boolean>();
    const shown = async (id: number) => {
      if (!seen.has(id)) {
        const group = await store.conflicts.get(id);
        seen.set(id, group !== undefined && await conflictVisible(ctx, group));
      }
      return seen.get(id)!;
    };
    const visible = new Map<number, OpenConflictRef[]>();
    for (const [id, list] of refs) {
      const kept = [];
      for (const ref of list) if (await shown(ref.conflictId)) kept.push(ref);
      if (kept.length > 0) visible.set(id, kept);
    }
    return visible;
  });
}
