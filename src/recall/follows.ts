/**
 * Sequence context: a memory stored with `follows` (the reply to a question, the
 * next section of a document) inherits part of the relevance of the memory it
 * follows. A reply rarely repeats the words of the question it answers, so without
 * this the question ranks and the answer does not.
 *
 * @example
 * ```ts
 * import { carryToFollowers } from "./src/recall/follows.ts";
 * // ranked = carryToFollowers(store, ranked, filters);
 * ```
 * @module
 */
import type { RecallFilters, Store } from "../store/mod.ts";
import { FOLLOWS_CARRY } from "./constants.ts";
import type { RankedMemory } from "./rank.ts";

/**
 * Re-scores the followers of every positively scored candidate: a follower's score
 * becomes the larger of its own and {@link FOLLOWS_CARRY} times the score of the
 * memory it follows. One hop only, from the scores before carrying, so a long
 * sequence does not pass one hit down its whole length. Followers must pass the
 * same filters; those that were not candidates join the list.
 */
export function carryToFollowers(
  store: Store,
  ranked: readonly RankedMemory[],
  filters: RecallFilters,
): { ranked: RankedMemory[]; added: number } {
  const scored = ranked.filter((item) => item.score > 0);
  const followers = store.followersOf(scored.map((item) => item.memory.id), filters);
  if (followers.size === 0) return { ranked: [...ranked], added: 0 };
  const byId = new Map(ranked.map((item) => [item.memory.id, { ...item }]));
  const baseScore = new Map(ranked.map((item) => [item.memory.id, item.score]));
  const missing = [...followers.keys()].filter((id) => !byId.has(id));
  const records = store.getMemories(missing);
  let added = 0;
  for (const [followerId, followedId] of followers) {
    const carried = FOLLOWS_CARRY * (baseScore.get(followedId) ?? 0);
    const existing = byId.get(followerId);
    if (existing) {
      if (carried > existing.score) {
        existing.score = carried;
        existing.carriedFrom = followedId;
      }
      continue;
    }
    const memory = records.get(followerId);
    if (!memory) continue;
    byId.set(followerId, {
      memory,
      score: carried,
      coverage: 0,
      matchedTerms: [],
      carriedFrom: followedId,
    });
    added++;
  }
  const out = [...byId.values()];
  out.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return { ranked: out, added };
}
