/**
 * A background worker that drains the job queue in this process. Handlers
 * must be idempotent: a job whose worker died mid-run is run again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { enqueueJob } from "./queue.ts";
 * import { startJobWorker } from "./worker.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * await store.write(async () =>
 *   await enqueueJob(store, { kind: "greet", dedupeKey: "greet:1", payload: { name: "docs" } })
 * );
 * const ran = Promise.withResolvers<unknown>();
 * const worker = startJobWorker(store, { greet: async (job) => ran.resolve(job.payload) });
 * assert.deepEqual(await ran.promise, { name: "docs" });
 * await worker.stop();
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { logWarn } from "../platform/log.ts";
import { processId } from "../platform/processes.ts";
import { ioTurn } from "../platform/io_turn.ts";
import type { JobRecord, Store } from "../store/mod.ts";
import {
  JOB_CLAIM_BATCH,
  JOB_DONE_RETENTION_MS,
  JOB_PAUSE_WHILE_SERVING_MS,
  JOB_POLL_MS,
  JOB_SLICE_MS,
  JOB_SLICE_SERVING_MS,
} from "./constants.ts";
import { servingRequests, untilQuiet } from "./activity.ts";
import { claimJobs, completeJobs, failJob } from "./queue.ts";

/**
 * Gives requests a turn between two slices of background work, and steps back longer while
 * requests are flowing ({@link servingRequests}). Long-running handlers (the embedding of a
 * large backlog) call it between their batches.
 */
export async function yieldToRequests(): Promise<void> {
  await ioTurn();
  // Wait until the calls stop (no request for JOB_FOREGROUND_WINDOW_MS), at most the pause: a
  // lone call (a status poll) costs the backlog ≤ 50 ms, calls back to back let one job run
  // every JOB_PAUSE_WHILE_SERVING_MS.
  await untilQuiet(JOB_PAUSE_WHILE_SERVING_MS);
}

/**
 * How long the next slice may run: {@linkcode JOB_SLICE_MS} when idle, a single job while
 * requests flow (a call that arrives during a slice waits for it).
 */
function sliceBudget(): number {
  return servingRequests() ? JOB_SLICE_SERVING_MS : JOB_SLICE_MS;
}

/** Runs one job; throwing schedules a retry. */
export type JobHandler = (job: JobRecord) => Promise<void> | void;

/** A running worker. */
export interface JobWorker {
  owner: string;
  /** Runs rounds until no ready job is left (tests and benchmarks use this). */
  drain(): Promise<number>;
  /** Stops polling and waits for the job in progress. */
  stop(): Promise<void>;
}

/** Options for {@linkcode startJobWorker}. */
export interface JobWorkerOptions {
  pollMs?: number;
  leaseMs?: number;
  /** Do not poll on a timer; only `drain()` runs jobs. */
  manual?: boolean;
}

/** Starts a worker for the given handlers. */
export function startJobWorker(
  store: Store,
  handlers: Record<string, JobHandler>,
  options: JobWorkerOptions = {},
): JobWorker {
  const owner = `pid-${processId()}-${crypto.randomUUID().slice(0, 8)}`;
  const kinds = Object.keys(handlers);
  let stopped = false;
  let running: Promise<number> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastPrune = 0;

  async function round(): Promise<number> {
    const jobs = await claimJobs(store, {
      kinds,
      owner,
      limit: JOB_CLAIM_BATCH,
      leaseMs: options.leaseMs,
    });
    // Jobs run in slices of JOB_SLICE_MS: after each slice the finished jobs are marked done
    // in one transaction and requests get a turn (awaiting a mostly synchronous handler only
    // drains microtasks, so without a real yield a backlog would starve the transport).
    let finished: JobRecord[] = [];
    let sliceStarted = performance.now();
    let slice = sliceBudget();
    for (const job of jobs) {
      if (stopped) break;
      try {
        await handlers[job.kind](job);
        finished.push(job);
      } catch (error) {
        const status = await failJob(store, job, { owner, error });
        logWarn(
          `job ${job.id} (${job.kind}) failed on attempt ${job.attempts}: ${error}${
            status === "poisoned" ? "; giving up" : ""
          }`,
        );
      }
      if (performance.now() - sliceStarted >= slice) {
        await completeJobs(store, finished, owner);
        finished = [];
        await yieldToRequests();
        sliceStarted = performance.now();
        slice = sliceBudget();
      }
    }
    await completeJobs(store, finished, owner);
    if (Date.now() - lastPrune > JOB_DONE_RETENTION_MS / 24) {
      lastPrune = Date.now();
      await store.write(
        async () =>
          await store.pruneJobs(new Date(Date.now() - JOB_DONE_RETENTION_MS).toISOString()),
        { durable: false, serialized: false },
      );
    }
    return jobs.length;
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      while (running) await running.catch(() => 0);
      running = round();
      const count = await running.finally(() => (running = undefined));
      total += count;
      if (count === 0 || stopped) return total;
    }
  }

  function schedule(): void {
    if (stopped || options.manual) return;
    timer = setTimeout(async () => {
      try {
        await drain();
      } catch (error) {
        logWarn(`job worker round failed: ${error}`);
      }
      schedule();
    }, options.pollMs ?? JOB_POLL_MS);
  }
  schedule();

  return {
    owner,
    drain,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running?.catch(() => 0);
    },
  };
}
