/**
 * A memory's index tokens (subject, tags, content), counted and cached per memory version: a version
 * never changes, and tokenizing 200 candidates per query (stemming every word) cost more
 * than the query itself.
 *
 * @example
 * ```ts
 * import { memoryTokens } from "./src/recall/memory_tokens.ts";
 * // memoryTokens(record).sorted → ["carolin", "paint", "sunset"]
 * ```
 * @module
 */
import type { MemoryRecord } from "../store/mod.ts";
import { indexTokens } from "../text/index_terms.ts";
import { countTokens, type TokenCounts } from "./bm25.ts";
import { MEMORY_TOKENS_CACHE_MAX } from "./constants.ts";

const cache = new Map<string, TokenCounts>();

/** The index tokens of the memory's current version, counted (src/recall/bm25.ts). */
export function memoryTokens(memory: MemoryRecord): TokenCounts {
  const key = `${memory.id}:${memory.version}:${memory.updatedAt}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const tokens = countTokens([
    ...indexTokens(memory.subject),
    ...indexTokens(memory.tags.join(" ")),
    ...indexTokens(memory.content),
  ]);
  if (cache.size >= MEMORY_TOKENS_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, tokens);
  return tokens;
}
