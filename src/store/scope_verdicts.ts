/**
 * Whether a memory passes a lookup's filters, remembered while the database has not changed.
 *
 * A neighbour lookup (a conflict or duplicate check) scores the newest holders of its rarest
 * words and then asks the database which of the best ones pass its filters (active, in the
 * checked memory's workspaces): at 1M memories most of a word's newest holders are in other
 * workspaces, so a check looked up ~62 ids in ~2 queries, and the record cache, which answers
 * for the ids it holds, is off at that size. The checks of one import ask about the same
 * holders again and again (a frequent word's newest holders are the same memories for every
 * check), so the answers are kept per filter, as the record and term caches keep theirs: for
 * as long as the memories stamp ({@linkcode SqliteConnection.memoriesStamp}) stays the same,
 * which any insert, update or delete of a memory moves. An undefined stamp (inside a write)
 * keeps nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ScopeVerdicts } from "./scope_verdicts.ts";
 *
 * const verdicts = new ScopeVerdicts(1_000);
 * const active = verdicts.of("1:5", JSON.stringify({ statuses: ["active"] }));
 * active?.set(7, false);
 * assert.equal(verdicts.of("1:5", JSON.stringify({ statuses: ["active"] }))?.get(7), false);
 * assert.equal(verdicts.of("1:6", JSON.stringify({ statuses: ["active"] }))?.get(7), undefined);
 * assert.equal(verdicts.of(undefined, "{}"), undefined);
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";

/** Filter verdicts by memory id, one table per filter, for one memories stamp. */
export class ScopeVerdicts {
  readonly #max: number;
  #stamp: string | undefined;
  readonly #byFilter = new Map<string, BoundedMap<number, boolean>>();

  /** `max`: verdicts kept for each filter (the oldest leave first). */
  constructor(max: number) {
    this.#max = max;
  }

  /**
   * The verdicts of the filter keyed `filterKey` at `stamp`, to read and fill; undefined when
   * nothing may be kept (no stamp). A new stamp empties every table.
   */
  of(stamp: string | undefined, filterKey: string): Map<number, boolean> | undefined {
    if (stamp === undefined || this.#max <= 0) return undefined;
    if (stamp !== this.#stamp) {
      this.#byFilter.clear();
      this.#stamp = stamp;
    }
    let table = this.#byFilter.get(filterKey);
    if (!table) {
      // A lookup per workspace pair: a library with many workspaces keeps a few tables only.
      if (this.#byFilter.size >= SCOPE_FILTERS_KEPT) this.#byFilter.clear();
      table = new BoundedMap(this.#max);
      this.#byFilter.set(filterKey, table);
    }
    return table;
  }
}

/** Filters whose verdicts are kept at once (the workspaces a drain is checking). */
const SCOPE_FILTERS_KEPT = 4;
