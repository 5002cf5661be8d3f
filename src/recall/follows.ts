/**
 * Sequence context: a memory stored with `follows` (the reply to a question, the
 * next section of a document) inherits part of the relevance of the memory it
 * follows. A reply rarely repeats the words of the question it answers, so without
 * this the question ranks and the answer does not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { carryToFollowers } from "./follows.ts";
 * import { recallTuning } from "./tuning.ts";
 * import { findMemories } from "./find.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * const page = await findMemories(ctx, { query: "Fridays" });
 * // Nothing follows this memory: the ranking stays as it was.
 * const filters = { statuses: ["active" as const] };
 * const carried = await carryToFollowers(store, page.items, filters, recallTuning());
 * assert.equal(carried.added, 0);
 * assert.deepEqual(carried.ranked.map((item) => item.memory.id), [memoryId]);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { RecallFilters, Store } from "../store/mod.ts";
import type { RankedMemory } from "./rank.ts";
import type { RecallTuning } from "./tuning.ts";

/**
 * Re-scores the followers of every positively scored candidate: a follower's score
 * becomes the larger of its own and `followsCarry` times the score of the memory it
 * follows; the follower's own follower gets `followsHopShare` of that, up to
 * `followsHops` memories down the sequence (one indexed query per hop), always from the
 * scores before carrying, so a long sequence does not pass one hit down its whole length.
 * With `followsThroughHits`, a hit's carry also continues past a follower that is a hit
 * itself (a question between the statement and its answer).
 * Every memory reached must pass the same filters; those that were not candidates join the list.
 */
export async function carryToFollowers(
  store: Store,
  ranked: readonly RankedMemory[],
  filters: RecallFilters,
  tuning: Pick<
    RecallTuning,
    "followsCarry" | "followsHops" | "followsHopShare" | "followsThroughHits"
  >,
): Promise<{ ranked: RankedMemory[]; added: number }> {
  const scored = ranked.filter((item) => item.score > 0);
  // Each link: the memory reached, the hit it owes its score to, the score it is lent.
  const links: { to: number; from: number; score: number }[] = [];
  // The first hop's followers before anything else: most libraries have no sequences.
  const first = tuning.followsCarry > 0 && tuning.followsHops > 0
    ? await store.followersOf(scored.map((item) => item.memory.id), filters)
    : new Map<number, number>();
  if (first.size > 0) {
    // Forwards, hop by hop: each hop lends a share of what the previous hop received.
    let frontier = new Map(scored.map((item) => [item.memory.id, {
      origin: item.memory.id,
      score: tuning.followsCarry * item.score,
    }]));
    const reached = new Set(frontier.keys());
    for (let hop = 1; hop <= tuning.followsHops && frontier.size > 0; hop++) {
      const followers = hop === 1 ? first : await store.followersOf([...frontier.keys()], filters);
      const next = new Map<number, { origin: number; score: number }>();
      for (const [to, from] of followers) {
        const lender = frontier.get(from)!;
        links.push({ to, from: lender.origin, score: lender.score });
        if (reached.has(to) && !tuning.followsThroughHits) continue;
        reached.add(to);
        // A memory lent to by several goes on with the largest share.
        const score = lender.score * tuning.followsHopShare;
        if ((next.get(to)?.score ?? -Infinity) < score) {
          next.set(to, { origin: lender.origin, score });
        }
      }
      frontier = next;
    }
  }
  if (links.length === 0) return { ranked: [...ranked], added: 0 };
  // Items are copied only when a carry raises them (copying all 200 was most of this step's
  // garbage).
  const out = [...ranked];
  const position = new Map<number, number>();
  out.forEach((item, at) => position.set(item.memory.id, at));
  const records = await store.getMemories([...new Set(links.map((link) => link.to))]
    .filter((id) => !position.has(id)));
  let added = 0;
  for (const { to, from, score } of links) {
    const at = position.get(to);
    if (at !== undefined) {
      if (score > out[at].score) out[at] = { ...out[at], score, carriedFrom: from };
      continue;
    }
    const memory = records.get(to);
    if (!memory) continue;
    position.set(to, out.length);
    out.push({ memory, score, coverage: 0, matchedTerms: [], carriedFrom: from });
    added++;
  }
  out.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return { ranked: out, added };
}
