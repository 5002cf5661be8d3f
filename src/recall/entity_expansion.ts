/**
 * Expansion through the entity graph (issue 35): a query that names an entity ("what does the
 * Payments API depend on?") lends part of its best score to the facts that name the entities
 * related to it, so the fact about the other end ("PostgreSQL 16 is pinned for the ledger")
 * can rank although it shares no word with the question. Off unless the lever is set: the
 * LoCoMo dev measurement (docs/benchmarks.md) decides.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { queryEntityKeys } from "./entity_expansion.ts";
 *
 * assert.deepEqual(queryEntityKeys("What does the Payments API depend on?"), ["payments api"]);
 * ```
 * @module
 */
import type { RecallFilters, Store } from "../store/mod.ts";
import { recordPassesFilters } from "../store/mod.ts";
import { extractMentions } from "../entities/extract.ts";
import { aliasKeys, nameKey } from "../entities/names.ts";
import type { RankedMemory } from "./rank.ts";
import { ENTITY_EXPANSION_FACTS, ENTITY_EXPANSION_RELATIONS } from "./constants.ts";

/** The folded names a query mentions (by the same reading facts get). */
export function queryEntityKeys(query: string): string[] {
  const keys = extractMentions(query).mentions.filter((m) => m.kind !== "version")
    .map((m) => nameKey(m.words));
  return [...new Set(keys)];
}

/**
 * Adds `share` of the best score to every fact naming an entity one relation away from an
 * entity the query names (new candidates join the ranking), then sorts again.
 */
export async function expandThroughEntities(
  store: Store,
  ranked: RankedMemory[],
  options: { query: string; share: number; filters: RecallFilters },
): Promise<{ ranked: RankedMemory[]; added: number }> {
  if (options.share <= 0 || ranked.length === 0) return { ranked, added: 0 };
  const keys = queryEntityKeys(options.query);
  if (keys.length === 0) return { ranked, added: 0 };
  const named =
    (await store.entitiesNamed(keys.flatMap((key) => aliasKeys(key)), options.filters.workspaces))
      .filter((entity) => !(options.filters.excludeWorkspaces ?? []).includes(entity.workspace));
  if (named.length === 0) return { ranked, added: 0 };
  const start = new Set(named.map((entity) => entity.id));
  const relations = await store.relationsOf([...start], ENTITY_EXPANSION_RELATIONS);
  const neighbours = [...new Set(relations.flatMap((r) => [r.fromId, r.toId]))]
    .filter((id) => !start.has(id));
  const facts = new Set([
    ...relations.map((relation) => relation.memoryId),
    ...(neighbours.length === 0
      ? []
      : await store.entityMemoryIds(neighbours, ENTITY_EXPANSION_FACTS)),
  ]);
  if (facts.size === 0) return { ranked, added: 0 };
  const bonus = ranked[0].score * options.share;
  const seen = new Set<number>();
  const out = ranked.map((item) => {
    seen.add(item.memory.id);
    return facts.has(item.memory.id) ? { ...item, score: item.score + bonus } : item;
  });
  const missing = await store.getMemories([...facts].filter((id) => !seen.has(id)));
  let added = 0;
  for (const memory of missing.values()) {
    if (!recordPassesFilters(memory, options.filters)) continue;
    out.push({ memory, score: bonus, coverage: 0, matchedTerms: [] });
    added++;
  }
  out.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return { ranked: out, added };
}
