/**
 * Turns service results into the response shapes agents rely on (SPEC §5).
 * Field names here are a contract: add fields freely, never rename these.
 * @module
 */
import type { HistoryEntry, MemoryRecord } from "../store/mod.ts";
import { PREVIEW_INLINE_MAX_CHARS } from "../recall/constants.ts";
import { buildOutline } from "../recall/outline.ts";
import type { HitView } from "../recall/hits.ts";
import type { RankedMemory } from "../recall/rank.ts";
import { measureRecall, type RecallSize } from "../recall/size.ts";

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
    content_chars: memory.content.length,
    content_hash: memory.contentSha,
  };
}

/** One recall result plus the characters of text it returns. */
export function presentResult(
  item: RankedMemory,
  mode: ContentMode,
  hit?: HitView,
): { result: Record<string, unknown>; chars: number } {
  const { memory } = item;
  const result: Record<string, unknown> = {
    ...memoryHeader(memory),
    score: roundScore(item.score),
  };
  if (item.matchedTerms.length > 0) result.matched_terms = item.matchedTerms;
  if (item.vectorCosine !== undefined) result.similarity = roundScore(item.vectorCosine);
  if (memory.follows !== null) result.follows = memory.follows;
  if (item.carriedFrom !== undefined) result.ranked_by_follows = item.carriedFrom;
  let chars = memory.subject.length;
  if (mode === "hits" && hit?.kind === "spans") {
    result.hit_spans = hit.spans;
    return { result, chars: chars + hit.spans.reduce((sum, span) => sum + span.text.length, 0) };
  }
  if (mode === "hits") result.hits_upgraded_to_full = true;
  if (mode !== "preview" || memory.content.length <= PREVIEW_INLINE_MAX_CHARS) {
    result.content = memory.content;
    chars += memory.content.length;
  }
  if (mode === "preview" && result.content === undefined) {
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
  } = {},
): { results: Record<string, unknown>[]; size: RecallSize } {
  const { extend, hits } = options;
  let chars = 0;
  const results = items.map((item) => {
    const presented = presentResult(item, mode, hits?.get(item.memory.id));
    extend?.(item, presented.result);
    chars += presented.chars;
    return presented.result;
  });
  return { results, size: measureRecall(results, chars) };
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
    replaced_at: entry.changedAt,
    replaced_by_agent: entry.changedBy,
    replaced_by_client: entry.changedByClient,
    reason: entry.reason,
  };
}
