/**
 * `content_mode: "hits"`: the exact passages of each result that matched,
 * with `hit_window` neighbouring rows, as source slices with offsets. Spans are
 * made of whole rows, never cut inside one; they are bounded per result
 * (HITS_RESULT_MAX_CHARS, best-matching rows first) and per page
 * (HITS_PAGE_MAX_CHARS, in rank order), and the hits left out are counted with
 * the span that holds them. A content of at most HITS_FULL_MAX_CHARS comes whole
 * when its spans cover half of it or more: hits never return a long document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { findMemories } from "./find.ts";
 * import { hitViewsFor } from "./hits.ts";
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
 * const page = await findMemories(ctx, { query: "Fridays" });
 * const views = await hitViewsFor(store, page.items, { window: 1 });
 * assert.ok(views.has(memoryId));
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { evidenceRowsFor } from "../evidence/rows.ts";
import type { Store } from "../store/mod.ts";
import {
  HITS_FULL_COVERAGE,
  HITS_FULL_MAX_CHARS,
  HITS_PAGE_MAX_CHARS,
  HITS_RESULT_MAX_CHARS,
} from "./constants.ts";
import type { RankedMemory } from "./rank.ts";

/** One passage: `text === content.slice(start_offset, end_offset)`. */
export interface HitSpan {
  text: string;
  start_offset: number;
  end_offset: number;
  /** False for a span made only of neighbouring rows. */
  matched: boolean;
}

/** Matching rows a result leaves out, and the `[start, end)` of content that holds them all. */
export interface HitsLeftOut {
  hits: number;
  start: number;
  end: number;
}

/**
 * The hits view of one result: its spans (and what they leave out), its whole content (short
 * and mostly matching), or `none` when no row of a long content matched (the result matched
 * by its subject or tags, or ranks through a sequence): it is then shown as in preview.
 */
export type HitView =
  | { kind: "spans"; spans: HitSpan[]; more?: HitsLeftOut }
  | { kind: "full"; coverage: number }
  | { kind: "none" };

/** Characters of hits a page may still return; each result spends from it. */
export interface HitBudget {
  remaining: number;
}

interface ContentRowView {
  rowIndex: number;
  text: string;
  start: number;
  end: number;
  id?: number;
}

async function contentRows(store: Store, item: RankedMemory): Promise<ContentRowView[]> {
  // Stored rows are the current version's: an as-of answer showing an earlier one cuts its own.
  const stored = item.currentVersion !== undefined ? [] : (await store.rowsOfMemory(item.memory.id))
    .filter((row) => row.startOffset !== null && row.endOffset !== null);
  if (stored.length > 0) {
    return stored.map((row) => ({
      rowIndex: row.rowIndex,
      text: row.text,
      start: row.startOffset!,
      end: row.endOffset!,
      id: row.id,
    }));
  }
  // Rows not written yet (a database from before evidence rows), or of an earlier version: cut
  // them now.
  return evidenceRowsFor(item.memory.subject, item.memory.content)
    .filter((row) => row.startOffset !== null)
    .map((row) => ({
      rowIndex: row.rowIndex,
      text: row.text,
      start: row.startOffset!,
      end: row.endOffset!,
    }));
}

/**
 * What a row can add to the spans: its text and the gap up to the next row (blank lines a
 * span joining the two includes), so the chosen rows' merged spans stay within the bound.
 */
function rowCost(rows: readonly ContentRowView[], position: number): number {
  const row = rows[position];
  const next = rows[position + 1];
  return Math.max(row.end, next?.start ?? row.end) - row.start;
}

/**
 * Computes the hits view of one result, spending at most HITS_RESULT_MAX_CHARS of `budget`
 * (the whole page's budget when none is given).
 */
export async function hitSpansFor(
  store: Store,
  item: RankedMemory,
  options: { window: number; budget?: HitBudget },
): Promise<HitView> {
  const budget = options.budget ?? { remaining: HITS_PAGE_MAX_CHARS };
  const { content } = item.memory;
  const wholeFits = content.length <= HITS_FULL_MAX_CHARS && content.length <= budget.remaining;
  const rows = await contentRows(store, item);
  const vectorRows = new Set(item.vectorRowIds ?? []);
  // How well each row matches: the query's terms it holds, and one for a vector hit.
  const strength = new Map<number, number>();
  rows.forEach((row, position) => {
    const lower = row.text.normalize("NFKC").toLowerCase();
    const score = item.matchedTerms.filter((term) => lower.includes(term)).length +
      (row.id !== undefined && vectorRows.has(row.id) ? 1 : 0);
    if (score > 0) strength.set(position, score);
  });
  if (strength.size === 0 || content.length === 0) {
    if (!wholeFits) return { kind: "none" };
    budget.remaining -= content.length;
    return { kind: "full", coverage: 1 };
  }
  const limit = Math.min(HITS_RESULT_MAX_CHARS, budget.remaining);
  const order = [...strength.keys()].sort((a, b) => strength.get(b)! - strength.get(a)! || a - b);
  const chosen = new Map<number, boolean>();
  const leftOut: number[] = [];
  let used = 0;
  const take = (position: number, matched: boolean): boolean => {
    const cost = rowCost(rows, position);
    if (used + cost > limit) return false;
    chosen.set(position, matched);
    used += cost;
    return true;
  };
  for (const position of order) {
    if (chosen.has(position)) {
      // Already shown as a neighbour of a better hit: now it counts as a hit.
      chosen.set(position, true);
      continue;
    }
    if (!take(position, true)) {
      leftOut.push(position);
      continue;
    }
    // Neighbours outward on each side, while they fit.
    for (const step of [-1, 1]) {
      for (let d = 1; d <= options.window; d++) {
        const p = position + step * d;
        if (p < 0 || p >= rows.length) break;
        if (chosen.has(p)) continue;
        if (!take(p, false)) break;
      }
    }
  }
  const spans: HitSpan[] = [];
  for (const position of [...chosen.keys()].sort((a, b) => a - b)) {
    const row = rows[position];
    const last = spans[spans.length - 1];
    if (last && chosen.has(position - 1)) {
      last.end_offset = row.end;
      last.text = content.slice(last.start_offset, last.end_offset);
      last.matched ||= chosen.get(position)!;
    } else {
      spans.push({
        text: content.slice(row.start, row.end),
        start_offset: row.start,
        end_offset: row.end,
        matched: chosen.get(position)!,
      });
    }
  }
  const covered = spans.reduce((sum, span) => sum + span.end_offset - span.start_offset, 0);
  const coverage = covered / content.length;
  if (wholeFits && leftOut.length === 0 && coverage >= HITS_FULL_COVERAGE) {
    budget.remaining -= content.length;
    return { kind: "full", coverage };
  }
  budget.remaining -= covered;
  if (leftOut.length === 0) return { kind: "spans", spans };
  return {
    kind: "spans",
    spans,
    more: {
      hits: leftOut.length,
      start: Math.min(...leftOut.map((p) => rows[p].start)),
      end: Math.max(...leftOut.map((p) => rows[p].end)),
    },
  };
}

/**
 * The hits views of a page of results, in rank order, sharing one HITS_PAGE_MAX_CHARS budget:
 * the best results get their passages first. Call inside a read transaction.
 */
export async function hitViewsFor(
  store: Store,
  items: readonly RankedMemory[],
  options: { window: number },
): Promise<Map<number, HitView>> {
  const budget: HitBudget = { remaining: HITS_PAGE_MAX_CHARS };
  // One at a time, in rank order: the items share the page's budget.
  const views = new Map<number, HitView>();
  for (const item of items) {
    views.set(item.memory.id, await hitSpansFor(store, item, { ...options, budget }));
  }
  return views;
}
