/**
 * Reciprocal-rank fusion: each ranked list contributes `weight / (k + rank)`
 * for every id it holds, so agreement between channels wins without their raw
 * scores having to be comparable.
 *
 * @example
 * ```ts
 * import { fuseRankings } from "./src/recall/fusion.ts";
 * fuseRankings([{ ids: [3, 1], weight: 1 }, { ids: [1, 2], weight: 1 }], 60).get(1); // 2/61
 * ```
 * @module
 */

/** One ranked list (best first) and its weight. */
export interface RankedList {
  ids: readonly number[];
  weight: number;
}

/** Fused score per id. Ranks are 1-based. */
export function fuseRankings(lists: readonly RankedList[], k: number): Map<number, number> {
  const fused = new Map<number, number>();
  for (const list of lists) {
    list.ids.forEach((id, index) => {
      fused.set(id, (fused.get(id) ?? 0) + list.weight / (k + index + 1));
    });
  }
  return fused;
}
