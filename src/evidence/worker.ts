/**
 * The background evidence worker of a serving process: writes rows missing
 * for older memories and embeds rows that lack a vector, as durable jobs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SemanticIndex } from "./semantic.ts";
 * import { startEvidenceWorker } from "./worker.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const semantic = new SemanticIndex(store, { modelsDir: `${dir}/models` });
 * const worker = await startEvidenceWorker(store, semantic);
 * await worker.stop();
 * assert.equal((await semantic.describe()).state, "off");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { enqueueJob } from "../jobs/queue.ts";
import { type JobHandler, type JobWorker, startJobWorker } from "../jobs/worker.ts";
import type { Store } from "../store/mod.ts";
import { ProviderUnavailable } from "../models/provider_embedder.ts";
import { logWarn } from "../platform/log.ts";
import { nowIso } from "../platform/clock.ts";
import {
  EMBED_JOB_KIND,
  EVIDENCE_ROWS_COMPLETE_KEY,
  EVIDENCE_WORKER_START_DELAY_MS,
  REBUILD_DEDUPE_KEY,
  REBUILD_JOB_KIND,
  ROW_BACKFILL_BATCH,
} from "./constants.ts";
import { backfillRows, type SemanticIndex } from "./semantic.ts";

/**
 * Runs the embed job: backfill rows (until a pass finds none: `rows.complete`), then embed
 * until nothing is left. Every write stores its memory's rows in its own transaction, so
 * only a database from before rows existed needs the backfill, and its search for memories
 * without rows reads the whole library (~50 ms at 100k): it is not repeated once it came
 * back empty.
 */
export async function runEvidenceJob(
  store: Store,
  semantic: SemanticIndex,
  rows: { complete: boolean } = { complete: false },
): Promise<void> {
  // Each batch commits on its own; between batches, requests get a turn.
  while (!rows.complete) {
    if (await backfillRows(store, ROW_BACKFILL_BATCH) === 0) {
      rows.complete = true;
      await markRowsComplete(store);
    } else await new Promise((resolve) => setTimeout(resolve, 0));
  }
  if ((await semantic.usable())) await semantic.awaitQuietLoad();
  try {
    await semantic.embedPendingRows();
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    // The model server is out: the job is not a failure (it would be poisoned after a few
    // tries); it comes back when the server is tried again, and the rows wait unembedded.
    logWarn(`embedding waits for the model server: ${error.reason}`);
    await store.write(async () =>
      await enqueueJob(
        store,
        { kind: EMBED_JOB_KIND, dedupeKey: "pending-rows", payload: {} },
        new Date(error.retryAt),
      ), { durable: false });
  }
}

/**
 * Runs the rebuild job after a model change: switches the index to the configured model's space
 * (the embed job it queues then fills it in slices). While a model server that must be asked its
 * dimension is away, the job waits for the server's retry time instead of failing.
 */
export async function runRebuildJob(store: Store, semantic: SemanticIndex): Promise<void> {
  const state = (await semantic.describe()).state;
  if (state === "off" || state === "unavailable") return;
  await semantic.awaitQuietLoad();
  try {
    await semantic.switchToConfiguredSpace();
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    logWarn(`the vector index rebuild waits for the model server: ${error.reason}`);
    await store.write(async () =>
      await enqueueJob(
        store,
        { kind: REBUILD_JOB_KIND, dedupeKey: REBUILD_DEDUPE_KEY, payload: {} },
        new Date(error.retryAt),
      ), { durable: false });
  }
}

/**
 * Starts the worker, and queues one evidence job when there is work left from
 * before (rows missing, or vectors missing for the configured model), or the rebuild job when
 * the index holds another model's space.
 */
export async function startEvidenceWorker(
  store: Store,
  semantic: SemanticIndex,
  otherHandlers: Record<string, JobHandler> = {},
): Promise<JobWorker> {
  const state = (await semantic.describe()).state;
  const known = await store.read(async () => await store.getMeta(EVIDENCE_ROWS_COMPLETE_KEY));
  const missingRows = !known &&
    (await store.read(async () => await store.memoriesMissingRows(1))).length > 0;
  if (!known && !missingRows) await markRowsComplete(store);
  if (missingRows || state === "indexing") {
    await store.writeBlocking(async () =>
      await enqueueJob(store, { kind: EMBED_JOB_KIND, dedupeKey: "pending-rows", payload: {} })
    );
  }
  if (state === "mismatch") await semantic.queueRebuild();
  const rows = { complete: !missingRows };
  return startJobWorker(store, {
    ...otherHandlers,
    [EMBED_JOB_KIND]: () => runEvidenceJob(store, semantic, rows),
    [REBUILD_JOB_KIND]: () => runRebuildJob(store, semantic),
  }, { pollMs: EVIDENCE_WORKER_START_DELAY_MS });
}

/**
 * Records that every memory has its evidence rows ({@linkcode EVIDENCE_ROWS_COMPLETE_KEY}): a
 * new database from its creation, any other once a search for memories without rows found none.
 */
export async function markRowsComplete(store: Store): Promise<void> {
  if (store.capabilities.readOnly !== undefined) return;
  await store.writeBlocking(async () => await store.setMeta(EVIDENCE_ROWS_COMPLETE_KEY, nowIso()));
}
