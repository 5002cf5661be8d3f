/**
 * What `find` reads about its candidate pool, asked all at once: the records, their recorded
 * use, the memories following them and their stale claims. The ranking steps ask for these one
 * after another (src/recall/usage.ts, follows.ts, stale.ts), each on a subset of the pool; on
 * PostgreSQL every ask was a round trip of its own, four of a `find`'s eight, while asked
 * together they go out on the read unit's connection in one pipelined write
 * (bench/find_profile.ts --db-url counts them).
 *
 * {@linkcode readCandidates} answers with the records and a view of the store that answers
 * those three questions from what was read, for any ids of the pool, and asks the store only
 * about ids outside it (memories a later step added).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { readCandidates } from "./candidate_reads.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 * };
 * const filters = { statuses: ["active" as const] };
 * const read = await readCandidates(ctx, [1, 2], { filters, usage: true, follows: true });
 * assert.equal(read.records.size, 0); // an empty library
 * assert.equal((await read.store.followersOf([1], filters)).size, 0);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { MemoryRecord, RecallFilters, Store } from "../store/mod.ts";

/** The ids of `asked` inside and outside `known`. */
function split(asked: readonly number[], known: ReadonlySet<number>) {
  const inside: number[] = [];
  const outside: number[] = [];
  for (const id of asked) (known.has(id) ? inside : outside).push(id);
  return { inside, outside };
}

/**
 * Reads the records of `ids` together with their use (when `usage`: the ledger's unwritten
 * uses included), their followers under `filters` (when `follows`) and their stale claims.
 */
export async function readCandidates(
  ctx: Pick<ServiceContext, "store" | "usage">,
  ids: readonly number[],
  options: { filters: RecallFilters; usage: boolean; follows: boolean },
): Promise<{ records: Map<number, MemoryRecord>; store: Store }> {
  const { store } = ctx;
  const [records, usage, followers, stale] = await Promise.all([
    store.getMemories(ids),
    options.usage ? (ctx.usage ? ctx.usage.stats(ids) : store.accessStats(ids)) : undefined,
    options.follows ? store.followersOf(ids, options.filters) : undefined,
    store.conflicts.staleClaimsOf(ids),
  ]);
  const known = new Set(ids);
  const answering: Store = {
    ...store,
    async accessStats(asked) {
      const { inside, outside } = split(asked, known);
      if (usage === undefined) return await store.accessStats(asked);
      const out = outside.length > 0 ? await store.accessStats(outside) : new Map();
      for (const id of inside) {
        const stat = usage.get(id);
        if (stat !== undefined) out.set(id, stat);
      }
      return out;
    },
    async followersOf(asked, filters) {
      // Read under the same filters only; the steps pass find's own.
      if (followers === undefined || filters !== options.filters) {
        return await store.followersOf(asked, filters);
      }
      const { inside, outside } = split(asked, known);
      const out = outside.length > 0 ? await store.followersOf(outside, filters) : new Map();
      const wanted = new Set(inside);
      for (const [follower, followed] of followers) {
        if (wanted.has(followed)) out.set(follower, followed);
      }
      return out;
    },
    conflicts: {
      ...store.conflicts,
      async staleClaimsOf(asked) {
        const { inside, outside } = split(asked, known);
        const out = outside.length > 0
          ? await store.conflicts.staleClaimsOf(outside)
          : new Map() as typeof stale;
        for (const id of inside) {
          const claims = stale.get(id);
          if (claims !== undefined) out.set(id, claims);
        }
        return out;
      },
    },
  };
  return { records, store: answering };
}
