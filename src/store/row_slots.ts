/**
 * Row id → slot for the in-process vector copy, in typed arrays: an open-addressing hash table
 * (linear probing, deletion by backward shift, so no tombstones) whose entries are slot + 1, and
 * the row id of each slot. At a million vectors that is ~17 MB where a `Map<number, number>`
 * plus an array of ids took ~47 MB, a third of the copy's budget (issue 38: ≤ 150 MB at 1M).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RowSlots } from "./row_slots.ts";
 *
 * const slots = new RowSlots();
 * slots.set(42, 0);
 * slots.set(7, 1);
 * assert.equal(slots.get(42), 0);
 * slots.delete(42);
 * assert.equal(slots.get(42), undefined);
 * assert.equal(slots.rowOf(1), 7);
 * ```
 * @module
 */

/**
 * Table entries at first; the table doubles past three quarters full (linear probing's
 * expected probes there: ~2.5 for a held row, ~8.5 for one not held; at half full the table
 * took 17 MB at 1.1M rows instead of 8).
 */
const INITIAL_ENTRIES = 1_024;

/** Row ids (non-negative safe integers) mapped to slots (0 … 2³¹ − 2). */
export class RowSlots {
  /** Slot + 1 per entry; 0 is empty. */
  #table = new Int32Array(INITIAL_ENTRIES);
  /** The row id held in each slot (float64: exact for every safe integer). */
  #rows = new Float64Array(INITIAL_ENTRIES);
  #size = 0;

  /** Rows held. */
  get size(): number {
    return this.#size;
  }

  /** Bytes of the table and the ids. */
  get bytes(): number {
    return this.#table.byteLength + this.#rows.byteLength;
  }

  /** The row id in `slot` (the last one set there). */
  rowOf(slot: number): number {
    return this.#rows[slot];
  }

  /** The slot of `rowId`, or undefined. */
  get(rowId: number): number | undefined {
    const mask = this.#table.length - 1;
    for (let at = hash(rowId) & mask;; at = (at + 1) & mask) {
      const entry = this.#table[at];
      if (entry === 0) return undefined;
      if (this.#rows[entry - 1] === rowId) return entry - 1;
    }
  }

  /** Maps `rowId` to `slot` (a row not held yet; callers check with {@link get}). */
  set(rowId: number, slot: number): void {
    if (slot >= this.#rows.length) this.reserve(slot + 1 + (this.#rows.length >> 3));
    this.#rows[slot] = rowId;
    if (4 * (this.#size + 1) > 3 * this.#table.length) this.#rehash(this.#table.length * 2);
    this.#insert(slot);
    this.#size++;
  }

  /** Makes room for the ids of `slots` slots (the copy's capacity, as it grows). */
  reserve(slots: number): void {
    if (slots <= this.#rows.length) return;
    const rows = new Float64Array(slots);
    rows.set(this.#rows);
    this.#rows = rows;
  }

  /** Forgets `rowId`; returns its slot, or undefined when it was not held. */
  delete(rowId: number): number | undefined {
    const table = this.#table;
    const mask = table.length - 1;
    let at = hash(rowId) & mask;
    for (;; at = (at + 1) & mask) {
      const entry = table[at];
      if (entry === 0) return undefined;
      if (this.#rows[entry - 1] === rowId) break;
    }
    const slot = table[at] - 1;
    // Backward shift: move later entries of the run into the hole when their home allows it.
    for (let hole = at, next = (at + 1) & mask;; next = (next + 1) & mask) {
      const entry = table[next];
      if (entry === 0) {
        table[hole] = 0;
        break;
      }
      const home = hash(this.#rows[entry - 1]) & mask;
      // The entry may fill the hole unless its home lies after the hole (cyclically).
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        table[hole] = entry;
        hole = next;
      }
    }
    this.#size--;
    return slot;
  }

  #insert(slot: number): void {
    const table = this.#table;
    const mask = table.length - 1;
    let at = hash(this.#rows[slot]) & mask;
    while (table[at] !== 0) at = (at + 1) & mask;
    table[at] = slot + 1;
  }

  #rehash(entries: number): void {
    const old = this.#table;
    this.#table = new Int32Array(entries);
    for (const entry of old) if (entry !== 0) this.#insert(entry - 1);
  }
}

/** Mixes a row id's bits (ids are mostly consecutive; the mix spreads them over the table). */
function hash(rowId: number): number {
  const low = rowId >>> 0;
  const high = (rowId / 4_294_967_296) >>> 0;
  let x = Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1);
  x ^= x >>> 15;
  return Math.imul(x, 0x85ebca6b) ^ (x >>> 13);
}
