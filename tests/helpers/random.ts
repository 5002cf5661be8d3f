/**
 * A small seeded generator for property and fuzz tests, so a failing case can be replayed
 * from its seed.
 *
 * @example
 * ```ts
 * import { seededRandom } from "./tests/helpers/random.ts";
 * const random = seededRandom(7);
 * random(); // the same number every run, in [0, 1)
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
