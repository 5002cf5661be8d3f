/**
 * The plan of a bulk write's conflict checks (issue 38). A big batch (an import chunk, a
 * `batch_remember` of more than {@linkcode DETECT_VECTOR_BACKLOG_MAX} facts) queues its versions
 * as a job no worker claims ({@linkcode DETECT_UNPLANNED_JOB_KIND}), and makes sure the plan's
 * job ({@linkcode DETECT_PLAN_JOB_KIND}) is queued. That job first takes waiting batches into the
 * plan (the store's `check_plan`): it reads them a few at a time, keys their members by their
 * words, and writes thousands at once, sorted, in the transaction that deletes their jobs. Then it
 * works through the plan in key order, a run at a time (batch_check.ts, `runPlanCheck`).
 *
 * Why the order matters: a check reads its memory's word neighbours, their claim rows, and
 * compares row pairs. Memories alike in words have the same neighbours, so checked one after
 * another they find those neighbours' rows and readings in the run's memo and their pairs
 * compared from the other side already; in import order they are as far apart as the library
 * is large (a chat imported as conversations: one turn's copies are a conversation apart). The
 * order changes nothing a check meets: every member is compared with the neighbours its own
 * lookup finds, as when checked alone.
 *
 * The key is a sketch of the content's words: the three smallest 32-bit hashes of its distinct
 * words (letters only, stopwords left out: the numbers and ids that differ between otherwise
 * alike memories are no words here), 17 bits of each, smallest first, so plan order is their order. Memories that
 * share those three words are side by side; one smallest hash alone put most memories of a
 * library behind a handful of common words (189 keys for 1M chat turns), where alike memories
 * were as far apart as in import order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planKey } from "./check_plan.ts";
 *
 * const key = planKey(["deploy", "friday", "alice"]);
 * assert.equal(planKey(["alice", "friday", "deploy", "deploy", "2024"]), key);
 * assert.notEqual(planKey(["backup", "monday", "alice"]), key);
 * assert.ok(Number.isSafeInteger(key));
 * ```
 * @module
 */
import { enqueueJob } from "../jobs/queue.ts";
import type { PlannedCheck, Store } from "../store/mod.ts";
import { isStopword } from "../text/words.ts";
import {
  DETECT_PLAN_JOB_KIND,
  DETECT_UNPLANNED_JOB_KIND,
  DETECT_VECTOR_BACKLOG_MAX,
} from "./constants_pipeline.ts";
import { batchKey, memberRuns } from "./batch_runs.ts";

/** Hashes in a key, and the bits kept of each (3 × 17 = 51: a safe integer). */
const SKETCH_HASHES = 3;
const SKETCH_BITS = 17;

/** The plan key of a text's words (see the module documentation). */
export function planKey(words: readonly string[]): number {
  // The smallest hashes, kept sorted; a text with fewer words fills with the largest hash.
  const smallest = new Array<number>(SKETCH_HASHES).fill(0xffff_ffff);
  const seen = new Set<string>();
  for (const word of words) {
    if (seen.has(word) || /\d/.test(word)) continue;
    seen.add(word);
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
    hash >>>= 0;
    if (hash >= smallest[SKETCH_HASHES - 1]) continue;
    let at = SKETCH_HASHES - 1;
    while (at > 0 && smallest[at - 1] > hash) {
      smallest[at] = smallest[at - 1];
      at--;
    }
    smallest[at] = hash;
  }
  let key = 0;
  for (const hash of smallest) {
    key = key * 2 ** SKETCH_BITS + Math.floor(hash / 2 ** (32 - SKETCH_BITS));
  }
  return key;
}

/**
 * The plan key of a memory's content: {@linkcode planKey} of its words as letters only (numbers
 * and ids left out), lower-cased, stopwords left out. Not the index's stemmed tokens: stemming a
 * million texts was half of taking an import into the plan, and alike texts share their words
 * as written.
 */
export function planKeyOf(content: string): number {
  const words = content.toLowerCase().match(LETTERS) ?? [];
  return planKey(words.filter((word) => !isStopword(word)));
}

const LETTERS = /\p{L}+/gu;

/** The key of a text without words to hash (every hash at its largest): planned last. */
export const NO_WORDS_KEY = planKey([]);

/** True when a batch of this many memory versions is planned rather than queued as one job. */
export function planned(members: number): boolean {
  return members > DETECT_VECTOR_BACKLOG_MAX;
}

/**
 * Queues a bulk write's versions for the plan (inside the write's unit of work: durable with
 * it) and makes sure the plan's job is queued. Written as one small job in the chunk's order;
 * keyed and sorted into the plan later, many batches at once (see the module documentation).
 */
export async function queueForPlan(
  store: Store,
  versions: readonly (readonly [number, number])[],
): Promise<void> {
  await enqueueJob(store, {
    kind: DETECT_UNPLANNED_JOB_KIND,
    dedupeKey: batchKey(versions),
    payload: { runs: memberRuns(versions) },
  });
  await queuePlanJob(store);
}

/** Queues the plan's job unless one is pending already. */
export async function queuePlanJob(store: Store): Promise<void> {
  await enqueueJob(store, {
    kind: DETECT_PLAN_JOB_KIND,
    dedupeKey: DETECT_PLAN_JOB_KIND,
    payload: {},
  });
}

/** Sorts planned checks into plan order: key, then memory id and version. */
export function inPlanOrder(checks: PlannedCheck[]): PlannedCheck[] {
  return checks.sort((a, b) =>
    a.groupKey - b.groupKey || a.memoryId - b.memoryId || a.version - b.version
  );
}
