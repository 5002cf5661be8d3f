/**
 * A small seeded generator for property and fuzz tests, so a failing case can be replayed
 * from its seed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { seededRandom } from "./random.ts";
 *
 * const first = seededRandom(7)();
 * assert.equal(seededRandom(7)(), first); // the same number every run
 * assert.ok(first >= 0 && first < 1);
 * ```
 * @module
 */

/** mulberry32: uniform in [0, 1), deterministic for a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
