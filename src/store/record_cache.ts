/**
 * Memory records kept between reads while the database has not changed.
 *
 * A `find` reads its whole candidate pool (200 memories) as records; at 1,000 memories that
 * read was a quarter of the query. The cache keeps records for as long as a stamp stays the
 * same (the store passes {@linkcode SqliteConnection.memoriesStamp}, which moves with every
 * insert, update and delete of a memory by any connection); a new stamp empties the cache. So a
 * cached record is always the row as the current snapshot holds it; the cache pays off while
 * reads run without memory writes in between, which is when queries repeat.
 *
 * Cached records are frozen (their tags and metadata too): callers share them, and a caller
 * that changed one would change every later answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecordCache } from "./record_cache.ts";
 *
 * // Up to 100 records, over a library of 1,000 memories.
 * const cache = new RecordCache(100, () => 1000);
 * assert.ok(cache instanceof RecordCache);
 * // cache.read(connection.changeStamp(), [1, 2], (missing) => selectMemories(db, missing));
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import type { MemoryRecord } from "./types.ts";

/** Freezes a value and every object or array inside it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const NOTHING_LOADED: ReadonlyMap<number, MemoryRecord> = new Map();

/**
 * Records by id for one change stamp, at most `max` of them (the oldest leave first). Only while
 * the library holds at most twice that many memories (`librarySize`, read when the stamp
 * changes): a cache holding a small share of a large library mostly churns, and at 100k
 * memories the churn doubled the process's peak memory (~200 → ~400 MB over 800 queries) for
 * few hits.
 */
export class RecordCache {
  readonly #max: number;
  readonly #librarySize: () => number;
  #stamp: string | undefined;
  /** The library's size when the stamp was taken, plus the inserts followed since. */
  #size = 0;
  #admit = false;
  readonly #records: BoundedMap<number, MemoryRecord>;

  constructor(max: number, librarySize: () => number) {
    this.#max = max;
    this.#librarySize = librarySize;
    this.#records = new BoundedMap(max);
  }

  /** How many records are held (for tests and diagnostics). */
  get size(): number {
    return this.#records.size;
  }

  /** The record of `id` if held for this `stamp` (nothing is loaded). */
  peek(stamp: string | undefined, id: number): MemoryRecord | undefined {
    return stamp !== undefined && stamp === this.#stamp ? this.#records.get(id) : undefined;
  }

  /**
   * Keeps the records of stamp `before` for stamp `after` when the only memory changes between
   * the two were `count` new memories (which the cache cannot hold yet); nothing happens when it
   * holds another stamp. A library that grows past twice the bound this way stops being cached,
   * as if the size had been read anew.
   */
  followInserts(before: string, after: string, count: number): void {
    if (this.#stamp !== before) return;
    this.#stamp = after;
    this.#size += count;
    if (this.#admit && this.#size > 2 * this.#max) {
      this.#admit = false;
      this.#records.clear();
    }
  }

  /**
   * The records of `ids` that exist, taking what the cache holds and loading the rest with
   * `load`. An undefined `stamp` means the snapshot may hold changes
   * that are not committed: everything is loaded and nothing is kept.
   */
  read(
    stamp: string | undefined,
    ids: readonly number[],
    load: (ids: readonly number[]) => Map<number, MemoryRecord>,
  ): Map<number, MemoryRecord> {
    if (stamp === undefined || this.#max <= 0) return load(ids);
    if (stamp !== this.#stamp) {
      this.#records.clear();
      this.#stamp = stamp;
      this.#size = this.#librarySize();
      this.#admit = this.#size <= 2 * this.#max;
    }
    if (!this.#admit) return load(ids);
    // No intermediate set or arrays: a `find` asks for 200 ids several times.
    let missing: number[] | undefined;
    for (const id of ids) if (!this.#records.has(id)) (missing ??= []).push(id);
    const loaded = missing ? load(missing) : NOTHING_LOADED;
    for (const record of loaded.values()) this.#records.set(record.id, deepFreeze(record));
    const found = new Map<number, MemoryRecord>();
    for (const id of ids) {
      const record = this.#records.get(id) ?? loaded.get(id);
      if (record) found.set(id, record);
    }
    return found;
  }
}
