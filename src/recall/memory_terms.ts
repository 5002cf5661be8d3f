/**
 * A memory's index tokens (subject, tags, content), counted and cached per memory version: a version
 * never changes, and tokenizing 200 candidates per query (stemming every word) cost more
 * than the query itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { memoryTokens } from "./memory_terms.ts";
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
 *   content: "Caroline paints sunsets.",
 *   subject: "hobby",
 *   workspace: "friends",
 * });
 * const tokens = memoryTokens((await store.getMemory(memoryId))!);
 * assert.ok(tokens.sorted.includes("carolin"));
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import type { MemoryRecord } from "../store/mod.ts";
import { indexTokens } from "../text/index_terms.ts";
import { countTokens, type TokenCounts } from "./bm25.ts";
import { MEMORY_TOKENS_CACHE_MAX } from "./constants.ts";

const cache = new BoundedMap<string, TokenCounts>(MEMORY_TOKENS_CACHE_MAX);
/**
 * The same, per record object: the store hands out one frozen record while the database is
 * unchanged (src/store/record_cache.ts), and building the key above for 200 candidates was a
 * twentieth of a query at 1,000 memories.
 */
const byRecord = new WeakMap<MemoryRecord, TokenCounts>();

/** The index tokens of the memory's current version, counted (src/recall/bm25.ts). */
export function memoryTokens(memory: MemoryRecord): TokenCounts {
  const held = byRecord.get(memory);
  if (held) return held;
  const key = `${memory.id}:${memory.version}:${memory.updatedAt}`;
  const cached = cache.get(key);
  if (cached) {
    byRecord.set(memory, cached);
    return cached;
  }
  const tokens = countTokens([
    ...indexTokens(memory.subject),
    ...indexTokens(memory.tags.join(" ")),
    ...indexTokens(memory.content),
  ]);
  cache.set(key, tokens);
  byRecord.set(memory, tokens);
  return tokens;
}
