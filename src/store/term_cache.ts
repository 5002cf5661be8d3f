/**
 * What the word index answered while the database has not changed: each token's document
 * count and its postings (the ids of the memories holding it).
 *
 * Every `find` asks the index how many memories hold each query word (to weigh it, once for
 * the words and once more for the query vector's weights) and, for the candidate pool, which
 * memories hold them; queries in one library keep asking about the same words (the names of
 * its people and projects above all). The index changes only with the memories, so the answers
 * hold for as long as the memories stamp ({@linkcode SqliteConnection.memoriesStamp}) stays the
 * same, exactly like the record cache (src/store/record_cache.ts): any insert, update or delete
 * of a memory by any connection gives a new stamp (a rebuild of the index bumps it too), and a
 * new stamp empties the cache. An undefined stamp (inside a write, where reads may see what is
 * not committed) reads through without keeping anything.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TermCache } from "./term_cache.ts";
 *
 * const cache = new TermCache();
 * cache.postings("1:5:0", "kayak", () => new Int32Array([3, 9])); // read once
 * const again = cache.postings("1:5:0", "kayak", () => new Int32Array()); // same stamp: cached
 * assert.deepEqual([...again], [3, 9]);
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import {
  TERM_CACHE_FREQUENCIES_MAX,
  TERM_CACHE_NEWEST_MAX,
  TERM_CACHE_POSTINGS_MAX,
} from "./constants.ts";
import { ALL_DOCUMENTS_TOKEN, type HeldCounts } from "./terms_sql.ts";

/** The ids a postings array takes up in the bound (an empty list counts as one). */
function roomOf(list: Int32Array): number {
  return Math.max(list.length, 1);
}

/** Document counts and postings of index tokens for one change stamp. */
export class TermCache {
  #stamp: string | undefined;
  readonly #frequencies = new BoundedMap<string, number>(TERM_CACHE_FREQUENCIES_MAX);
  /**
   * Each token's postings: `ids` is what callers get, a view of the first ids of `room`, which
   * has space for more so that a memory this process inserts is added without a copy.
   */
  readonly #postings = new Map<string, { ids: Int32Array; room: Int32Array }>();
  /** Room of {@link #postings} (ids it can hold), all lists together. */
  #postingIds = 0;
  /**
   * The newest holders of tokens read capped (a word held by more memories than a lookup's
   * budget), by token and then by how many were read: a conflict check reads the same words
   * capped as the checks of its neighbours in the import did.
   */
  readonly #newest = new Map<string, Map<number, Int32Array>>();
  /** Ids of {@link #newest}, all lists together. */
  #newestIds = 0;
  /**
   * The counts of the newest memories, not folded into the vocabulary table yet
   * (src/store/terms_sql.ts): read once per stamp, not at each lookup of a word not cached.
   */
  #held: { memories: number; tokens: Map<string, number> } | undefined;

  /** The waiting document counts, read with `load` once per stamp. */
  held(stamp: string | undefined, load: () => HeldCounts): HeldCounts {
    if (!this.#current(stamp)) return load();
    if (!this.#held) {
      const read = load();
      this.#held = { memories: read.memories, tokens: new Map(read.tokens) };
    }
    return this.#held;
  }

  /**
   * How many memories hold each of `tokens`, from the cache where it knows and from `load`
   * (called once, with the tokens it does not know) for the rest.
   */
  frequencies(
    stamp: string | undefined,
    tokens: readonly string[],
    load: (tokens: readonly string[]) => Map<string, number>,
  ): Map<string, number> {
    if (!this.#current(stamp)) return load(tokens);
    const found = new Map<string, number>();
    let missing: string[] | undefined;
    for (const token of tokens) {
      const frequency = this.#frequencies.get(token);
      if (frequency === undefined) (missing ??= []).push(token);
      else found.set(token, frequency);
    }
    if (missing) {
      for (const [token, frequency] of load(missing)) {
        this.#frequencies.set(token, frequency);
        found.set(token, frequency);
      }
    }
    return found;
  }

  /**
   * The ids of the memories holding `token`, read with `load` the first time (shared: callers
   * must not change it). Lists are kept while together they hold at most
   * {@link TERM_CACHE_POSTINGS_MAX} ids; past that the oldest leave first.
   */
  postings(stamp: string | undefined, token: string, load: () => Int32Array): Int32Array {
    if (!this.#current(stamp)) return load();
    const held = this.#postings.get(token);
    if (held) return held.ids;
    const list = load();
    // An empty list counts as one id, so words no memory holds cannot pile up either.
    const size = roomOf(list);
    if (size > TERM_CACHE_POSTINGS_MAX) return list;
    this.#evictPostings(size);
    this.#postings.set(token, { ids: list, room: list });
    this.#postingIds += size;
    return list;
  }

  /**
   * The ids of the `newest` memories holding `token` (the highest ids), read with `load` the
   * first time for that count (shared: callers must not change it). Kept while together they
   * hold at most {@link TERM_CACHE_NEWEST_MAX} ids; past that the oldest leave first.
   */
  newestPostings(
    stamp: string | undefined,
    token: string,
    newest: number,
    load: () => Int32Array,
  ): Int32Array {
    if (!this.#current(stamp)) return load();
    const counts = this.#newest.get(token);
    const held = counts?.get(newest);
    if (counts && held) {
      // Moved last: the words in use stay, the least recently read leave first.
      this.#newest.delete(token);
      this.#newest.set(token, counts);
      return held;
    }
    const list = load();
    const size = roomOf(list);
    if (size > TERM_CACHE_NEWEST_MAX) return list;
    this.#evictNewest(size);
    // Evicting may have dropped this token's other counts (and its map with them).
    const room = this.#newest.get(token) ?? new Map<number, Int32Array>();
    room.set(newest, list);
    this.#newest.delete(token);
    this.#newest.set(token, room);
    this.#newestIds += size;
    return list;
  }

  /**
   * Carries the answers from stamp `before` to `after` when the only memory changes between
   * the two were the insertion of `inserted` (this process's own write, counted by the store):
   * each new memory adds one to the count of every token it holds and its id to their
   * postings, so a `remember` does not empty what the next lookups need. Nothing happens when
   * the cache holds another stamp (the next lookup starts over, as for any change). The
   * waiting counts take the new memories' whose counts wait (`held`), unless an insert
   * `folded` every waiting count into the table (they are read again).
   */
  followInserts(
    before: string,
    after: string,
    inserted: readonly {
      id: number;
      tokens: ReadonlySet<string>;
      held?: boolean;
      folded?: boolean;
    }[],
  ): void {
    if (this.#stamp !== before) return;
    const waiting = inserted.some((memory) => memory.folded) ? undefined : this.#held;
    this.#held = undefined;
    const added = new Map<string, number[]>();
    for (const { id, tokens, held } of inserted) {
      if (waiting && held) waiting.memories++;
      for (const token of tokens) {
        if (waiting && held && token !== ALL_DOCUMENTS_TOKEN) {
          waiting.tokens.set(token, (waiting.tokens.get(token) ?? 0) + 1);
        }
        const frequency = this.#frequencies.get(token);
        if (frequency !== undefined) this.#frequencies.set(token, frequency + 1);
        // A new memory is the newest holder of its tokens: their capped reads change.
        const capped = this.#newest.get(token);
        if (capped) {
          this.#newest.delete(token);
          for (const list of capped.values()) this.#newestIds -= roomOf(list);
        }
        if (this.#postings.has(token)) {
          const ids = added.get(token);
          if (ids) ids.push(id);
          else added.set(token, [id]);
        }
      }
    }
    for (const [token, ids] of added) {
      const held = this.#postings.get(token)!;
      const length = held.ids.length + ids.length;
      if (length > TERM_CACHE_POSTINGS_MAX) {
        this.#postings.delete(token);
        this.#postingIds -= roomOf(held.room);
        continue;
      }
      if (length > held.room.length) {
        // Twice the room (within the bound): a list that keeps growing is copied rarely.
        const room = new Int32Array(
          Math.min(Math.max(length, 2 * held.room.length), TERM_CACHE_POSTINGS_MAX),
        );
        room.set(held.ids);
        this.#postingIds += roomOf(room) - roomOf(held.room);
        held.room = room;
      }
      // Views handed out before keep their length, so they never see the ids added here.
      held.room.set(ids, held.ids.length);
      held.ids = held.room.subarray(0, length);
    }
    this.#evictPostings(0);
    this.#held = waiting;
    // Last: were anything above to fail, the cache would still hold `before` and start over.
    this.#stamp = after;
  }

  /** Drops the oldest postings lists until `room` more ids fit within the bound. */
  #evictPostings(room: number): void {
    for (const [oldest, held] of this.#postings) {
      if (this.#postingIds + room <= TERM_CACHE_POSTINGS_MAX) break;
      this.#postings.delete(oldest);
      this.#postingIds -= roomOf(held.room);
    }
  }

  /** Drops the least recently read tokens' capped lists until `room` more ids fit. */
  #evictNewest(room: number): void {
    for (const [oldest, counts] of this.#newest) {
      if (this.#newestIds + room <= TERM_CACHE_NEWEST_MAX) break;
      this.#newest.delete(oldest);
      for (const list of counts.values()) this.#newestIds -= roomOf(list);
    }
  }

  /** True when answers may be kept for `stamp` (emptying what an older stamp left). */
  #current(stamp: string | undefined): boolean {
    if (stamp === undefined) return false;
    if (stamp !== this.#stamp) {
      this.#frequencies.clear();
      this.#postings.clear();
      this.#postingIds = 0;
      this.#newest.clear();
      this.#newestIds = 0;
      this.#held = undefined;
      this.#stamp = stamp;
    }
    return true;
  }
}
