/**
 * The word index's document counts a write unit owes, summed in memory and written once, just
 * before the unit commits.
 *
 * Every memory counts in the same few rows (the all-documents token, its workspace's scope
 * token, `memory_terms_size`'s one row), so whichever unit updates them first holds their row
 * locks until it commits, and every other writer waits there. Written at the end, they are held
 * for one statement and the commit instead of the rest of the unit, and a unit that indexes many
 * memories (a batch, an import, a copy) writes each term once. The terms go in byte order, so
 * two units lock the rows they share in the same order and never deadlock on them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PendingTermCounts } from "./term_counts.ts";
 *
 * const counts = new PendingTermCounts();
 * counts.add(["b", "a"], { docs: 1, tokens: 5 });
 * counts.add(["a"], { docs: 1, tokens: 2 });
 * assert.deepEqual(counts.rows(), { terms: ["a", "b"], docs: [2, 1], tokens: 7 });
 * ```
 * @module
 */
import type { PgQuery } from "./core.ts";

/** A saved state, to go back to when a savepoint rolls back. */
interface CountsState {
  docs: Map<string, number>;
  tokens: number;
}

/** Document-count and token-total changes not yet written. */
export class PendingTermCounts {
  #docs = new Map<string, number>();
  #tokens = 0;

  /** Adds `change.docs` to each of `terms`' document counts and `change.tokens` to the total. */
  add(terms: readonly string[], change: { docs: number; tokens: number }): void {
    for (const term of terms) this.#docs.set(term, (this.#docs.get(term) ?? 0) + change.docs);
    this.#tokens += change.tokens;
  }

  /** True when nothing is owed. */
  empty(): boolean {
    return this.#docs.size === 0 && this.#tokens === 0;
  }

  /** The owed changes, terms in byte order (the lock order), zero changes left out. */
  rows(): { terms: string[]; docs: number[]; tokens: number } {
    const terms = [...this.#docs.keys()].filter((term) => this.#docs.get(term) !== 0)
      .sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    return { terms, docs: terms.map((term) => this.#docs.get(term)!), tokens: this.#tokens };
  }

  /** Forgets what is owed (after writing it, or when the counts are rebuilt from nothing). */
  clear(): void {
    this.#docs = new Map();
    this.#tokens = 0;
  }

  /** The current state, for {@linkcode PendingTermCounts.restore}. */
  save(): CountsState {
    return { docs: new Map(this.#docs), tokens: this.#tokens };
  }

  /** Goes back to a saved state (its savepoint rolled back). */
  restore(state: CountsState): void {
    this.#docs = new Map(state.docs);
    this.#tokens = state.tokens;
  }

  /**
   * Writes what is owed and forgets it: one statement (a data-modifying `WITH` runs every part),
   * and a second one only when a count went down, to delete the counts that reached zero, as the
   * SQLite index drops a token no document holds. (One statement may not change a row twice, so
   * the delete cannot join the first.)
   */
  async write(sql: PgQuery): Promise<void> {
    if (this.empty()) return;
    const { terms, docs, tokens } = this.rows();
    this.clear();
    const lowered = terms.filter((_, i) => docs[i] < 0);
    const counted = sql`WITH counted AS (
        INSERT INTO memory_terms_df (term, docs)
        SELECT t, n FROM unnest(${terms}::text[], ${docs}::bigint[]) AS u(t, n)
        ON CONFLICT (term) DO UPDATE SET docs = memory_terms_df.docs + excluded.docs
      )
      UPDATE memory_terms_size SET tokens = tokens + ${tokens}`;
    // Both are sent before this returns (in order: the delete sees the counts), so a caller may
    // queue its COMMIT right behind them without waiting a round trip.
    const emptied = lowered.length === 0
      ? []
      : sql`DELETE FROM memory_terms_df WHERE term = ANY(${lowered}::text[]) AND docs <= 0`;
    await Promise.all([counted, emptied]);
  }
}
