/**
 * Write-time detection as a durable job: the write transaction queues it, so
 * a crash before the check runs loses nothing; the serving process also runs
 * it right away and lets the response wait up to `notice_sync_wait_ms`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { scheduleConflictCheck } from "./schedule.ts";
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
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * // rememberMemory schedules the check itself; a write that changes a fact outside it does so too.
 * await store.write(async () => await scheduleConflictCheck(store, memoryId, 1));
 * assert.ok(Object.keys(await store.countJobs()).length > 0); // the check is queued
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { MemoryEvents, MemoryWritten } from "../core/memory_events.ts";
import { enqueueJob } from "../jobs/queue.ts";
import type { ServiceContext } from "../core/context.ts";
import type { Store } from "../store/mod.ts";
import { batchKey, memberRuns } from "./batch_runs.ts";
import { planned, queueForPlan } from "./check_plan.ts";
import { DETECT_BATCH_JOB_KIND, DETECT_JOB_KIND } from "./constants_pipeline.ts";
import { detectConflicts, type DetectionReport, type DetectionStages } from "./detect.ts";

/** The job key of one memory version's check. */
function checkKey(memoryId: number, version: number): string {
  return `memory:${memoryId}:v${version}`;
}

/** Queues detection for a memory version (call inside its write transaction). */
export async function scheduleConflictCheck(
  store: Store,
  memoryId: number,
  version: number,
): Promise<void> {
  await enqueueJob(store, {
    kind: DETECT_JOB_KIND,
    dedupeKey: checkKey(memoryId, version),
    payload: { memory_id: memoryId, version },
  });
}

/**
 * Queues the checks of a batch of a bulk write. A big batch (an import chunk) is planned
 * (check_plan.ts): its versions join the plan, checked in an order that puts alike memories
 * together. A smaller one is one job holding the versions to check, which `batch_check.ts`
 * works through in slices, sharing what one member's check read with the next. A batch of one
 * is an ordinary check.
 */
export async function scheduleBatchCheck(
  store: Store,
  facts: readonly MemoryWritten[],
): Promise<void> {
  // A unit undone after it announced (a refused import item) may leave an id a later write
  // took again: each version is listed once, and the check skips any that is not current.
  const versions = new Map<string, readonly [number, number]>();
  for (const fact of facts) {
    if (!fact.sameText) {
      versions.set(`${fact.memoryId}:${fact.version}`, [fact.memoryId, fact.version]);
    }
  }
  const members = [...versions.values()];
  // A bulk write's checks are planned: run in an order that checks alike memories together.
  if (planned(members.length)) return await queueForPlan(store, members);
  if (members.length === 0) return;
  if (members.length === 1) return await scheduleConflictCheck(store, ...members[0]);
  await enqueueJob(store, {
    kind: DETECT_BATCH_JOB_KIND,
    dedupeKey: batchKey(members),
    payload: { runs: memberRuns(members) },
  });
}

/**
 * Queues a check of every written memory, inside the write's unit of work: called once where the
 * services are composed (src/app/), so the write path announces and never imports conflicts. A
 * bulk writer's batch (`MemoryEvents.batch`) queues one check for all its facts instead.
 */
export function subscribeConflictChecks(events: MemoryEvents): void {
  events.onWritten(async (store, fact) => {
    if (fact.sameText) return;
    await scheduleConflictCheck(store, fact.memoryId, fact.version);
  }, { batched: scheduleBatchCheck });
}

/**
 * Runs detection now and waits at most `waitMs` for it; the check goes on in
 * the background when it takes longer (its notices ride on later responses).
 */
export async function checkWithinWait(
  ctx: ServiceContext,
  memory: { id: number; version: number },
  options: { stages: DetectionStages; waitMs: number },
): Promise<DetectionReport | undefined> {
  if (options.waitMs <= 0) return undefined;
  const running = detectConflicts(ctx, memory.id, options.stages).then(async (report) => {
    // Done here, so the queued job for this version need not run it again.
    await ctx.store.write(async () =>
      await ctx.store.finishPendingJob({
        kind: DETECT_JOB_KIND,
        dedupeKey: checkKey(memory.id, memory.version),
      }), { durable: false });
    return report;
  }).catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), options.waitMs);
  });
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
