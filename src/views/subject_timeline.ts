/**
 * A subject's timeline for the console (issue 34): every value the memories of one subject in
 * one workspace held, each with its validity window and the memory version that set it, in
 * the order they held. The memories are the subject's matches in the word index (bounded by
 * {@linkcode TIMELINE_MEMORIES}), so the page costs the same in a library of any size.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { updateMemory } from "../memory/update.ts";
 * import { subjectTimeline } from "./subject_timeline.ts";
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
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "The API port is 8080.",
 *   subject: "api port",
 *   workspace: "infra",
 *   validFrom: "2024-01-01",
 * });
 * await updateMemory(ctx, {
 *   memoryId,
 *   edit: { kind: "new_content", content: "The API port is 9090." },
 *   validFrom: "2024-05-01",
 * });
 * const timeline = await subjectTimeline(ctx, { memoryId });
 * assert.deepEqual(timeline.entries.map((e) => [e.version, e.validTo]), [
 *   [1, "2024-05-01T00:00:00.000Z"],
 *   [2, null],
 * ]);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { MemaError } from "../errors/mod.ts";
import { findMemories } from "../recall/find.ts";
import type { MemoryRecord, MemoryStatus } from "../store/mod.ts";
import { visible } from "../workspaces/access.ts";

/**
 * Memories of one subject a timeline gathers: a subject an agent wrote more than 50 facts
 * under is a log, not a fact's history.
 */
export const TIMELINE_MEMORIES = 50;

/** One value in a subject's timeline. */
export interface TimelineEntry {
  memoryId: number;
  version: number;
  subject: string;
  content: string;
  /** The memory's status now. */
  status: MemoryStatus;
  /** The memory's version now is this one. */
  current: boolean;
  validFrom: string | null;
  validTo: string | null;
  /** When this version was written. */
  setAt: string;
  setBy: string;
}

/** The timeline of the subject of `memoryId`, in its workspace. */
export interface SubjectTimeline {
  subject: string;
  workspace: string;
  entries: TimelineEntry[];
}

function sameSubject(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Every version of `memory`, oldest first, as timeline entries. */
async function entriesOf(ctx: ServiceContext, memory: MemoryRecord): Promise<TimelineEntry[]> {
  const history = await ctx.store.listHistory(memory.id);
  const entries = history.map((entry, index): TimelineEntry => ({
    memoryId: memory.id,
    version: entry.version,
    subject: entry.subject,
    content: entry.content,
    status: memory.status,
    current: false,
    validFrom: entry.validFrom,
    validTo: entry.validTo,
    setAt: index === 0 ? memory.createdAt : history[index - 1].changedAt,
    setBy: index === 0 ? `${memory.client}/${memory.agentId}` : history[index - 1].changedBy,
  }));
  entries.push({
    memoryId: memory.id,
    version: memory.version,
    subject: memory.subject,
    content: memory.content,
    status: memory.status,
    current: true,
    validFrom: memory.validFrom,
    validTo: memory.validTo,
    setAt: history.at(-1)?.changedAt ?? memory.createdAt,
    setBy: history.at(-1)?.changedBy ?? `${memory.client}/${memory.agentId}`,
  });
  return entries;
}

/**
 * The timeline of the subject of `memoryId`: the versions of every memory of that subject in
 * its workspace, ordered by when each began to hold (its `valid_from`, else when it was set).
 */
export async function subjectTimeline(
  ctx: ServiceContext,
  input: { memoryId: number },
): Promise<SubjectTimeline> {
  const memory = await ctx.store.read(async () =>
    visible(ctx, await ctx.store.getMemory(input.memoryId))
  );
  if (!memory || memory.status === "deleted") {
    throw new MemaError("not_found", `memory ${input.memoryId} does not exist`, {
      field: "memory_id",
    });
  }
  const found = await findMemories(ctx, {
    query: memory.subject,
    workspace: memory.workspaceCanonical,
    workspaceOnly: true,
    statuses: ["active", "pending", "superseded", "retired"],
    limit: TIMELINE_MEMORIES,
  });
  const memories = new Map([[memory.id, memory]]);
  for (const item of found.items) {
    if (sameSubject(item.memory.subject, memory.subject)) memories.set(item.memory.id, item.memory);
  }
  const entries: TimelineEntry[] = [];
  await ctx.store.read(async () => {
    for (const each of memories.values()) entries.push(...await entriesOf(ctx, each));
  });
  const start = (entry: TimelineEntry) => entry.validFrom ?? entry.setAt;
  entries.sort((a, b) =>
    start(a).localeCompare(start(b)) || a.memoryId - b.memoryId || a.version - b.version
  );
  return { subject: memory.subject, workspace: memory.workspaceCanonical, entries };
}
