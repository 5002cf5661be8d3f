/**
 * Usage-aware ranking (issue 39): memories an agent keeps using resist the slow fade of
 * unused ones. `find` (its top results), `read` and `batch_read` record a use in the
 * {@linkcode UsageLedger}, in memory; the ledger writes the counts in the background, in
 * slices of {@linkcode USAGE_FLUSH_SLICE} memories, and once more at shutdown, so no call
 * waits on a disk write and a crash loses at most the last seconds of counts, never a memory.
 *
 * The rerank adds {@linkcode usageNudge}: `weight × 0.5^(days since last use / stability)`,
 * with `stability = half-life × (1 + consolidation × log2(uses + 1))` (the seed's formula). A
 * memory never used gets nothing; one used often stays nudged for longer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usageNudge, USAGE_RANKING_DEFAULT } from "./usage.ts";
 *
 * const now = Date.parse("2026-03-01T00:00:00Z");
 * const once = { count: 1, lastAccessed: "2026-02-01T00:00:00.000Z" };
 * const often = { count: 15, lastAccessed: "2026-02-01T00:00:00.000Z" };
 * assert.ok(usageNudge(often, now, USAGE_RANKING_DEFAULT) > usageNudge(once, now, USAGE_RANKING_DEFAULT));
 * assert.equal(usageNudge(undefined, now, USAGE_RANKING_DEFAULT), 0);
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { AccessStat, MemoryAccess, Store } from "../store/mod.ts";
import type { RankedMemory } from "./rank.ts";
import { logWarn } from "../platform/log.ts";
import {
  USAGE_CLOSE_FLUSH_MS,
  USAGE_CONSOLIDATION,
  USAGE_FLUSH_DELAY_MS,
  USAGE_FLUSH_SLICE,
  USAGE_HALF_LIFE_DAYS,
  USAGE_PENDING_MAX,
  USAGE_RETRY_DELAY_MS,
  USAGE_TIE_BAND,
  USAGE_WEIGHT,
} from "./usage_constants.ts";

const DAY_MS = 86_400_000;

/** The key (`claimKeys`) a flush of use counts claims: flushes run one at a time. */
const USAGE_FLUSH_KEY = "usage-flush";

/** How usage nudges the ranking (config `usage_ranking`). */
export interface UsageRanking {
  /** Off: no nudge (uses are still counted). */
  enabled: boolean;
  halfLifeDays: number;
  consolidation: number;
}

/** The shipped usage ranking. */
export const USAGE_RANKING_DEFAULT: Readonly<UsageRanking> = {
  enabled: true,
  halfLifeDays: USAGE_HALF_LIFE_DAYS,
  consolidation: USAGE_CONSOLIDATION,
};

/** The score a memory's use adds in the rerank (0 when never used or the nudge is off). */
export function usageNudge(
  stat: AccessStat | undefined,
  now: number,
  ranking: UsageRanking,
): number {
  if (!ranking.enabled || stat === undefined || stat.count <= 0 || stat.lastAccessed === null) {
    return 0;
  }
  const days = Math.max(0, (now - Date.parse(stat.lastAccessed)) / DAY_MS);
  const stability = ranking.halfLifeDays * (1 + ranking.consolidation * Math.log2(stat.count + 1));
  return USAGE_WEIGHT * Math.pow(0.5, days / stability);
}

/**
 * Orders near-ties by use (unchanged when the nudge is off or no candidate was ever used): the
 * candidates, in score order, fall into runs whose scores lie within
 * {@linkcode USAGE_TIE_BAND} of the run's first; inside a run the larger usage nudge goes first,
 * and scores are never changed, so a used memory wins a tie but never passes a better match. Only
 * candidates that could reach the page (the first `pageEnd`, and those tied with its last) are
 * looked up: one lookup by id.
 */
export async function nudgeByUse(
  ctx: ServiceContext,
  ranked: RankedMemory[],
  options: { now: number; pageEnd: number },
): Promise<RankedMemory[]> {
  const ranking = ctx.settings.usageRanking ?? USAGE_RANKING_DEFAULT;
  if (!ranking.enabled || ranked.length === 0) return ranked;
  const { now } = options;
  const last = ranked[Math.min(options.pageEnd, ranked.length) - 1].score;
  const floor = last - Math.abs(last) * USAGE_TIE_BAND;
  let reach = 0;
  while (reach < ranked.length && ranked[reach].score >= floor) reach++;
  const ids = ranked.slice(0, reach).map((item) => item.memory.id);
  const stats = ctx.usage ? await ctx.usage.stats(ids) : await ctx.store.accessStats(ids);
  if (stats.size === 0) return ranked;
  const nudge = new Map<number, number>();
  for (const id of ids) nudge.set(id, usageNudge(stats.get(id), now, ranking));
  const ordered: RankedMemory[] = [];
  let start = 0;
  while (start < reach) {
    const head = ranked[start].score;
    let end = start + 1;
    while (end < reach && head - ranked[end].score <= Math.abs(head) * USAGE_TIE_BAND) end++;
    const run = ranked.slice(start, end);
    // A stable sort: equal nudges keep the score order.
    run.sort((a, b) => (nudge.get(b.memory.id) ?? 0) - (nudge.get(a.memory.id) ?? 0));
    ordered.push(...run);
    start = end;
  }
  return [...ordered, ...ranked.slice(reach)];
}

/**
 * Uses counted in memory and written in the background. One per serving process; every
 * caller's context shares it.
 */
export class UsageLedger {
  readonly #store: Store;
  readonly #pending = new Map<number, { count: number; at: string }>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;
  #dropped = 0;
  /** A failed flush was reported and none has succeeded since (one warning per outage). */
  #warned = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Uses not yet written, by memory. */
  get pendingMemories(): number {
    return this.#pending.size;
  }

  /** Counts one use of each of `ids` at `at`; schedules a background flush. */
  record(ids: readonly number[], at: string = new Date().toISOString()): void {
    if (this.#closed || this.#store.capabilities.readOnly !== undefined) return;
    for (const id of new Set(ids)) {
      const entry = this.#pending.get(id);
      if (entry) {
        entry.count++;
        if (at > entry.at) entry.at = at;
      } else if (this.#pending.size < USAGE_PENDING_MAX) {
        this.#pending.set(id, { count: 1, at });
      } else this.#dropped++;
    }
    this.#schedule(USAGE_FLUSH_DELAY_MS);
  }

  /** The recorded use of `ids`: the stored counts plus the ones not yet written. */
  async stats(ids: readonly number[]): Promise<Map<number, AccessStat>> {
    const stored = await this.#store.accessStats(ids);
    return withPending(stored, ids, this.#pending);
  }

  /** Writes every unwritten use now, slice by slice (tests and shutdown). */
  async flush(): Promise<void> {
    // One flush at a time; one that failed does not stop the next.
    const run = this.#flushing.catch(() => {}).then(() => this.#drain());
    this.#flushing = run;
    await run;
  }

  /** Stops the timer and writes what is left, for at most {@linkcode USAGE_CLOSE_FLUSH_MS}. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) =>
      timeout = setTimeout(resolve, USAGE_CLOSE_FLUSH_MS)
    );
    await Promise.race([this.flush().catch(() => {}), late]);
    clearTimeout(timeout);
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().then(() => this.#warned = false, (error) => {
        if (!this.#warned) logWarn(`usage counts not written yet (retrying every 30 s): ${error}`);
        this.#warned = true;
        this.#schedule(USAGE_RETRY_DELAY_MS);
      });
    }, delayMs);
  }

  /** Writes the pending uses in slices; a failed slice goes back to the ledger and throws. */
  async #drain(): Promise<void> {
    if (this.#dropped > 0) {
      logWarn(`${this.#dropped} memory uses were not counted (too many waiting to be written)`);
      this.#dropped = 0;
    }
    while (this.#pending.size > 0) {
      const slice: MemoryAccess[] = [];
      for (const [memoryId, entry] of this.#pending) {
        slice.push({ memoryId, count: entry.count, at: entry.at });
        this.#pending.delete(memoryId);
        if (slice.length >= USAGE_FLUSH_SLICE) break;
      }
      try {
        // Not synced on its own: a power cut may lose these counts, which only nudge ranking.
        // Beside remembers on a shared database; two servers' flushes of the same memories
        // take turns (each locks its rows in its own order, so side by side they could
        // deadlock).
        await this.#store.write(async (tx) => {
          await tx.claimKeys([USAGE_FLUSH_KEY]);
          return await tx.addAccesses(slice);
        }, { durable: false, concurrent: true });
      } catch (error) {
        for (const access of slice) this.#putBack(access);
        throw error;
      }
      // Between slices, requests waiting for the connection go first.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  #putBack(access: MemoryAccess): void {
    const entry = this.#pending.get(access.memoryId);
    if (entry) {
      entry.count += access.count;
      if (access.at > entry.at) entry.at = access.at;
    } else if (this.#pending.size < USAGE_PENDING_MAX) {
      this.#pending.set(access.memoryId, { count: access.count, at: access.at });
    }
  }
}

/** Stored stats with the unwritten uses of `ids` added. */
function withPending(
  stored: Map<number, AccessStat>,
  ids: readonly number[],
  pending: ReadonlyMap<number, { count: number; at: string }>,
): Map<number, AccessStat> {
  if (pending.size === 0) return stored;
  for (const id of ids) {
    const extra = pending.get(id);
    if (!extra) continue;
    const known = stored.get(id);
    const last = known?.lastAccessed ?? null;
    stored.set(id, {
      count: (known?.count ?? 0) + extra.count,
      lastAccessed: last === null || extra.at > last ? extra.at : last,
    });
  }
  return stored;
}
