/**
 * `content_mode: "hits"`: the exact passages of each result that matched,
 * with `hit_window` neighbouring rows, as source slices with offsets. Spans are
 * never truncated; when they cover half the content or more, the whole
 * content is returned instead (cheaper than several spans and a read).
 *
 * @example
 * ```ts
 * import { hitSpansFor } from "./src/recall/hits.ts";
 * // hitSpansFor(store, rankedItem, { window: 1 })
 * ```
 * @module
 */
import { evidenceRowsFor } from "../evidence/rows.ts";
import type { Store } from "../store/mod.ts";
import { HITS_FULL_COVERAGE } from "./constants.ts";
import type { RankedMemory } from "./rank.ts";

/** One passage: `text === content.slice(start_offset, end_offset)`. */
export interface HitSpan {
  text: string;
  start_offset: number;
  end_offset: number;
  /** False for a span made only of neighbouring rows. */
  matched: boolean;
}

/** The hits view of one result. */
export type HitView = { kind: "spans"; spans: HitSpan[] } | { kind: "full"; coverage: number };

interface ContentRowView {
  rowIndex: number;
  text: string;
  start: number;
  end: number;
  id?: number;
}

function contentRows(store: Store, item: RankedMemory): ContentRowView[] {
  const stored = store.rowsOfMemory(item.memory.id)
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
  // Rows not written yet (a database from before evidence rows): cut them now.
  return evidenceRowsFor(item.memory.subject, item.memory.content)
    .filter((row) => row.startOffset !== null)
    .map((row) => ({
      rowIndex: row.rowIndex,
      text: row.text,
      start: row.startOffset!,
      end: row.endOffset!,
    }));
}

/** Computes the hit spans of one result. */
export function hitSpansFor(
  store: Store,
  item: RankedMemory,
  options: { window: number },
): HitView {
  const { content } = item.memory;
  const rows = contentRows(store, item);
  const vectorRows = new Set(item.vectorRowIds ?? []);
  const matchedIndexes = new Set<number>();
  rows.forEach((row, position) => {
    const lower = row.text.normalize("NFKC").toLowerCase();
    if (
      (row.id !== undefined && vectorRows.has(row.id)) ||
      item.matchedTerms.some((term) => lower.includes(term))
    ) matchedIndexes.add(position);
  });
  if (matchedIndexes.size === 0 || content.length === 0) {
    return { kind: "full", coverage: 1 };
  }
  const chosen = new Map<number, boolean>();
  for (const position of matchedIndexes) {
    for (let p = position - options.window; p <= position + options.window; p++) {
      if (p >= 0 && p < rows.length) chosen.set(p, chosen.get(p) || p === position);
    }
  }
  const positions = [...chosen.keys()].sort((a, b) => a - b);
  const spans: HitSpan[] = [];
  for (const position of positions) {
    const row = rows[position];
    const last = spans[spans.length - 1];
    const previousChosen = last !== undefined && chosen.has(position - 1);
    if (last && previousChosen) {
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
  if (coverage >= HITS_FULL_COVERAGE) return { kind: "full", coverage };
  return { kind: "spans", spans };
}
