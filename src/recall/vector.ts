/**
 * The evidence channel: nearest rows to the query vector, kept only when their
 * memory passes the filters and the row belongs to the memory's current
 * version, then aggregated per memory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { vectorCandidates } from "./vector.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * // An empty library (or one without vectors) has no neighbours.
 * const hits = await vectorCandidates(store, new Float32Array(100).fill(0.1), {
 *   filters: { statuses: ["active"] },
 *   floor: 0.8,
 * });
 * assert.deepEqual(hits, []);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { hasDirection } from "../models/vectors.ts";
import type { RecallFilters, Store } from "../store/mod.ts";
import {
  VECTOR_HIT_ROW_MARGIN,
  VECTOR_K_ROWS,
  VECTOR_SUPPORT_ROWS,
  VECTOR_SUPPORT_WEIGHT,
} from "./constants.ts";

/** One memory found by meaning. */
export interface VectorHit {
  memoryId: number;
  /** Cosine of the best row. */
  cosine: number;
  /** Best row plus supporting rows, cosine included. */
  score: number;
  /** Rows within the hit margin of the best row, best first. */
  rowIds: number[];
}

/**
 * Vector hits for a query, best first, each memory once. A query vector without a direction
 * (no word the model knows) finds nothing, and a distance that is not a finite number (a
 * zero vector stored by an older build) is never read as a similarity.
 */
export async function vectorCandidates(
  store: Store,
  vector: Float32Array,
  options: { filters: RecallFilters; floor: number },
): Promise<VectorHit[]> {
  if (!hasDirection(vector)) return [];
  const nearest = await store.nearestCurrentRows(vector, VECTOR_K_ROWS, options.filters);
  // Nearest first, so a memory's first row is its best; the next VECTOR_SUPPORT_ROWS support it,
  // and rows nearly as close as the best are its hit rows (they become hit spans).
  const byMemory = new Map<
    number,
    { best: number; support: number; seen: number; rowIds: number[] }
  >();
  for (const { rowId, distance, memoryId } of nearest) {
    if (!Number.isFinite(distance)) continue;
    // Float rounding can put a same-direction row a hair below distance 0.
    const cosine = Math.min(1, 1 - distance);
    const entry = byMemory.get(memoryId);
    if (entry === undefined) {
      byMemory.set(memoryId, { best: cosine, support: 0, seen: 1, rowIds: [rowId] });
      continue;
    }
    if (entry.seen <= VECTOR_SUPPORT_ROWS) entry.support += Math.max(0, cosine - options.floor);
    entry.seen++;
    if (cosine >= entry.best - VECTOR_HIT_ROW_MARGIN) entry.rowIds.push(rowId);
  }
  const hits: VectorHit[] = [];
  byMemory.forEach(({ best, support, rowIds }, memoryId) => {
    if (best < options.floor) return;
    hits.push({ memoryId, cosine: best, score: best + VECTOR_SUPPORT_WEIGHT * support, rowIds });
  });
  hits.sort((a, b) => b.score - a.score || b.memoryId - a.memoryId);
  return hits;
}
