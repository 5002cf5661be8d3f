/**
 * The evidence channel: nearest rows to the query vector, kept only when their
 * memory passes the filters and the row belongs to the memory's current
 * version, then aggregated per memory.
 *
 * @example
 * ```ts
 * import { vectorCandidates } from "./src/recall/vector.ts";
 * // vectorCandidates(store, queryVector, { filters, floor: 0.8 })
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
export function vectorCandidates(
  store: Store,
  vector: Float32Array,
  options: { filters: RecallFilters; floor: number },
): VectorHit[] {
  if (!hasDirection(vector)) return [];
  const nearest = store.nearestCurrentRows(vector, VECTOR_K_ROWS, options.filters);
  const byMemory = new Map<number, { cosines: number[]; rowIds: number[] }>();
  for (const { rowId, distance, memoryId } of nearest) {
    if (!Number.isFinite(distance)) continue;
    const entry = byMemory.get(memoryId) ?? { cosines: [], rowIds: [] };
    // Float rounding can put a same-direction row a hair below distance 0.
    entry.cosines.push(Math.min(1, 1 - distance));
    entry.rowIds.push(rowId);
    byMemory.set(memoryId, entry);
  }
  const hits: VectorHit[] = [];
  for (const [memoryId, { cosines, rowIds }] of byMemory) {
    const best = cosines[0];
    if (best < options.floor) continue;
    const support = cosines.slice(1, 1 + VECTOR_SUPPORT_ROWS)
      .reduce((sum, cosine) => sum + Math.max(0, cosine - options.floor), 0);
    // Only rows nearly as close as the best one count as hits (they become hit spans).
    const hitRows = rowIds.filter((_, i) => cosines[i] >= best - VECTOR_HIT_ROW_MARGIN);
    hits.push({
      memoryId,
      cosine: best,
      score: best + VECTOR_SUPPORT_WEIGHT * support,
      rowIds: hitRows,
    });
  }
  hits.sort((a, b) => b.score - a.score || b.memoryId - a.memoryId);
  return hits;
}
