/**
 * The batched conflict checks of bulk writes (issue 38), run a slice at a time: a batch job
 * (`scheduleBatchCheck` in schedule.ts queues one for a batch of at most
 * DETECT_VECTOR_BACKLOG_MAX versions, one per memory no longer) and the plan's job (check_plan.ts:
 * `runPlanCheck`, for bigger batches such as an import's chunks). Each run checks the next members
 * against the library (the same neighbour lookup and rule
 * stage as a single check, so a contradiction inside the import or with a fact already stored
 * is found as before) and commits, in one transaction, what it found, a continuation job holding
 * the members not checked yet, and the removal of its own job. A run killed half way therefore
 * loses nothing and repeats nothing that committed: either its findings and its continuation
 * are in, or neither is and the job runs again.
 *
 * What it plans away: members that are no longer current (a later version has its own check),
 * members that claim nothing (chat: questions, greetings) before any lookup, and work the
 * members of one chunk share — their claim rows are read once for all of them, and a pair of
 * members compared from one side without a suspect is not compared again from the other
 * ({@link DetectionMemo}). A chunk's memories are mostly each other's neighbours (one
 * conversation, one document), which is where a per-memory check spent its time twice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createDetectionMemo, runBatchCheck } from "./batch_check.ts";
 * import { scheduleBatchCheck } from "./schedule.ts";
 * import { defaultStages } from "./stages.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { claimJobs } from "../jobs/queue.ts";
 * import { openStore } from "../store/mod.ts";
 * import { MemoryEvents } from "../core/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: new MemoryEvents(), // no listeners: this example plans the check itself
 * };
 * const first = await rememberMemory(ctx, {
 *   content: "The Atlas deadline is Friday.",
 *   subject: "atlas deadline",
 *   workspace: "atlas",
 * });
 * const second = await rememberMemory(ctx, {
 *   content: "The Atlas deadline moved to Monday.",
 *   subject: "atlas deadline",
 *   workspace: "atlas",
 * });
 * await store.write(async () =>
 *   await scheduleBatchCheck(store, [
 *     { memoryId: first.memoryId, version: 1 },
 *     { memoryId: second.memoryId, version: 1 },
 *   ])
 * );
 * const [job] = await claimJobs(store, {
 *   kinds: ["detect_conflicts_batch"],
 *   owner: "docs",
 *   limit: 1,
 * });
 * const report = await runBatchCheck(ctx, job, {
 *   stages: defaultStages(),
 *   memo: createDetectionMemo(),
 *   runMs: 60_000, // a worker's run commits after DETECT_BATCH_RUN_MS; this one checks both
 * });
 * assert.equal(report.checked, 2);
 * assert.equal(report.recorded.length, 1);
 * assert.equal(report.left, 0);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { servingRequests } from "../jobs/activity.ts";
import { JOB_SLICE_MS, JOB_SLICE_SERVING_MS } from "../jobs/constants.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { yieldToRequests } from "../jobs/worker.ts";
import { BoundedMap } from "../platform/bounded_map.ts";
import type { JobRecord, MemoryRecord, Store } from "../store/mod.ts";
import {
  DETECT_BATCH_JOB_KIND,
  DETECT_BATCH_MEMO_MAX,
  DETECT_BATCH_READ_AHEAD,
  DETECT_BATCH_RUN_MS,
  DETECT_BATCH_SLICE_MAX,
  DETECT_PLAN_FOLD_MEMBERS,
  DETECT_PLAN_FOLD_READ,
  DETECT_UNPLANNED_JOB_KIND,
  DETECT_VECTOR_BACKLOG_MAX,
} from "./constants_pipeline.ts";
import {
  type CheckFindings,
  type DetectionMemo,
  type DetectionStages,
  findSuspects,
  judgeSuspects,
  readClaimRows,
  recordFindings,
} from "./detect.ts";
import { inPlanOrder, NO_WORDS_KEY, planKeyOf, queuePlanJob } from "./check_plan.ts";
import { batchKey, memberRuns } from "./batch_runs.ts";

/** A memo for the batch jobs of one worker, bounded by {@linkcode DETECT_BATCH_MEMO_MAX}. */
export function createDetectionMemo(): DetectionMemo {
  return {
    claims: new BoundedMap(DETECT_BATCH_MEMO_MAX),
    quiet: new BoundedMap(DETECT_BATCH_MEMO_MAX * 4),
  };
}

/** What one run of a batch job did. */
export interface BatchCheckReport {
  /** Members checked in this run (skipped ones included). */
  checked: number;
  /** Of them, members not current any more or claiming nothing: no lookup was made. */
  skipped: number;
  /** Conflict groups opened or joined. */
  recorded: number[];
  /** Members handed to the continuation job. */
  left: number;
  /** True when the job's lease was lost before the run could commit (another worker has it). */
  leaseLost?: boolean;
}

/** The members of a batch job, `[memory id, version]` pairs, from its runs (`memberRuns`). */
export function batchMembers(job: JobRecord): [number, number][] {
  const runs = job.payload.runs;
  const valid = Array.isArray(runs) && runs.every((run) =>
    Array.isArray(run) && run.length === 3 &&
    run.every((value) => Number.isSafeInteger(value) && value > 0)
  );
  if (!valid) {
    throw new MemaError("invalid_input", `batch check job ${job.id} has no member runs`, {
      field: "payload.runs",
      hint: "the job was not written by this mema; it is retried and then kept as poisoned",
    });
  }
  return (runs as [number, number, number][]).flatMap(([first, count, version]) =>
    Array.from({ length: count }, (_, k) => [first + k, version] as [number, number])
  );
}

class LeaseLost extends Error {}

/** Members read ahead at once: {@linkcode DETECT_BATCH_READ_AHEAD}, one while requests flow. */
function aheadWindow(sliceMs: number | undefined): number {
  return sliceMs === undefined && servingRequests() ? 1 : DETECT_BATCH_READ_AHEAD;
}

/**
 * The records of `window`'s members (as stored now) with their claim rows put in `memo`: a
 * member found at another version or retired is skipped by the caller without a read of its own.
 */
async function readAhead(
  store: Store,
  window: readonly (readonly [number, number])[],
  memo: DetectionMemo,
): Promise<Map<number, MemoryRecord>> {
  const records = await store.getMemories(window.map(([memoryId]) => memoryId));
  const current = window.flatMap(([memoryId, version]) => {
    const record = records.get(memoryId);
    return record?.version === version && record.status === "active" ? [record] : [];
  });
  await readClaimRows(store, current, memo);
  return records;
}

/** How a run of a batch or of the plan checks its members. */
interface RunOptions {
  stages: DetectionStages;
  memo: DetectionMemo;
  /** Work between two turns for requests (default: the worker's slice). */
  sliceMs?: number;
  /** Work before the run commits and hands the rest on (default DETECT_BATCH_RUN_MS). */
  runMs?: number;
  /** How the run gives requests their turn (default: the worker's yieldToRequests). */
  yieldTurn?: () => Promise<void>;
}

/** What a run found before its commit. */
interface RunFindings {
  found: CheckFindings[];
  checked: number;
  skipped: number;
}

/**
 * Checks members from the first on, in slices of {@linkcode JOB_SLICE_MS} (one member while
 * requests are being served) with a turn for requests between them, until
 * {@linkcode DETECT_BATCH_RUN_MS} or {@linkcode DETECT_BATCH_SLICE_MAX} members; commits nothing.
 */
async function checkMembers(
  ctx: ServiceContext,
  members: readonly (readonly [number, number])[],
  stages: DetectionStages,
  options: RunOptions,
): Promise<RunFindings> {
  const { store } = ctx;
  const sliceBudget = () =>
    options.sliceMs ?? (servingRequests() ? JOB_SLICE_SERVING_MS : JOB_SLICE_MS);
  const runMs = options.runMs ?? DETECT_BATCH_RUN_MS;
  const started = performance.now();
  let sliceStarted = started;
  let sliceMs = sliceBudget();
  const found: CheckFindings[] = [];
  let checked = 0;
  let skipped = 0;
  let ahead = new Map<number, MemoryRecord>();
  let aheadUntil = 0;
  const checkNext = async () => {
    const [memoryId, version] = members[checked++];
    if (checked > aheadUntil) {
      // The next members' records and claim rows in one read: one query each for a window
      // instead of three a member (the currency test, then the check's own reads). While
      // requests flow a run checks one member, so it reads one.
      const window = members.slice(checked - 1, checked - 1 + aheadWindow(options.sliceMs));
      ahead = await store.read(async () => await readAhead(store, window, options.memo));
      aheadUntil = checked - 1 + window.length;
      // Read in the slice's snapshot, when there is one: a member is often the next's neighbour.
      for (const [id, record] of ahead) options.memo.snapshot?.set(id, record);
    }
    const current = ahead.get(memoryId);
    // A later version queued its own check; a retired or purged memory needs none.
    if (current?.version !== version || current.status !== "active") {
      skipped++;
      return;
    }
    const findings = await findSuspects(ctx, current, stages, options.memo);
    if (findings.checked === 0 && findings.suspects.length === 0) skipped++;
    found.push(findings);
  };
  const more = () => checked < members.length && checked < DETECT_BATCH_SLICE_MAX;
  // A slice's checks share one read (one snapshot, one transaction instead of one a member),
  // unless a check embeds its text between reads (neighbours by meaning).
  const slice = async () => {
    do await checkNext(); while (more() && performance.now() - sliceStarted < sliceMs);
  };
  while (more()) {
    if (checked > 0) {
      // While requests flow the worker's own pause paces the drain, one member a run as one
      // job each did: going on after a turn ran a second check into the next calls (find's
      // p95 at 1M 1.22-1.31x idle against 0.92-1.02x one job each, bench/drain_find.ts).
      if (
        performance.now() - started >= runMs || (options.sliceMs === undefined && servingRequests())
      ) break;
      // Requests get their turn between two slices; the findings wait for the run's commit.
      await (options.yieldTurn ?? yieldToRequests)();
      sliceStarted = performance.now();
      sliceMs = sliceBudget();
    }
    if (stages.vectors) await slice();
    else {
      // One snapshot for the slice: the neighbours' records it reads serve its later checks.
      options.memo.snapshot = new Map();
      try {
        await store.read(slice);
      } finally {
        options.memo.snapshot = undefined;
      }
    }
  }
  return { found, checked, skipped };
}

/**
 * Checks the next members of a batch job and commits the findings with a continuation for the
 * rest (see the module documentation).
 */
export async function runBatchCheck(
  ctx: ServiceContext,
  job: JobRecord,
  options: RunOptions,
): Promise<BatchCheckReport> {
  const { store } = ctx;
  const members = batchMembers(job);
  const owner = job.leaseOwner;
  if (owner === null) throw new Error(`batch check job ${job.id} runs without a lease`);
  // A chunk larger than the by-meaning backlog bar is a bulk import: word neighbours only (the
  // by-meaning lookup scans every vector; see DETECT_VECTOR_BACKLOG_MAX).
  const stages = members.length > DETECT_VECTOR_BACKLOG_MAX
    ? { ...options.stages, vectors: undefined }
    : options.stages;
  const { found, checked, skipped } = await checkMembers(ctx, members, stages, options);
  const rest = members.slice(checked);
  const recorded = await commitRun(
    ctx,
    job,
    { owner, found, stages, memo: options.memo },
    async () => {
      if (rest.length > 0) {
        await enqueueJob(store, {
          kind: DETECT_BATCH_JOB_KIND,
          dedupeKey: batchKey(rest),
          payload: { runs: memberRuns(rest) },
        });
      }
    },
  );
  if (recorded === undefined) return leaseLost(members.length);
  return { checked, skipped, recorded, left: rest.length };
}

/** What a run whose job's lease was lost reports: nothing done, every member left. */
function leaseLost(members: number): BatchCheckReport {
  return { checked: 0, skipped: 0, recorded: [], left: members, leaseLost: true };
}

/**
 * Judges and records a run's findings and commits them, in one transaction, with `handOn` (what
 * the run leaves to a later one) and the end of its job. Undefined when the job's lease was lost
 * (another worker has it): then nothing of the run committed.
 */
async function commitRun(
  ctx: ServiceContext,
  job: JobRecord,
  run: { owner: string; found: CheckFindings[]; stages: DetectionStages; memo: DetectionMemo },
  handOn: () => Promise<void>,
): Promise<number[] | undefined> {
  const suspects = run.found.flatMap((findings) => findings.suspects);
  const verdicts = await judgeSuspects(run.stages, suspects);
  let recorded: number[];
  try {
    recorded = await ctx.store.write(async () => {
      const opened = await recordFindings(ctx, suspects, verdicts);
      await handOn();
      if (!(await ctx.store.finishJob(job.id, run.owner))) throw new LeaseLost();
      return opened;
    }, { durable: false, concurrent: true });
  } catch (error) {
    if (!(error instanceof LeaseLost)) throw error;
    return undefined;
  }
  rememberQuiet(run.found, run.memo);
  return recorded;
}

/** Only what committed may spare a later check its comparison. */
function rememberQuiet(found: readonly CheckFindings[], memo: DetectionMemo): void {
  for (const findings of found) {
    for (const key of findings.quiet) memo.quiet.set(key, true);
  }
}

/**
 * A run of the plan's job (check_plan.ts): checks the first planned members in plan order, as a
 * batch's run checks its own, then commits, in one transaction, the findings, the removal of
 * the members checked from the plan, the plan's next job when members are left, and the end of
 * its own job. A run killed before that commit leaves the plan as it was.
 */
export async function runPlanCheck(
  ctx: ServiceContext,
  job: JobRecord,
  options: RunOptions,
): Promise<BatchCheckReport> {
  const { store } = ctx;
  const owner = job.leaseOwner;
  if (owner === null) throw new Error(`planned check job ${job.id} runs without a lease`);
  // Batches waiting to join the plan go in first: checked in key order, alike memories must be
  // in the plan together.
  const took = await takeIntoPlan(ctx, job, owner, options);
  if (took !== undefined) return took;
  const next = await store.read(async () => await store.plannedChecks(DETECT_BATCH_SLICE_MAX));
  const members = next.map((check) => [check.memoryId, check.version] as const);
  // Planned checks are a bulk write's: word neighbours only, as a big batch's.
  const stages = { ...options.stages, vectors: undefined };
  const { found, checked, skipped } = await checkMembers(ctx, members, stages, options);
  const recorded = await commitRun(
    ctx,
    job,
    { owner, found, stages, memo: options.memo },
    async () => {
      // A write that planned more meanwhile queued a job of its own unless one was pending.
      if (await store.unplanChecks(next.slice(0, checked))) await queuePlanJob(store);
    },
  );
  if (recorded === undefined) return leaseLost(members.length);
  return { checked, skipped, recorded, left: members.length - checked };
}

/**
 * Takes waiting batches ({@linkcode DETECT_UNPLANNED_JOB_KIND}) into the plan: reads them
 * {@linkcode DETECT_PLAN_FOLD_READ} at a time, keys their members by their words (a turn for
 * requests between two reads; one read while requests flow), and once
 * {@linkcode DETECT_PLAN_FOLD_MEMBERS} are keyed or none is left, writes them, sorted, in one
 * transaction that deletes their jobs (a job another server took meanwhile is left to it) and
 * ends this run's job. Undefined when no batch waits.
 */
async function takeIntoPlan(
  ctx: ServiceContext,
  job: JobRecord,
  owner: string,
  options: RunOptions,
): Promise<BatchCheckReport | undefined> {
  const { store } = ctx;
  const waiting: { id: number; members: [number, number][] }[] = [];
  const keys = new Map<number, number>();
  let keyed = 0;
  let afterId = 0;
  while (keyed < DETECT_PLAN_FOLD_MEMBERS) {
    if (waiting.length > 0) {
      if (options.sliceMs === undefined && servingRequests()) break;
      await (options.yieldTurn ?? yieldToRequests)();
    }
    const jobs = await store.read(async () =>
      await store.pendingJobs({
        kind: DETECT_UNPLANNED_JOB_KIND,
        afterId,
        limit: DETECT_PLAN_FOLD_READ,
      })
    );
    if (jobs.length === 0) break;
    afterId = jobs.at(-1)!.id;
    const batches = jobs.map((waitingJob) => ({
      id: waitingJob.id,
      members: batchMembers(waitingJob),
    }));
    const ids = batches.flatMap((batch) => batch.members.map(([memoryId]) => memoryId));
    const contents = await store.read(async () => await store.contentsOf(ids));
    for (const [id, content] of contents) keys.set(id, planKeyOf(content));
    waiting.push(...batches);
    keyed += ids.length;
  }
  if (waiting.length === 0) return undefined;
  try {
    await store.write(async () => {
      const taken = new Set(await store.takePendingJobs(waiting.map((batch) => batch.id)));
      const checks = waiting.filter((batch) => taken.has(batch.id)).flatMap((batch) =>
        batch.members.map(([memoryId, version]) => ({
          groupKey: keys.get(memoryId) ?? NO_WORDS_KEY,
          memoryId,
          version,
        }))
      );
      await store.planChecks(inPlanOrder(checks));
      await queuePlanJob(store);
      if (!(await store.finishJob(job.id, owner))) throw new LeaseLost();
    }, { durable: false, concurrent: true });
  } catch (error) {
    if (!(error instanceof LeaseLost)) throw error;
    return leaseLost(0);
  }
  return { checked: 0, skipped: 0, recorded: [], left: keyed };
}
