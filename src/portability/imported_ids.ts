/**
 * The ids an import gave the memories of an export: old id (in the exporting database) → id
 * here, for `follows`. An export lists memories in id order, so the pairs arrive sorted and
 * are kept in two growing typed arrays, found by binary search: 16 bytes a memory where a
 * `Map` took ~60 (1.1 million entries: an estimated ~70 MB of a streamed import's 518 MB). An id that
 * arrives out of order goes to a small `Map` beside them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ImportedIds } from "./imported_ids.ts";
 *
 * const ids = new ImportedIds();
 * ids.set(7, 1);
 * ids.set(9, 2);
 * ids.set(3, 3); // out of order
 * assert.equal(ids.get(9), 2);
 * assert.equal(ids.get(3), 3);
 * assert.equal(ids.get(8), undefined);
 * ```
 * @module
 */

/** Old id → new id; see the module documentation. */
export class ImportedIds {
  #old = new Float64Array(1024);
  #new = new Float64Array(1024);
  #size = 0;
  readonly #unsorted = new Map<number, number>();

  /** The new id of `oldId`, if it was imported. */
  get(oldId: number): number | undefined {
    const unsorted = this.#unsorted.get(oldId);
    if (unsorted !== undefined) return unsorted;
    const at = this.#find(oldId);
    return at < 0 ? undefined : this.#new[at];
  }

  /** Records (or replaces) the new id of `oldId`. */
  set(oldId: number, newId: number): void {
    if (this.#size === 0 || oldId > this.#old[this.#size - 1]) {
      if (this.#size === this.#old.length) this.#grow();
      this.#old[this.#size] = oldId;
      this.#new[this.#size++] = newId;
      return;
    }
    const at = this.#find(oldId);
    if (at >= 0) this.#new[at] = newId;
    else this.#unsorted.set(oldId, newId);
  }

  #find(oldId: number): number {
    let low = 0;
    let high = this.#size - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = this.#old[middle];
      if (value === oldId) return middle;
      if (value < oldId) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  #grow(): void {
    const old = new Float64Array(this.#old.length * 2);
    const fresh = new Float64Array(this.#new.length * 2);
    old.set(this.#old);
    fresh.set(this.#new);
    [this.#old, this.#new] = [old, fresh];
  }
}
