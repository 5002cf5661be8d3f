/**
 * A map that keeps at most a fixed number of entries, for the process's memo tables (stems,
 * index tokens, readings of a text, prepared statements): adding a key past the bound drops the
 * oldest entry first, so a table never outgrows what it was sized for.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BoundedMap } from "./bounded_map.ts";
 *
 * const stems = new BoundedMap<string, string>(2);
 * stems.set("a", "1").set("b", "2").set("c", "3");
 * assert.deepEqual([...stems.keys()], ["b", "c"]);
 * ```
 * @module
 */

/** A `Map` of at most `max` entries; a new key past that evicts the oldest. */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number;

  constructor(max: number) {
    super();
    this.#max = max;
  }

  override set(key: K, value: V): this {
    if (this.size >= this.#max && !this.has(key)) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
