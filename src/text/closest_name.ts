/**
 * Finds the real name a caller most likely meant, for `did_you_mean` hints.
 *
 * @example
 * ```ts
 * import { closestName } from "./src/text/closest_name.ts";
 * closestName("memoryId", ["memory_id", "span"]); // "memory_id"
 * ```
 * @module
 */

function foldName(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

/**
 * Edit distance counting a swap of two neighbouring letters as one edit
 * (optimal string alignment): "edn" is one typo away from "end".
 */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2] + 1);
      }
      current.push(best);
    }
    [before, previous] = [previous, current];
  }
  return previous[b.length];
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
