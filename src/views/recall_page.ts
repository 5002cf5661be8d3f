/**
 * A page of recall as users see it: the ranked memories plus what each answer carries besides
 * them — hit spans, conflict signals (docs/SPEC.md §6), linked open items (docs/SPEC.md §6), and a
 * warning when the semantic channel failed for this call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { findPage } from "./recall_page.ts";
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
 * const { page } = await findPage(ctx, { query: "when do deploys run" });
 * assert.equal(page.items[0].memory.id, memoryId);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { HIT_WINDOW_DEFAULT, LINKED_OPEN_ITEMS_MAX, TODO_TAG } from "../recall/constants.ts";
import {
  batchFindMemories,
  type BatchFindPage,
  type BatchQuery,
  type FindInput,
  findMemories,
  type FindPage,
} from "../recall/find.ts";
import { type HitView, hitViewsFor } from "../recall/hits.ts";
import type { RankedMemory } from "../recall/rank.ts";
import { queryWords } from "../recall/query_weights.ts";
import { QUERY_IDF_WEIGHTING } from "../recall/constants.ts";
import { type OpenConflictRef, openConflictsOf } from "./conflicts.ts";
import { visible } from "../workspaces/access.ts";

/** A todo memory sharing meaningful tags with a recall page. */
export interface LinkedOpenItem {
  memoryId: number;
  subject: string;
  tags: string[];
  sharedTags: string[];
  workspace: string;
}

/** What decorates a page of results. */
export interface RecallExtras {
  /** Hit spans per memory id (only when asked for). */
  hits?: Map<number, HitView>;
  /** Unresolved conflicts per memory id (only memories that belong to one). */
  conflicts: Map<number, OpenConflictRef[]>;
  warnings: string[];
}

/** Options of a recall page. */
export interface RecallPageOptions {
  /** Cut hit spans around the matched terms, this many characters each side. */
  hitWindow?: number;
  withHits?: boolean;
}

/** Query vectors when the evidence channel is usable; a failed model load degrades to lexical. */
async function queryVectors(
  ctx: ServiceContext,
  queries: readonly string[],
  warnings: string[],
): Promise<(Float32Array | undefined)[] | undefined> {
  const semantic = ctx.semantic;
  if (!semantic || !(await semantic.usable())) return undefined;
  try {
    // The query's words weighed by their rarity in the library (word-level models only).
    const words = QUERY_IDF_WEIGHTING
      ? await ctx.store.read(async () => {
        const weighed = [];
        for (const query of queries) weighed.push(await queryWords(ctx.store, query));
        return weighed;
      })
      : [];
    return await Promise.all(queries.map((query, i) => semantic.embedQuery(query, words[i])));
  } catch (error) {
    warnings.push(`semantic recall failed for this call, lexical results only: ${error}`);
    return undefined;
  }
}

async function hitViews(
  ctx: ServiceContext,
  items: readonly RankedMemory[],
  window: number | undefined,
): Promise<Map<number, HitView>> {
  const { store } = ctx;
  // One page budget across the results, in rank order (recall/hits.ts).
  return await store.read(async () =>
    await hitViewsFor(store, items, { window: window ?? HIT_WINDOW_DEFAULT })
  );
}

async function extras(
  ctx: ServiceContext,
  items: readonly RankedMemory[],
  options: RecallPageOptions,
  warnings: string[],
): Promise<RecallExtras> {
  return {
    hits: options.withHits ? await hitViews(ctx, items, options.hitWindow) : undefined,
    conflicts: await openConflictsOf(ctx, items.map((item) => item.memory.id)),
    warnings,
  };
}

/** `find` with everything its answer carries. */
export async function findPage(
  ctx: ServiceContext,
  input: Omit<FindInput, "queryVector" | "similarityFloor">,
  options: RecallPageOptions = {},
): Promise<{ page: FindPage } & RecallExtras> {
  const warnings: string[] = [];
  const query = input.query?.trim() ?? "";
  const vectors = query === "" ? undefined : await queryVectors(ctx, [query], warnings);
  const page = await findMemories(ctx, {
    ...input,
    queryVector: vectors?.[0],
    similarityFloor: ctx.semantic?.similarityFloor,
  });
  const time = page.timeFilter;
  if (time && !time.applied) {
    warnings.push(
      `nothing matched inside "${time.phrase}" (${new Date(time.start).toISOString()} to ` +
        `${new Date(time.end).toISOString()}), so these results are from any time; ` +
        'pass time: "off" to search without the phrase',
    );
  }
  return { page, ...(await extras(ctx, page.items, options, warnings)) };
}

/** `batch_find` with everything its answer carries. */
export async function batchFindPage(
  ctx: ServiceContext,
  input: {
    queries: BatchQuery[];
    filters: Omit<FindInput, "query" | "offset" | "queryVector" | "similarityFloor">;
    deduplicate: boolean;
  },
  options: RecallPageOptions = {},
): Promise<{ page: BatchFindPage } & RecallExtras> {
  const warnings: string[] = [];
  const vectors = await queryVectors(ctx, input.queries.map((q) => q.query), warnings);
  const page = await batchFindMemories(ctx, {
    queries: input.queries,
    filters: { ...input.filters, similarityFloor: ctx.semantic?.similarityFloor },
    deduplicate: input.deduplicate,
    queryVectors: vectors,
  });
  return { page, ...(await extras(ctx, page.items, options, warnings)) };
}

/** Linked open items (docs/SPEC.md §6): todo memories sharing meaningful tags with the page. */
export async function linkedOpenItems(
  ctx: ServiceContext,
  items: readonly RankedMemory[],
): Promise<LinkedOpenItem[]> {
  const tags = [...new Set(items.flatMap((item) => item.memory.tags))]
    .filter((tag) => tag !== TODO_TAG);
  if (tags.length === 0) return [];
  const { store } = ctx;
  return await store.read(async () => {
    const links = await store.linkedTodos({
      tags,
      exclude: items.map((item) => item.memory.id),
      todoTag: TODO_TAG,
      limit: LINKED_OPEN_ITEMS_MAX,
    });
    const records = await store.getMemories(links.map((link) => link.id));
    return links.flatMap((link) => {
      const memory = visible(ctx, records.get(link.id));
      return memory
        ? [{
          memoryId: memory.id,
          subject: memory.subject,
          tags: memory.tags,
          sharedTags: memory.tags.filter((tag) => tags.includes(tag)),
          workspace: memory.workspaceCanonical,
        }]
        : [];
    });
  });
}

/** The expired view: search superseded and retired memories. */
export async function expiredPage(
  ctx: ServiceContext,
  input: Omit<FindInput, "status" | "statuses" | "queryVector" | "similarityFloor">,
): Promise<FindPage> {
  return await findMemories(ctx, { ...input, statuses: ["superseded", "retired"] });
}
