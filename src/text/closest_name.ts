/**
 * Finds the real name a caller most likely meant, for `did_you_mean` hints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closestName } from "./closest_name.ts";
 *
 * assert.equal(closestName("memoryId", ["memory_id", "span"]), "memory_id");
 * ```
 * @module
 */
import { editDistance } from "./edit_distance.ts";

function foldName(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

/**
 * The candidate closest to `name` when it is a plausible misspelling (same
 * letters ignoring case and separators, or within a small edit distance), or
 * undefined when nothing is close.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const folded = foldName(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const target = foldName(candidate);
    if (target === folded) return candidate;
    const distance = editDistance(folded, target);
    // One edit per four letters, at least one: "limt" → "limit", but not "tags" → "span".
    const allowed = Math.max(1, Math.floor(Math.max(folded.length, target.length) / 4));
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
    // A long shared beginning is a near-miss too: "memories" → "memory".
    let prefix = 0;
    while (prefix < folded.length && folded[prefix] === target[prefix]) prefix++;
    const shorter = Math.min(folded.length, target.length);
    if (prefix >= 4 && prefix >= Math.ceil(0.75 * shorter) && bestDistance > allowed) {
      best = candidate;
      bestDistance = allowed;
    }
  }
  return best;
}
