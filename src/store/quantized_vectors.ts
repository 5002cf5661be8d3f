/**
 * The vectors a process keeps for nearest-row lookups, quantized (issue 38: at a million
 * vectors of 100 dimensions a float32 copy is 400 MB and its scan ~25 ms; the target is ≤ 150 MB
 * with the ids). Both backends keep one: SQLite's `vector_mirror.ts` and PostgreSQL's
 * `postgres/vector_copy.ts` feed it what their change logs report. The database keeps the exact
 * float32 vectors; only this copy is approximate.
 *
 * Each vector is normalized, then scaled so its largest component is ±127 and rounded to int8
 * (per-vector scale: a fixed one would waste most of the range on 100-dimensional unit vectors,
 * whose components rarely pass ±0.4). Its slot holds `1 / |v₈|` (the norm of the rounded vector)
 * and the int8 components; the query is rounded to int16 (≈ exact), so a slot's score
 * `(q₁₆ · v₈) / |v₈|`, divided by `|q₁₆|`, is the cosine between the query and the rounded
 * vector's direction. At 100 dimensions that differs from the exact cosine by ~1e-3 at most, and
 * the top 10 of a real query are the exact ones (tests/store/quantized_vectors_test.ts; the
 * LoCoMo cost is in docs/benchmarks.md). 108 bytes a vector, 16 more for its id and slot.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { QuantizedVectors } from "./quantized_vectors.ts";
 *
 * if (QuantizedVectors.supported()) {
 *   const copy = new QuantizedVectors();
 *   copy.put(1, new Float32Array([1, 0, 0]));
 *   copy.put(2, new Float32Array([0, 1, 0]));
 *   const [best] = copy.nearest(new Float32Array([0.9, 0.1, 0]), 1);
 *   assert.equal(best.rowId, 1);
 *   assert.ok(Math.abs(best.distance - (1 - 0.9 / Math.hypot(0.9, 0.1))) < 1e-3);
 * }
 * ```
 * @module
 */
import { RowSlots } from "./row_slots.ts";
import { createDotKernel, type DotKernel } from "./vector_scan.ts";

const PAGE_BYTES = 65_536;
/** Slots allocated at first. */
const INITIAL_SLOTS = 1_024;
/**
 * Growth past that: a sixteenth more each time, so a million vectors reserve ≤ 1.0625M slots
 * (doubling reserved up to 2M: 216 MB for 1.05M vectors; eighths took the 1.1M vectors of the
 * 1M-memory library to 163 MB with the ids). WebAssembly memory grows in place, so small steps
 * cost nothing but their count. A full load reserves its count at once ({@link reserve}).
 */
const GROWTH_SHIFT = 4;
/** A vector shorter than this has no direction (the same bound as `models/vectors.ts`). */
const MIN_NORM = 1e-6;
/** The largest int8 component of a quantized vector. */
const INT8_MAX = 127;
/** Bytes before a slot's components: its float32 scale. */
const SCALE_BYTES = 4;

/** A nearest row: its id and cosine distance (1 − cosine), as sqlite-vec reports it. */
export interface NearestRow {
  rowId: number;
  distance: number;
}

let kernelSupported: boolean | undefined;

/** Vectors of one dimension, int8-quantized, scanned by the kernel of `vector_scan.ts`. */
export class QuantizedVectors {
  #kernel: DotKernel | undefined;
  /** Dimensions of the stored vectors (0 until one is seen); components per slot (× 8). */
  #dim = 0;
  #padded = 0;
  #capacity = 0;
  /** Slots in use or freed: the scan covers `#used` slots; freed ones score NaN. */
  #used = 0;
  #free: number[] = [];
  #slots = new RowSlots();
  /** Views on the kernel's memory, made again when it grows (growth detaches the old ones). */
  #int8: Int8Array<ArrayBufferLike> = new Int8Array(0);
  #view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

  /** True when this runtime can run the scan kernel (WebAssembly SIMD). */
  static supported(): boolean {
    kernelSupported ??= createDotKernel() !== undefined;
    return kernelSupported;
  }

  /** Vectors held. */
  get size(): number {
    return this.#slots.size;
  }

  /** Dimensions of the vectors held (0 when none was put since the last clear). */
  get dim(): number {
    return this.#dim;
  }

  /** Bytes of the copy: the kernel's memory (query, slots, scores) and the id table. */
  get bytes(): number {
    return (this.#kernel?.memory.buffer.byteLength ?? 0) + this.#slots.bytes;
  }

  /** True when `rowId`'s vector is held. */
  has(rowId: number): boolean {
    return this.#slots.get(rowId) !== undefined;
  }

  /** Drops every vector (and the memory they used). */
  clear(): void {
    this.#kernel = undefined;
    this.#dim = 0;
    this.#padded = 0;
    this.#capacity = 0;
    this.#used = 0;
    this.#free = [];
    this.#slots = new RowSlots();
    this.#int8 = new Int8Array(0);
    this.#view = new DataView(new ArrayBuffer(0));
  }

  /** Makes room for `count` vectors of `dim` dimensions at once (before a full load). */
  reserve(dim: number, count: number): void {
    if (this.#kernel === undefined || dim !== this.#dim) this.#reset(dim);
    if (count > this.#capacity) this.#grow(count, true);
  }

  /**
   * Holds `vector` (any length; another length than the vectors held starts the copy over) as
   * `rowId`'s; a vector without a direction (zero, tiny, not finite) is dropped instead.
   */
  put(rowId: number, vector: Float32Array): void {
    if (this.#kernel === undefined || vector.length !== this.#dim) this.#reset(vector.length);
    let slot = this.#slots.get(rowId);
    const at = (slot ?? 0) * this.#stride + this.#slotsAt;
    if (slot !== undefined && !this.#quantizeInto(vector, at)) return this.remove(rowId);
    if (slot !== undefined) return;
    slot = this.#free.pop() ?? this.#used;
    if (slot >= this.#capacity) this.#grow(slot + 1);
    if (!this.#quantizeInto(vector, this.#slotsAt + slot * this.#stride)) {
      // No direction (a zero vector an older build stored): never a neighbour.
      if (slot < this.#used) this.#free.push(slot);
      return;
    }
    if (slot === this.#used) this.#used++;
    this.#slots.set(rowId, slot);
  }

  /** Forgets `rowId`'s vector (nothing when it is not held). */
  remove(rowId: number): void {
    const slot = this.#slots.delete(rowId);
    if (slot === undefined) return;
    // A NaN scale scores NaN, never selected, so a freed slot can stay in the scan until reused.
    this.#view.setFloat32(this.#slotsAt + slot * this.#stride, Number.NaN, true);
    this.#free.push(slot);
  }

  /** The `k` rows nearest to `vector` by cosine, nearest first; none without a direction. */
  nearest(vector: Float32Array, k: number): NearestRow[] {
    const kernel = this.#kernel;
    if (kernel === undefined || this.#slots.size === 0 || k <= 0 || vector.length !== this.#dim) {
      return [];
    }
    const queryNorm = this.#quantizeQuery(vector);
    if (queryNorm === 0) return [];
    const scoresAt = this.#slotsAt + this.#capacity * this.#stride;
    kernel.dots(0, this.#slotsAt, this.#used, this.#stride, scoresAt);
    const scores = new Float32Array(kernel.memory.buffer, scoresAt, this.#used);
    const rowOf = (slot: number) => this.#slots.rowOf(slot);
    return topK(scores, Math.min(k, this.#slots.size), rowOf).map((slot) => ({
      rowId: this.#slots.rowOf(slot),
      // Rounding can put an identical vector a hair past cosine 1.
      distance: Math.max(0, 1 - scores[slot] / queryNorm),
    }));
  }

  /** Bytes a slot takes: its scale, then its components. */
  get #stride(): number {
    return SCALE_BYTES + this.#padded;
  }

  /** Where the slots start: after the int16 query (16-byte aligned). */
  get #slotsAt(): number {
    return Math.ceil((2 * this.#padded) / 16) * 16;
  }

  /** Starts an empty copy for vectors of `dim` dimensions. */
  #reset(dim: number): void {
    this.clear();
    this.#dim = dim;
    this.#padded = Math.ceil(dim / 8) * 8;
    this.#kernel = createDotKernel(Math.ceil(this.#layoutBytes(INITIAL_SLOTS) / PAGE_BYTES));
    if (this.#kernel === undefined) throw new Error("WebAssembly SIMD is not available");
    this.#capacity = INITIAL_SLOTS;
    this.#remakeViews();
  }

  #remakeViews(): void {
    const buffer = this.#kernel!.memory.buffer;
    this.#int8 = new Int8Array(buffer);
    this.#view = new DataView(buffer);
  }

  /** Memory for the query, `slots` slots and their scores. */
  #layoutBytes(slots: number): number {
    return this.#slotsAt + slots * (this.#stride + 4);
  }

  /** Room for `slots` slots: exactly (a full load knows its count), or with some to spare. */
  #grow(slots: number, exact = false): void {
    const capacity = exact ? slots : Math.max(
      slots,
      this.#capacity + Math.max(INITIAL_SLOTS, this.#capacity >> GROWTH_SHIFT),
    );
    this.#slots.reserve(capacity);
    const memory = this.#kernel!.memory;
    const needed = Math.ceil(this.#layoutBytes(capacity) / PAGE_BYTES);
    const pages = memory.buffer.byteLength / PAGE_BYTES;
    if (needed > pages) {
      memory.grow(needed - pages);
      this.#remakeViews();
    }
    this.#capacity = capacity;
  }

  /** Writes `vector`'s slot at byte `at`; false (nothing written) when it has no direction. */
  #quantizeInto(vector: Float32Array, at: number): boolean {
    // Scaling by the largest component makes normalizing first unnecessary: the integers are
    // the same, and the slot's scale is the rounded vector's own norm.
    let sum = 0;
    let largest = 0;
    for (let i = 0; i < vector.length; i++) {
      const value = vector[i];
      sum += value * value;
      const magnitude = value < 0 ? -value : value;
      if (magnitude > largest) largest = magnitude;
    }
    const norm = Math.sqrt(sum);
    if (!Number.isFinite(norm) || norm < MIN_NORM) return false;
    const components = this.#int8;
    const first = at + SCALE_BYTES;
    const scale = INT8_MAX / largest;
    let squares = 0;
    for (let i = 0; i < vector.length; i++) {
      const value = Math.round(vector[i] * scale);
      components[first + i] = value;
      squares += value * value;
    }
    components.fill(0, first + vector.length, first + this.#padded);
    this.#view.setFloat32(at, 1 / Math.sqrt(squares), true);
    return true;
  }

  /**
   * Writes the query as int16 at byte 0 and returns the norm of those integers (0: no
   * direction). Its largest component is ±32,767 unless the dot products could then pass the
   * int32 range (|q₁₆ · v₈| ≤ 127 · max|q₁₆| · dims): then smaller.
   */
  #quantizeQuery(vector: Float32Array): number {
    let largest = 0;
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i])) return 0;
      largest = Math.max(largest, Math.abs(vector[i]));
    }
    if (!(largest > 0)) return 0;
    const top = Math.min(32_767, Math.floor(2_147_483_647 / (INT8_MAX * this.#padded)));
    const scale = top / largest;
    const query = new Int16Array(this.#kernel!.memory.buffer, 0, this.#padded);
    let squares = 0;
    for (let i = 0; i < vector.length; i++) {
      const value = Math.round(vector[i] * scale);
      query[i] = value;
      squares += value * value;
    }
    query.fill(0, vector.length);
    // A query whose largest component dwarfs the rest still has that one; tiny ones have none.
    let sum = 0;
    for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
    if (Math.sqrt(sum) < MIN_NORM) return 0;
    return Math.sqrt(squares);
  }
}

/**
 * Slots of the `k` highest finite scores, highest first. Ties (identical vectors score alike)
 * go to the lower row id, whatever slots the rows landed in: both backends answer alike.
 *
 * One comparison per slot: a slot at or above the bar joins a buffer, and when the buffer is
 * full it is cut to its best `k`, whose lowest score becomes the bar. The bar only rises, so
 * every slot of the final best `k` is still in the buffer at the end; over scores in no
 * particular order about k·ln(n/k) slots join it. Against the binary heap it replaced (k = 100
 * over 1.1M scores, same run, loaded machine): 2.67 ms against 3.04 ms at p50, same slots.
 */
function topK(scores: Float32Array, k: number, rowOf: (slot: number) => number): number[] {
  if (k <= 0) return [];
  const capacity = Math.max(TOP_K_BUFFER_MIN, 4 * k);
  const buffer = new Int32Array(capacity);
  const order = (a: number, b: number) => scores[b] - scores[a] || rowOf(a) - rowOf(b);
  let held = 0;
  // NaN (a freed slot) fails every comparison, so it never joins.
  let bar = Number.NEGATIVE_INFINITY;
  for (let slot = 0; slot < scores.length; slot++) {
    if (!(scores[slot] >= bar)) continue;
    buffer[held++] = slot;
    if (held === capacity) {
      const best = Array.from(buffer).sort(order);
      buffer.set(best.slice(0, k));
      held = k;
      bar = scores[buffer[k - 1]];
    }
  }
  return Array.from(buffer.subarray(0, held)).sort(order).slice(0, k);
}

/** The smallest buffer {@link topK} cuts to its best k (4k for larger k). */
const TOP_K_BUFFER_MIN = 1_024;
