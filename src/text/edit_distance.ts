/**
 * Edit distance with adjacent transpositions (optimal string alignment): how many
 * insertions, deletions, substitutions or swaps of two neighbouring characters turn one
 * word into another. Typing slips are mostly one of these ("educaton", "fesetival",
 * "recieve"), so a query word no memory holds can be matched to the library's words within
 * a small distance.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { editDistance, editDistanceWithin } from "./edit_distance.ts";
 *
 * assert.equal(editDistanceWithin("recieve", "receive", 2), 1);
 * assert.equal(editDistanceWithin("pottery", "battery", 1), 2); // more than the bound: stops early
 * assert.equal(editDistance("edn", "end"), 1);
 * ```
 * @module
 */

/**
 * The distance between `a` and `b` when it is at most `max`, otherwise `max + 1` (the
 * computation stops as soon as every alignment has passed the bound). Compares UTF-16 code
 * units, which is exact for the letters it is used on.
 */
export function editDistanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const width = b.length + 1;
  if (rows.length < 3 * width) rows = new Int32Array(6 * width);
  // Three rows of the table (reused between calls: a lookup compares thousands of words):
  // two back (for a transposition), previous, current.
  let before = 0;
  let previous = width;
  let current = 2 * width;
  for (let j = 0; j < width; j++) rows[previous + j] = j;
  for (let i = 1; i <= a.length; i++) {
    rows[current] = i;
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(
        rows[previous + j] + 1,
        rows[current + j - 1] + 1,
        rows[previous + j - 1] + cost,
      );
      if (
        i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        value = Math.min(value, rows[before + j - 2] + 1);
      }
      rows[current + j] = value;
      if (value < rowBest) rowBest = value;
    }
    if (rowBest > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(rows[previous + b.length], max + 1);
}

let rows = new Int32Array(96);

/** The distance between `a` and `b`, unbounded (names in `did_you_mean` hints). */
export function editDistance(a: string, b: string): number {
  return editDistanceWithin(a, b, Number.MAX_SAFE_INTEGER - 1);
}
