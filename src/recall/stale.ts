/**
 * Resolved conflicts in recall: a memory still carrying a claim that a resolution replaced
 * (annotated as superseded, or kept as history) ranks below the memories that hold the chosen
 * value, for every question that finds it — and those holders join the page if the question
 * did not find them by their own words, provided they pass the same filters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { findMemories } from "./find.ts";
 * import { demoteStaleClaims } from "./stale.ts";
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
 * const { ranked, added } = await demoteStaleClaims(store, page.items, {
 *   statuses: ["active"],
 * });
 * assert.equal(added, 0); // no stale claim among these
 * assert.equal(ranked[0].memory.id, memoryId);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { RecallFilters, Store } from "../store/mod.ts";
import { STALE_CLAIM_SHARE } from "./constants.ts";
import type { RankedMemory } from "./rank.ts";

/**
 * Scales each stale candidate's score by {@link STALE_CLAIM_SHARE} and raises each holder of
 * the chosen value to at least the stale candidate's score before scaling.
 */
export async function demoteStaleClaims(
  store: Store,
  ranked: readonly RankedMemory[],
  filters: RecallFilters,
): Promise<{ ranked: RankedMemory[]; added: number }> {
  const scored = ranked.filter((item) => item.score > 0);
  const stale = await store.conflicts.staleClaimsOf(scored.map((item) => item.memory.id));
  if (stale.size === 0) return { ranked: [...ranked], added: 0 };
  const byId = new Map(ranked.map((item) => [item.memory.id, { ...item }]));
  const lift = new Map<number, number>();
  for (const [memoryId, claims] of stale) {
    const item = byId.get(memoryId)!;
    for (const claim of claims) {
      for (const holder of claim.holderIds) {
        if (holder === memoryId) continue;
        lift.set(holder, Math.max(lift.get(holder) ?? 0, item.score));
      }
    }
    item.score *= STALE_CLAIM_SHARE;
    const [latest] = [...claims].sort((a, b) => b.conflictId - a.conflictId);
    item.replacedClaim = {
      conflictId: latest.conflictId,
      currentValue: latest.chosenValue,
      holderIds: latest.holderIds,
    };
  }
  // Holders must pass the query's filters (workspace, status, tags, time) like any candidate.
  const allowed = await store.filterMemoryIds([...lift.keys()], filters);
  const missing = [...allowed.keys()].filter((id) => !byId.has(id));
  const records = await store.getMemories(missing);
  let added = 0;
  for (const [holderId, score] of lift) {
    if (!allowed.has(holderId)) continue;
    const existing = byId.get(holderId);
    if (existing) {
      if (stale.has(holderId)) continue;
      existing.score = Math.max(existing.score, score);
      continue;
    }
    const memory = records.get(holderId);
    if (!memory) continue;
    byId.set(holderId, { memory, score, coverage: 0, matchedTerms: [] });
    added++;
  }
  const out = [...byId.values()];
  out.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return { ranked: out, added };
}
