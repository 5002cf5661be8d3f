/**
 * A memory's index tokens (subject, tags, content), cached per memory version: a version
 * never changes, and tokenizing 200 candidates per query (stemming every word) cost more
 * than the query itself.
 *
 * @example
 * ```ts
 * import { memoryTokens } from "./src/recall/memory_tokens.ts";
 * // memoryTokens(record) → ["carolin", "paint", "sunset"]
 * ```
 * @module
 */
import type { MemoryRecord } from "../store/mod.ts";
import { indexTokens } from "../text/index_terms.ts";
import { MEMORY_TOKENS_CACHE_MAX } from "./constants.ts";

const cache = new Map<string, readonly string[]>();
/** The same by record object: the store hands out one frozen record while nothing changes. */
const byRecord = new WeakMap<MemoryRecord, readonly string[]>();

/** The index tokens of the memory's current version. */
export function memoryTokens(memory: MemoryRecord): readonly string[] {
  const known = byRecord.get(memory);
  if (known) return known;
  const key = `${memory.id}:${memory.version}:${memory.updatedAt}`;
  const cached = cache.get(key);
  if (cached) {
    byRecord.set(memory, cached);
    return cached;
  }
  const tokens = [
    ...indexTokens(memory.subject),
    ...indexTokens(memory.tags.join(" ")),
    ...indexTokens(memory.content),
  ];
  if (cache.size >= MEMORY_TOKENS_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, tokens);
  byRecord.set(memory, tokens);
  return tokens;
}
