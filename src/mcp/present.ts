/**
 * Turns service results into the response shapes agents rely on (docs/SPEC.md §5).
 * Field names here are a contract: add fields freely, never rename these.
 * @module
 */
import type { HistoryEntry, MemoryRecord } from "../store/mod.ts";
import { endedBefore, type ValidityWindow } from "../memory/validity.ts";
import { nowIso } from "../platform/clock.ts";
import { PREVIEW_INLINE_MAX_CHARS } from "../recall/constants.ts";
import { buildOutline } from "../recall/outline.ts";
import type { HitView } from "../recall/hits.ts";
import type { RankedMemory } from "../recall/rank.ts";
import { measureRecall, type RecallSize } from "../recall/size.ts";
import { readCall } from "./answer_budget.ts";
import { RESULTS_AS_ROWS } from "./envelope.ts";

/** How much of each memory a recall page carries. */
export type ContentMode = "preview" | "hits" | "full";

function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}

/** The metadata every memory view shares. */
export function memoryHeader(memory: MemoryRecord): Record<string, unknown> {
  return {
    memory_id: memory.id,
    subject: memory.subject,
    tags: memory.tags,
    workspace: memory.workspaceCanonical,
    source_type: memory.sourceType,
    protection_level: memory.protectionLevel,
    status: memory.status,
    version: memory.version,
    confidence: memory.confidence,
    event_time: memory.eventTime,
    ingest_time: memory.ingestTime,
    ...presentWindow(memory),
    content_chars: memory.content.length,
    content_hash: memory.contentSha,
  };
}

/**
 * A validity window's fields: `valid_from`/`valid_to` when known, and `no_longer_valid: true`
 * when the window closed before now, so an agent cannot take an ended fact for a current one.
 */
export function presentWindow(window: ValidityWindow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (window.validFrom !== null) out.valid_from = window.validFrom;
  if (window.validTo !== null) out.valid_to = window.validTo;
  if (endedBefore(window, nowIso())) out.no_longer_valid = true;
  return out;
}

/**
 * What a lean result (the default) leaves out when a memory has it: the value a memory gets
 * when the writer says nothing. An absent field means this value.
 */
export const LEAN_RESULT_DEFAULTS: Readonly<Record<string, unknown>> = {
  source_type: "agent_generated",
  protection_level: "normal",
  status: "active",
  version: 1,
  confidence: 0.5,
};

/**
 * Fields a lean result never carries: ranking internals and bookkeeping the agent asks for
 * with `content_mode: "full"` or `include_size: true` (or reads with `read`).
 */
const LEAN_RESULT_OMITTED = [
  "score",
  "matched_terms",
  "similarity",
  "ingest_time",
  "content_hash",
];

/** How lean a result page is; absent = every field (content_mode full, include_size). */
export interface LeanOptions {
  /** The workspace the query was scoped to: results from it leave `workspace` out. */
  workspace?: string;
}

/** Drops the fields a lean result leaves out (null, empty, default, internal). */
export function leanResult(
  result: Record<string, unknown>,
  options: LeanOptions = {},
): Record<string, unknown> {
  const lean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (LEAN_RESULT_OMITTED.includes(key)) continue;
    if (key in LEAN_RESULT_DEFAULTS && LEAN_RESULT_DEFAULTS[key] === value) continue;
    if (key === "workspace" && value === options.workspace) continue;
    // The length of inlined content is the content's own length.
    if (key === "content_chars" && result.content !== undefined) continue;
    lean[key] = value;
  }
  return lean;
}

/** One recall result plus the characters of text it returns. */
export function presentResult(
  item: RankedMemory,
  mode: ContentMode,
  hit?: HitView,
): { result: Record<string, unknown>; chars: number } {
  const { memory } = item;
  const { memory_id, subject, ...header } = memoryHeader(memory);
  const result: Record<string, unknown> = {
    memory_id,
    subject,
    // Where the fact came from, beside its subject: two imported files both titled
    // "Installation" differ by their path (a lean row leaves it out when there is none).
    source_ref: memory.sourceRef,
    ...header,
    score: roundScore(item.score),
  };
  if (item.matchedTerms.length > 0) result.matched_terms = item.matchedTerms;
  if (item.vectorCosine !== undefined) result.similarity = roundScore(item.vectorCosine);
  if (memory.follows !== null) result.follows = memory.follows;
  if (item.carriedFrom !== undefined) result.ranked_by_follows = item.carriedFrom;
  let chars = memory.subject.length;
  if (mode === "hits" && hit?.kind === "spans") {
    result.hit_spans = hit.spans;
    if (hit.more) {
      // The hits the result's (or the page's) bound left out, and how to read them.
      result.hits_more = {
        hits: hit.more.hits,
        next: readCall(memory.id, { start: hit.more.start, end: hit.more.end }),
      };
    }
    return { result, chars: chars + hit.spans.reduce((sum, span) => sum + span.text.length, 0) };
  }
  // No row of a long content matched (a subject or tag match, a sequence): shown as in preview.
  const shown: ContentMode = mode === "hits" && hit?.kind === "none" ? "preview" : mode;
  if (shown === "hits") result.hits_upgraded_to_full = true;
  if (shown !== "preview" || memory.content.length <= PREVIEW_INLINE_MAX_CHARS) {
    result.content = memory.content;
    chars += memory.content.length;
  }
  if (shown === "preview" && result.content === undefined) {
    const outline = buildOutline(memory.content);
    result.outline = outline.entries;
    if (outline.more > 0) result.outline_more = outline.more;
    chars += outline.entries.reduce((sum, entry) => sum + entry.head.length, 0);
  }
  return { result, chars };
}

/** A page of results with its size block. */
export function presentResults(
  items: readonly RankedMemory[],
  mode: ContentMode,
  options: {
    hits?: ReadonlyMap<number, HitView>;
    extend?: (item: RankedMemory, result: Record<string, unknown>) => void;
    /** Leave out null/default/internal fields (the default answer); absent = every field. */
    lean?: LeanOptions;
  } = {},
): { results: Record<string, unknown>[]; size: RecallSize } {
  const { extend, hits, lean } = options;
  let chars = 0;
  const results = items.map((item) => {
    const presented = presentResult(item, mode, hits?.get(item.memory.id));
    extend?.(item, presented.result);
    chars += presented.chars;
    return lean ? leanResult(presented.result, lean) : presented.result;
  });
  return { results, size: measureRecall(results, chars) };
}

/**
 * The paging fields of a recall answer. A lean page leaves out what follows from the rest:
 * `offset` 0, `retrieval_mode` "query", and `total_estimate` when `has_more` is false (then
 * it is exactly offset + results).
 */
export function presentPaging(
  page: { hasMore: boolean; totalEstimate: number; retrievalMode: string },
  offset: number,
  lean: boolean,
): Record<string, unknown> {
  if (!lean) {
    return {
      has_more: page.hasMore,
      total_estimate: page.totalEstimate,
      retrieval_mode: page.retrievalMode,
      offset,
    };
  }
  const paging: Record<string | symbol, unknown> = {
    has_more: page.hasMore,
    // The text block writes a lean page's results as rows (envelope.ts).
    [RESULTS_AS_ROWS]: true,
  };
  if (page.hasMore) paging.total_estimate = page.totalEstimate;
  if (page.retrievalMode !== "query") paging.retrieval_mode = page.retrievalMode;
  if (offset !== 0) paging.offset = offset;
  return paging as Record<string, unknown>;
}

/** A full read view. */
export function presentMemory(memory: MemoryRecord): Record<string, unknown> {
  return {
    ...memoryHeader(memory),
    source_ref: memory.sourceRef,
    agent_id: memory.agentId,
    client: memory.client,
    metadata: memory.metadata,
    superseded_by: memory.supersededBy,
    follows: memory.follows,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
  };
}

/** One history entry. */
export function presentHistory(entry: HistoryEntry): Record<string, unknown> {
  return {
    version: entry.version,
    subject: entry.subject,
    content: entry.content,
    content_hash: entry.contentSha,
    tags: entry.tags,
    status: entry.status,
    ...presentWindow(entry),
    replaced_at: entry.changedAt,
    replaced_by_agent: entry.changedBy,
    replaced_by_client: entry.changedByClient,
    reason: entry.reason,
  };
}
