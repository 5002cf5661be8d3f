/**
 * `find` and `batch_find`: filters, candidates, rerank and an honest page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
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
 * const page = await findMemories(ctx, { query: "deploy day", limit: 5 });
 * assert.equal(page.items[0].memory.id, memoryId);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { systemTimeZone } from "../platform/clock.ts";
import type { ServiceContext } from "../core/context.ts";
import { FIND_LIMIT_DEFAULT } from "../memory/limits.ts";
import { normalizeTags, normalizeTime } from "../memory/normalize.ts";
import type { MemoryRecord, MemoryStatus, RecallFilters, SourceType } from "../store/mod.ts";
import { recordPassesFilters } from "../store/mod.ts";
import { aliasKeys } from "../entities/names.ts";
import { ENTITY_FACTS_MAX } from "../entities/constants.ts";
import { type AccessContext, type ReadScope, readScope } from "../workspaces/access.ts";
import { recallBlacklist } from "../workspaces/blacklist.ts";
import { WEAK_ISOLATION_NUDGE } from "../workspaces/constants.ts";
import { CANDIDATE_POOL, DEFAULT_SIMILARITY_FLOOR } from "./constants.ts";
import { type DateWindow, insideWindow, queryDates } from "./dates.ts";
import { carryToFollowers } from "./follows.ts";
import { expandThroughEntities } from "./entity_expansion.ts";
import { demoteStaleClaims } from "./stale.ts";
import { vectorCandidates, type VectorHit } from "./vector.ts";
import { lexicalCandidates } from "./lexical.ts";
import { bm25Scores } from "./bm25.ts";
import { memoryTokens } from "./memory_terms.ts";
import { priorBoost, rankCandidates, type RankedMemory, type TermForm } from "./rank.ts";
import { queryTerms, textTokens } from "./query_terms.ts";
import { indexQueryTerms } from "../text/index_terms.ts";
import { verbForms } from "../text/irregular.ts";
import { type RecallTuning, recallTuning } from "./tuning.ts";
import { nudgeByUse, USAGE_RANKING_DEFAULT } from "./usage.ts";
import { readCandidates } from "./candidate_reads.ts";
import { USAGE_FIND_TOP } from "./usage_constants.ts";
import { chooseTimeFilter, queryWithoutPhrase, type TimeFilter } from "./time_filter.ts";
import { answerAt, type VersionQuestion } from "./as_of.ts";

/** What an agent may ask of find. */
export interface FindInput {
  query?: string;
  workspace?: string;
  /** Leave the global `default` pool out of a workspace-scoped query. */
  workspaceOnly?: boolean;
  tagsFilter?: string[];
  afterTime?: string;
  beforeTime?: string;
  /** A time phrase to filter on ("last week", "上周"), or "off" (src/recall/time_filter.ts). */
  time?: string;
  /** Without `time`, filter on a time phrase found inside the query (`find` over MCP). */
  timeFromQuery?: boolean;
  sourceType?: SourceType[];
  status?: MemoryStatus | "any";
  /** Overrides `status` with an explicit list (the expired view). */
  statuses?: MemoryStatus[];
  /** Answer with the facts valid at this instant (ISO 8601; src/recall/as_of.ts). */
  asOf?: string;
  /** Answer with what mema had recorded by this instant. */
  knownAt?: string;
  limit?: number;
  offset?: number;
  /** The query embedded by the configured model: turns on the evidence channel. */
  queryVector?: Float32Array;
  /** Cosine floor for memories only the evidence channel found. */
  similarityFloor?: number;
  /** Lever overrides for benchmarks (src/recall/tuning.ts); absent in every real call. */
  tuning?: Partial<RecallTuning>;
  /** Only facts about this entity (a name or alias, issue 35). */
  entity?: string;
}

/** How the page was produced. */
export type RetrievalMode = "query" | "browse" | "empty";

/** One page of recall. */
export interface FindPage {
  items: RankedMemory[];
  hasMore: boolean;
  totalEstimate: number;
  retrievalMode: RetrievalMode;
  terms: string[];
  hint?: string;
  /**
   * The time phrase the call named or its query held. `applied: false`: a phrase found in the
   * query matched nothing, so the page is the unfiltered one.
   */
  timeFilter?: TimeFilter & { applied: boolean };
}

/**
 * Turns find's filter fields into the store's filter shape, validating them. `scope` is the
 * workspace scope access rules gave the caller (src/workspaces/access.ts); without one, an
 * explicit workspace scopes the query to it and the `default` pool.
 */
export function buildFilters(input: FindInput, scope?: ReadScope): RecallFilters {
  const otherTime = input.asOf !== undefined || input.knownAt !== undefined;
  const statuses: MemoryStatus[] = input.statuses ??
    (input.status === undefined
      // Asked about another time, a fact replaced or retired since may be the answer.
      ? otherTime ? ["active", "superseded", "retired"] : ["active"]
      : input.status === "any"
      ? ["active", "pending", "superseded", "retired"]
      : [input.status]);
  const filters: RecallFilters = { statuses };
  const { workspaces, excludeWorkspaces } = scope ??
    readScope(OPEN_ACCESS, input.workspace, { workspaceOnly: input.workspaceOnly });
  if (workspaces) filters.workspaces = workspaces;
  if (excludeWorkspaces) filters.excludeWorkspaces = excludeWorkspaces;
  if (input.tagsFilter && input.tagsFilter.length > 0) {
    filters.tagsAll = normalizeTags(input.tagsFilter, "tags_filter");
  }
  if (input.afterTime !== undefined) filters.after = normalizeTime(input.afterTime, "after_time");
  if (input.beforeTime !== undefined) {
    filters.before = normalizeTime(input.beforeTime, "before_time");
  }
  if (filters.after && filters.before && filters.after >= filters.before) {
    throw new MemaError("invalid_input", "after_time must be earlier than before_time", {
      field: "after_time",
    });
  }
  if (input.sourceType && input.sourceType.length > 0) filters.sourceTypes = input.sourceType;
  return filters;
}

/**
 * Finds memories for a query (ranked) or, with no query, browses newest first; a time phrase
 * (the `time` argument, or one found in the query) narrows either to its interval.
 */
export async function findMemories(ctx: ServiceContext, input: FindInput): Promise<FindPage> {
  const now = Date.now();
  const question: VersionQuestion = {
    ...(input.asOf !== undefined ? { asOf: normalizeTime(input.asOf, "as_of") } : {}),
    ...(input.knownAt !== undefined ? { knownAt: normalizeTime(input.knownAt, "known_at") } : {}),
  };
  const versions = question.asOf !== undefined || question.knownAt !== undefined
    ? question
    : undefined;
  const query = input.query?.trim() ?? "";
  const searched = query !== "";
  const time = input.time !== undefined || input.timeFromQuery
    ? chooseTimeFilter(
      { time: input.time, query: input.timeFromQuery ? query : undefined },
      { now, timeZone: ctx.settings.timeZone ?? systemTimeZone() },
    )
    : undefined;
  if (!time) return await searchMemories(ctx, input, { now, searched, versions });
  // The phrase's own words are no search words once it is a filter; a query that was only
  // the phrase ("what happened yesterday") browses the interval.
  const rest = queryWithoutPhrase(query, time);
  const narrowed = await searchMemories(
    ctx,
    { ...input, query: queryTerms(rest).length > 0 ? rest : "" },
    { now, searched, window: time, versions },
  );
  if (narrowed.items.length > 0 || narrowed.totalEstimate > 0) {
    return { ...narrowed, timeFilter: { ...time, applied: true } };
  }
  if (time.source === "query" && searched) {
    // A question about old conversations must not come back empty because of its words.
    const wide = await searchMemories(ctx, input, { now, searched, versions });
    return { ...wide, timeFilter: { ...time, applied: false } };
  }
  const from = new Date(time.start).toISOString();
  const to = new Date(time.end).toISOString();
  return {
    ...narrowed,
    timeFilter: { ...time, applied: true },
    hint: `nothing matched inside "${time.phrase}" (${from} to ${to}); ` +
      'widen the time, or pass time: "off"',
  };
}

/** An answer with nothing in it, when the filters leave no instant to search. */
function emptyPage(): FindPage {
  return { items: [], hasMore: false, totalEstimate: 0, retrievalMode: "empty", terms: [] };
}

async function searchMemories(
  ctx: ServiceContext,
  input: FindInput,
  options: {
    now: number;
    searched: boolean;
    window?: { start: number; end: number };
    /** Another time asked about: each memory answers with the version that held then. */
    versions?: VersionQuestion;
  },
): Promise<FindPage> {
  const query = input.query?.trim() ?? "";
  // The blacklist leaves workspaces out of unscoped searches only, not browsing or expired.
  const blacklist = options.searched && input.statuses === undefined
    ? recallBlacklist(ctx.settings.recallBlacklistPath)
    : [];
  const filters = buildFilters(
    input,
    readScope(ctx, input.workspace, { workspaceOnly: input.workspaceOnly, blacklist }),
  );
  if (options.window) {
    const from = new Date(options.window.start).toISOString();
    const to = new Date(options.window.end).toISOString();
    if (filters.after === undefined || from > filters.after) filters.after = from;
    if (filters.before === undefined || to < filters.before) filters.before = to;
    if (filters.after >= filters.before) return emptyPage();
    filters.byValidity = true;
  }
  const about = input.entity === undefined
    ? undefined
    : await factsAbout(ctx, input.entity, filters);
  if (about !== undefined && about.ids.size === 0) return { ...emptyPage(), hint: about.hint };
  const preferred = nudgedWorkspace(ctx);
  const limit = input.limit ?? FIND_LIMIT_DEFAULT;
  const offset = input.offset ?? 0;
  const now = options.now;
  const tuning = recallTuning(input.tuning);

  return await ctx.store.read(async (): Promise<FindPage> => {
    if (about !== undefined) {
      if (query === "") {
        return await browseFactsAbout(ctx, about.ids, filters, { limit, offset, now });
      }
    }
    if (query === "") {
      const ids = await ctx.store.browse(filters, { limit, offset });
      const records = await ctx.store.getMemories(ids);
      const total = await ctx.store.countFiltered(filters);
      let items: RankedMemory[] = ids.flatMap((id) => {
        const memory = records.get(id);
        return memory
          ? [{ memory, score: priorBoost(memory, now), coverage: 0, matchedTerms: [] }]
          : [];
      });
      // Browsing another time keeps the page's order; memories with no version then drop out.
      if (options.versions) items = await answerAt(ctx.store, items, options.versions);
      return {
        items,
        hasMore: offset + items.length < total,
        totalEstimate: total,
        retrievalMode: "browse",
        terms: [],
      };
    }
    const dates = tuning.dateWeight > 0 ? queryDates(query, now) : [];
    let terms = queryTerms(query);
    if (terms.length === 0) terms = [...new Set(textTokens(query))];
    if (terms.length === 0) {
      return {
        items: [],
        hasMore: false,
        totalEstimate: 0,
        retrievalMode: "empty",
        terms,
        hint: "the query has no words to search for; use the words the fact would contain",
      };
    }
    const pool = Math.max(CANDIDATE_POOL, offset + limit + 1);
    const candidates = await lexicalCandidates(ctx.store, query, {
      filters,
      pool,
      verbForms: tuning.verbFormWeight > 0,
      wordPool: tuning.wordPool,
      spelling: tuning.spellingWeight > 0,
    });
    // The records and what the ranking steps ask about the pool, in one go (candidate_reads.ts).
    const { records, store: known } = await readCandidates(ctx, candidates.ids, {
      filters,
      usage: (ctx.settings.usageRanking ?? USAGE_RANKING_DEFAULT).enabled,
      follows: tuning.followsCarry > 0 && tuning.followsHops > 0,
    });
    const text = ctx.store.capabilities.fts
      ? await rerankText(ctx.store, candidates, [...records.values()], tuning)
      : candidates.text;
    let ranked = rankCandidates([...records.values()], {
      terms,
      text,
      now,
      forms: termForms(query, terms, candidates.variants, tuning),
    });
    // The pool's use was read with the ledger's unwritten uses already (candidate_reads.ts).
    ranked = await nudgeByUse({ ...ctx, store: known, usage: undefined }, ranked, {
      now,
      pageEnd: offset + limit,
    });
    let total = candidates.total;
    if (dates.length > 0) ranked = favourDates(ranked, dates, tuning.dateWeight);
    if (input.queryVector) {
      const fused = await fuseWithVectors(ctx, ranked, {
        vector: input.queryVector,
        filters,
        floor: input.similarityFloor ?? DEFAULT_SIMILARITY_FLOOR,
        now,
        tuning,
      });
      total += fused.vectorOnly;
      ranked = fused.ranked;
    }
    if (tuning.entityExpansion > 0) {
      const expanded = await expandThroughEntities(ctx.store, ranked, {
        query,
        share: tuning.entityExpansion,
        filters,
      });
      ranked = expanded.ranked;
      total += expanded.added;
    }
    const carried = await carryToFollowers(known, ranked, filters, tuning);
    ranked = preferred === undefined ? carried.ranked : nudgeToward(carried.ranked, preferred);
    total += carried.added;
    const resolved = await demoteStaleClaims(known, ranked, filters);
    ranked = resolved.ranked;
    total += resolved.added;
    if (about !== undefined) {
      ranked = await narrowToFacts(ctx, ranked, about.ids, { filters, now });
      total = ranked.length;
    }
    if (options.versions) {
      ranked = (await answerAt(ctx.store, ranked, options.versions))
        .sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
    }
    const items = ranked.slice(offset, offset + limit);
    // The results an agent acts on count as used (src/recall/usage.ts); written later.
    ctx.usage?.record(items.slice(0, USAGE_FIND_TOP).map((item) => item.memory.id));
    const page: FindPage = {
      items,
      hasMore: ranked.length > offset + limit,
      totalEstimate: Math.max(total, ranked.length),
      retrievalMode: ranked.length === 0 ? "empty" : "query",
      terms,
    };
    if (ranked.length === 0) {
      page.hint = "nothing matched; try fewer or different words, or drop a filter";
    }
    return page;
  });
}

/**
 * The memories that name an entity (by name or alias) within the filters' workspaces, or a
 * hint when no entity has that name.
 */
async function factsAbout(
  ctx: ServiceContext,
  name: string,
  filters: RecallFilters,
): Promise<{ ids: Set<number>; hint?: string }> {
  const entities = (await ctx.store.entitiesNamed(aliasKeys(name), filters.workspaces))
    .filter((entity) => !(filters.excludeWorkspaces ?? []).includes(entity.workspace));
  if (entities.length === 0) {
    return {
      ids: new Set(),
      hint: `no entity is named "${name}"; memory_review view "entities" lists them`,
    };
  }
  const ids = await ctx.store.entityMemoryIds(entities.map((e) => e.id), ENTITY_FACTS_MAX);
  return { ids: new Set(ids) };
}

/** The facts about an entity that pass the filters, newest first, as a browse page. */
async function browseFactsAbout(
  ctx: ServiceContext,
  ids: ReadonlySet<number>,
  filters: RecallFilters,
  page: { limit: number; offset: number; now: number },
): Promise<FindPage> {
  const records = await ctx.store.getMemories([...ids]);
  const passing = [...records.values()].filter((memory) => recordPassesFilters(memory, filters))
    .sort((a, b) => b.id - a.id);
  const items = passing.slice(page.offset, page.offset + page.limit).map((memory) => ({
    memory,
    score: priorBoost(memory, page.now),
    coverage: 0,
    matchedTerms: [],
  }));
  return {
    items,
    hasMore: page.offset + items.length < passing.length,
    totalEstimate: passing.length,
    retrievalMode: "browse",
    terms: [],
  };
}

/**
 * Keeps the ranked facts about the entity, then the entity's other facts the words did not
 * reach (newest first, below every match), so every fact about it can be paged to.
 */
async function narrowToFacts(
  ctx: ServiceContext,
  ranked: RankedMemory[],
  ids: ReadonlySet<number>,
  options: { filters: RecallFilters; now: number },
): Promise<RankedMemory[]> {
  const kept = ranked.filter((item) => ids.has(item.memory.id));
  const seen = new Set(kept.map((item) => item.memory.id));
  const rest = await ctx.store.getMemories([...ids].filter((id) => !seen.has(id)));
  const tail = [...rest.values()].filter((memory) => recordPassesFilters(memory, options.filters))
    .sort((a, b) => b.id - a.id)
    .map((memory) => ({ memory, score: 0, coverage: 0, matchedTerms: [] }));
  return [...kept, ...tail];
}

/** Access with no isolation: what {@linkcode buildFilters} assumes without a scope. */
const OPEN_ACCESS: AccessContext = {
  caller: { client: "", agentId: "" },
  settings: { workspaceIsolation: "none" },
};

/** The workspace `weak` isolation nudges the ranking toward, if any. */
function nudgedWorkspace(ctx: ServiceContext): string | undefined {
  return ctx.settings.workspaceIsolation === "weak" ? ctx.caller.workspace : undefined;
}

/** `weak` isolation: a fixed bonus for the caller's own workspace, then the order again. */
function nudgeToward(ranked: RankedMemory[], workspace: string): RankedMemory[] {
  return ranked
    .map((item) =>
      item.memory.workspaceCanonical === workspace
        ? { ...item, score: item.score + WEAK_ISOLATION_NUDGE }
        : item
    )
    .sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
}

/**
 * Adds `weight` to the candidates whose event time (ingest time when absent) falls in a
 * date the query names.
 */
function favourDates(
  ranked: readonly RankedMemory[],
  windows: readonly DateWindow[],
  weight: number,
): RankedMemory[] {
  const out = ranked.map((item) => {
    const time = item.memory.eventTime ?? item.memory.ingestTime;
    const inside = windows.some((window) => insideWindow(time, window));
    return inside ? { ...item, score: item.score + weight } : item;
  });
  out.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return out;
}

/** The rerank's text score: BM25 over the candidates' index tokens (src/recall/bm25.ts). */
async function rerankText(
  store: ServiceContext["store"],
  candidates: {
    frequencies: Map<string, number>;
    alternates: Set<string>;
    variants: Map<string, string[]>;
  },
  records: readonly MemoryRecord[],
  tuning: RecallTuning,
): Promise<Map<number, number>> {
  const { frequencies, alternates, variants } = candidates;
  const termWeights = new Map([...alternates].map((token) => [token, tuning.verbFormWeight]));
  for (const token of new Set([...variants.values()].flat())) {
    termWeights.set(token, Math.max(termWeights.get(token) ?? 0, tuning.spellingWeight));
  }
  return bm25Scores(
    [...frequencies.keys()],
    records.map((memory) => ({ id: memory.id, tokens: memoryTokens(memory) })),
    { frequencies, documents: await store.indexedMemories() },
    {
      b: tuning.bm25B,
      termWeights,
    },
  );
}

/**
 * The other forms each query term is searched in: the past forms of an irregular verb in its
 * base form ("chose", "chosen" for "choose"; src/text/irregular.ts), leaving out forms the term
 * already finds as a word start ("go" finds "goes"), and for a word no memory holds the
 * library's words a slip away (src/recall/spelling.ts; index tokens, which begin the words
 * they stand for).
 */
function termForms(
  query: string,
  terms: readonly string[],
  variants: ReadonlyMap<string, readonly string[]>,
  tuning: RecallTuning,
): Map<string, TermForm[]> | undefined {
  const out = new Map<string, TermForm[]>();
  const add = (term: string, forms: readonly string[], weight: number) => {
    const held = out.get(term) ?? [];
    for (const form of forms) {
      if (!held.some((entry) => entry.form === form)) held.push({ form, weight });
    }
    if (held.length > 0) out.set(term, held);
  };
  for (const word of textTokens(query)) {
    const term = queryTerms(word)[0];
    if (term === undefined || !terms.includes(term)) continue;
    if (tuning.verbFormWeight > 0) {
      add(term, verbForms(word).filter((form) => !form.startsWith(term)), tuning.verbFormWeight);
    }
    if (variants.size === 0) continue;
    const token = indexQueryTerms(word)[0];
    const near = token === undefined ? undefined : variants.get(token);
    if (near) add(term, near, tuning.spellingWeight);
  }
  return out.size > 0 ? out : undefined;
}

/**
 * Hybrid ranking: a memory's lexical score (or, found only by meaning, its trust/recency prior)
 * plus `HYBRID_VECTOR_WEIGHT` × its cosine rescaled above the similarity floor (0 at the floor,
 * 1 at identity). Memories only the vector channel found must clear the floor.
 */
async function fuseWithVectors(
  ctx: ServiceContext,
  lexical: RankedMemory[],
  options: {
    vector: Float32Array;
    filters: RecallFilters;
    floor: number;
    now: number;
    tuning: RecallTuning;
  },
): Promise<{ ranked: RankedMemory[]; vectorOnly: number }> {
  const found = await vectorCandidates(ctx.store, options.vector, options);
  const lexicalIds = new Set<number>();
  for (const item of lexical) lexicalIds.add(item.memory.id);
  const hits = options.tuning.vectorOnly
    ? found
    : found.filter((hit) => lexicalIds.has(hit.memoryId));
  if (hits.length === 0) return { ranked: lexical, vectorOnly: 0 };
  const vectorById = new Map<number, VectorHit>();
  const missing: number[] = [];
  for (const hit of hits) {
    vectorById.set(hit.memoryId, hit);
    if (!lexicalIds.has(hit.memoryId)) missing.push(hit.memoryId);
  }
  const extra = await ctx.store.getMemories(missing);
  const span = Math.max(1e-6, 1 - options.floor);
  const lift = (hit: VectorHit | undefined) =>
    hit ? options.tuning.vectorWeight * (Math.max(0, hit.score - options.floor) / span) : 0;
  // Lexical candidates keep their object unless the vector channel found them too.
  const ranked: RankedMemory[] = lexical.map((item) => {
    const hit = vectorById.get(item.memory.id);
    return hit
      ? {
        ...item,
        score: item.score + lift(hit),
        vectorCosine: hit.cosine,
        vectorRowIds: hit.rowIds,
      }
      : item;
  });
  for (const id of missing) {
    const memory = extra.get(id);
    if (!memory) continue;
    const hit = vectorById.get(id)!;
    ranked.push({
      memory,
      score: priorBoost(memory, options.now) + lift(hit),
      coverage: 0,
      matchedTerms: [],
      vectorCosine: hit.cosine,
      vectorRowIds: hit.rowIds,
    });
  }
  ranked.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return { ranked, vectorOnly: missing.length };
}

/** One query of a batch; its own `asOf` / `knownAt` override the batch's. */
export interface BatchQuery {
  id: string;
  query: string;
  /** Answer this query with the facts valid at this instant (ISO 8601). */
  asOf?: string;
  /** Answer this query with what mema had recorded by this instant. */
  knownAt?: string;
}

/** A merged batch result: the memory and which queries found it. */
export interface BatchItem extends RankedMemory {
  matchedQueries: string[];
  bestQueryId: string;
}

/** Per-query bookkeeping of a batch. */
export interface BatchQueryReport {
  id: string;
  count: number;
  hasMore: boolean;
  totalEstimate: number;
  retrievalMode: RetrievalMode;
}

/**
 * A batch query's time, normalized; `index` names the query it came from in an error (-1: the
 * batch's own field).
 */
function batchTime(
  value: string | undefined,
  field: "as_of" | "known_at",
  index: number,
): { asOf?: string } | { knownAt?: string } {
  if (value === undefined) return {};
  const time = normalizeTime(value, index < 0 ? field : `queries.${index}.${field}`);
  return field === "as_of" ? { asOf: time } : { knownAt: time };
}

/** The merged answer of batch_find. */
export interface BatchFindPage {
  items: BatchItem[];
  perQuery: BatchQueryReport[];
  hasMore: boolean;
  totalEstimate: number;
}

/**
 * Runs up to eight queries with shared filters and merges them: each memory
 * appears once (unless `deduplicate` is false), tagged with every query that
 * found it, ordered by its best score.
 */
export async function batchFindMemories(
  ctx: ServiceContext,
  input: {
    queries: BatchQuery[];
    filters: Omit<FindInput, "query" | "offset" | "queryVector">;
    deduplicate: boolean;
    /** One vector per query (same order), when the evidence channel is on. */
    queryVectors?: (Float32Array | undefined)[];
  },
): Promise<BatchFindPage> {
  // Every query's times are checked before the first one runs, named by their place.
  const asked = input.queries.map((q, index) => ({
    ...q,
    ...batchTime(q.asOf ?? input.filters.asOf, "as_of", q.asOf !== undefined ? index : -1),
    ...batchTime(
      q.knownAt ?? input.filters.knownAt,
      "known_at",
      q.knownAt !== undefined ? index : -1,
    ),
  }));
  // Two queries asking about different times may show one memory at two versions: those are
  // two answers, merged only when the version is the same.
  const merged = new Map<string, BatchItem>();
  const all: BatchItem[] = [];
  const perQuery: BatchQueryReport[] = [];
  for (const [index, { id, query, asOf, knownAt }] of asked.entries()) {
    const queryVector = input.queryVectors?.[index];
    const page = await findMemories(ctx, {
      ...input.filters,
      query,
      offset: 0,
      queryVector,
      asOf,
      knownAt,
    });
    perQuery.push({
      id,
      count: page.items.length,
      hasMore: page.hasMore,
      totalEstimate: page.totalEstimate,
      retrievalMode: page.retrievalMode,
    });
    for (const item of page.items) {
      const key = `${item.memory.id}:${item.memory.version}`;
      const existing = merged.get(key);
      if (existing && input.deduplicate) {
        existing.matchedQueries.push(id);
        if (item.score > existing.score) {
          Object.assign(existing, {
            score: item.score,
            bestQueryId: id,
            matchedTerms: item.matchedTerms,
          });
        }
        continue;
      }
      const entry: BatchItem = { ...item, matchedQueries: [id], bestQueryId: id };
      merged.set(key, entry);
      all.push(entry);
    }
  }
  all.sort((a, b) =>
    b.score - a.score || b.memory.id - a.memory.id || b.memory.version - a.memory.version
  );
  return {
    items: all,
    perQuery,
    hasMore: perQuery.some((q) => q.hasMore),
    totalEstimate: perQuery.reduce((sum, q) => sum + q.totalEstimate, 0),
  };
}
