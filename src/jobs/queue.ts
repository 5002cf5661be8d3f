/**
 * The durable job queue (docs/SPEC.md §7): jobs live in SQLite, are claimed with a
 * lease, retried with exponential backoff, poisoned after the last attempt,
 * and survive crashes and restarts. Several processes can share one queue.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { enqueueJob } from "./queue.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const id = await store.write(async () =>
 *   await enqueueJob(store, {
 *     kind: "embed_rows",
 *     dedupeKey: "memory:7",
 *     payload: { memory_id: 7 },
 *   })
 * );
 * assert.ok(id !== undefined);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { JobRecord, JobStatus, Store } from "../store/mod.ts";
import {
  JOB_LEASE_MS,
  JOB_MAX_ATTEMPTS,
  JOB_RETRY_BASE_MS,
  JOB_RETRY_MAX_MS,
} from "./constants.ts";

/** A job to add. */
export interface NewJob {
  kind: string;
  dedupeKey?: string;
  payload: Record<string, unknown>;
  maxAttempts?: number;
}

/** Adds a job (call inside the write transaction that makes it necessary). */
export async function enqueueJob(
  store: Store,
  job: NewJob,
  now = new Date(),
): Promise<number | undefined> {
  return await store.insertJob({
    kind: job.kind,
    dedupeKey: job.dedupeKey,
    payload: job.payload,
    maxAttempts: job.maxAttempts ?? JOB_MAX_ATTEMPTS,
    now: now.toISOString(),
  });
}

/**
 * Claims, completions and failures commit without a disk sync: losing them to a power cut
 * only runs a job again (handlers are idempotent), and the next synced write makes them
 * durable anyway (see Store.write). Each of their statements locks the job rows it changes
 * (claims skip rows another claim holds), so they need not wait for other writers.
 */
const BOOKKEEPING = { durable: false, serialized: false } as const;

/** Claims ready jobs for `owner` in one transaction. */
export async function claimJobs(
  store: Store,
  claim: { kinds: readonly string[]; owner: string; limit: number; leaseMs?: number },
  now = new Date(),
): Promise<JobRecord[]> {
  return await store.write(async () =>
    await store.claimJobs({
      kinds: claim.kinds,
      owner: claim.owner,
      limit: claim.limit,
      now: now.toISOString(),
      leaseExpires: new Date(now.getTime() + (claim.leaseMs ?? JOB_LEASE_MS)).toISOString(),
    }), BOOKKEEPING);
}

/** Marks a job done; false when its lease had expired and another worker took it. */
export async function completeJob(store: Store, job: JobRecord, owner: string): Promise<boolean> {
  return await store.write(async () => await store.finishJob(job.id, owner), BOOKKEEPING);
}

/** Marks several jobs done in one transaction; the ids whose lease was lost are left out. */
export async function completeJobs(
  store: Store,
  jobs: readonly JobRecord[],
  owner: string,
): Promise<number[]> {
  if (jobs.length === 0) return [];
  return await store.write(
    async () => {
      const done: JobRecord[] = [];
      for (const job of jobs) if (await store.finishJob(job.id, owner)) done.push(job);
      return done;
    },
    BOOKKEEPING,
  )
    .then((done) => done.map((job) => job.id));
}

/** Delay before attempt `attempts + 1`. */
export function retryDelayMs(attempts: number): number {
  return Math.min(JOB_RETRY_MAX_MS, JOB_RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/** Records a failure: back to pending after a backoff, or poisoned after the last attempt. */
export async function failJob(
  store: Store,
  job: JobRecord,
  failure: { owner: string; error: unknown },
  now = new Date(),
): Promise<JobStatus | undefined> {
  const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
  return await store.write(async () =>
    await store.failJob({
      id: job.id,
      owner: failure.owner,
      error: message,
      retryAt: new Date(now.getTime() + retryDelayMs(job.attempts)).toISOString(),
      now: now.toISOString(),
    }), BOOKKEEPING);
}
