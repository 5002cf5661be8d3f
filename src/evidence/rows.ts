/**
 * Turns a memory version into the rows the store keeps, and schedules their
 * embedding when a vector index is active.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evidenceRowsFor } from "./rows.ts";
 *
 * assert.deepEqual(
 *   evidenceRowsFor("deploys", "We ship on Mondays.").map((r) => r.kind),
 *   ["subject", "sentence"],
 * );
 * ```
 * @module
 */
import { enqueueJob } from "../jobs/queue.ts";
import type { NewEvidenceRow, Store } from "../store/mod.ts";
import { EMBED_JOB_KIND, SUBJECT_ROW_INDEX } from "./constants.ts";
import { segmentMemory } from "./segment.ts";

/** The rows of one memory version: the subject (no offsets) then the content rows. */
export function evidenceRowsFor(subject: string, content: string): NewEvidenceRow[] {
  const { subjectRow, rows } = segmentMemory(subject, content);
  const out: NewEvidenceRow[] = [];
  if (subjectRow) {
    out.push({
      kind: "subject",
      text: subjectRow.text,
      startOffset: null,
      endOffset: null,
      rowIndex: SUBJECT_ROW_INDEX,
    });
  }
  for (const row of rows) {
    out.push({
      kind: row.kind,
      text: row.text,
      startOffset: row.startOffset,
      endOffset: row.endOffset,
      rowIndex: row.rowIndex,
    });
  }
  return out;
}

/**
 * {@linkcode refreshEvidence} for many memories written in one unit (the bulk path). A
 * memory's `rows`, when the writer has them already, must be `evidenceRowsFor` of its text.
 */
export async function refreshEvidenceOfMany(
  store: Store,
  list: readonly {
    id: number;
    version: number;
    subject: string;
    content: string;
    rows?: readonly NewEvidenceRow[];
  }[],
): Promise<void> {
  if (list.length === 0) return;
  await store.replaceRowsOfMany(list.map(({ rows, ...memory }) => ({
    memory,
    rows: rows ?? evidenceRowsFor(memory.subject, memory.content),
  })));
  if (await store.getMeta("embedding_space") !== undefined) {
    await enqueueJob(store, { kind: EMBED_JOB_KIND, dedupeKey: "pending-rows", payload: {} });
  }
}

/**
 * Rewrites a memory's rows for its current version (call inside the write
 * transaction that changed it) and queues embedding when vectors are in use.
 * The write never waits for the embedding.
 */
export async function refreshEvidence(
  store: Store,
  memory: { id: number; version: number; subject: string; content: string },
  options: {
    /** The memory had rows already (an update), so their vectors, if any, go too. */
    replacing?: boolean;
  } = {},
): Promise<void> {
  const embedding = await store.getMeta("embedding_space") !== undefined;
  // Without an embedding space no row has a vector, so there is nothing to delete in order.
  if (embedding && options.replacing) await store.claimKeys([EVIDENCE_REWRITE_CLAIM]);
  await store.replaceRows(memory, evidenceRowsFor(memory.subject, memory.content));
  if (embedding) {
    await enqueueJob(store, { kind: EMBED_JOB_KIND, dedupeKey: "pending-rows", payload: {} });
  }
}

/**
 * The key (`claimKeys`) a unit replacing a stored memory's rows holds while vectors are in use,
 * from before the replacement until it commits, so such units run one at a time (beside
 * remembers, whose new memories have no rows to replace). Replacing rows deletes their vectors,
 * and each PostgreSQL server's vector copy follows the vector change log in sequence order, which
 * is sound only while the units that change vectors commit in the order they logged
 * (docs/ARCHITECTURE.md, "Vectors without pgvector"). Claimed after a unit's memory and text
 * keys, before entity names (src/memory/claims.ts).
 */
export const EVIDENCE_REWRITE_CLAIM = JSON.stringify(["evidence-rewrite"]);
