/**
 * An in-process copy of the stored vectors for nearest-row lookups. sqlite-vec 0.1.9 only
 * scans: its brute-force KNN over ~100k float[100] vectors took ~36 ms of a ~54 ms hybrid
 * `find` at 100k memories, and its quantized columns (`bit`, `int8`) were slower still with the
 * oversampling their recall needs (measured in docs/ARCHITECTURE.md). This copy holds each vector
 * normalized, in a WebAssembly memory scanned four floats at a time (`vector_scan.ts`): ~2 ms,
 * with the same neighbours and cosine distances (to float rounding).
 *
 * It stays correct across processes by construction: every change to the vector table is logged
 * in `vector_changes` in the same transaction (`evidence_sql.ts`), and before each lookup the
 * copy reads the entries it has not seen and re-reads those rows' current vectors (or reloads
 * everything after the table was recreated, or when entries it needed were pruned). Reading the
 * current state of a logged row is idempotent, so no lock or snapshot is needed.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  iterateVectors,
  type RowOwner,
  scanVectorChunks,
  selectLastVectorChange,
  selectRowOwnersOf,
  selectVector,
  selectVectorChanges,
} from "./evidence_sql.ts";
import { VECTOR_CHANGES_KEPT } from "./constants.ts";
import { createDotKernel, type DotKernel } from "./vector_scan.ts";

const PAGE_BYTES = 65_536;
/** Slots allocated at first; capacity doubles after. */
const INITIAL_SLOTS = 1_024;
/** A vector shorter than this has no direction (the same bound as `models/vectors.ts`). */
const MIN_NORM = 1e-6;

/** A nearest row: its id and cosine distance (1 − cosine), as sqlite-vec reports it. */
export interface NearestRow {
  rowId: number;
  distance: number;
}

/** The float32 values of `bytes` (copied only when they are not 4-byte aligned). */
function floats(bytes: Uint8Array): Float32Array {
  return bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2)
    : new Float32Array(bytes.slice().buffer);
}

/**
 * Writes `source` divided by its norm into `target` (zeros after it: the padding) and returns
 * true, or returns false when it has no direction (zero, tiny or not finite).
 */
function normalizeInto(source: Float32Array, target: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < source.length; i++) sum += source[i] * source[i];
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm < MIN_NORM) return false;
  for (let i = 0; i < source.length; i++) target[i] = source[i] / norm;
  target.fill(0, source.length);
  return true;
}

let kernelSupported: boolean | undefined;

/** The vectors of one connection's database, kept in step with its `vector_changes` log. */
export class VectorMirror {
  readonly #db: DatabaseSync;
  #kernel: DotKernel | undefined;
  /** Dimensions of the stored vectors (0 until one is seen) and floats per slot. */
  #dim = 0;
  #stride = 0;
  #capacity = 0;
  /** Slots in use or freed: the scan covers `#used` slots; freed ones hold NaN. */
  #used = 0;
  #free: number[] = [];
  #slotOf = new Map<number, number>();
  #rowOf: number[] = [];
  /**
   * The memory and version each held row belongs to (null: the row is gone), read at its first
   * lookup and kept until its vector changes: a row's owner never changes (a memory's new rows
   * get new ids, and a vector written for a reused id is logged like any other). Loading them
   * all with the vectors took 1.6 s and 110 MB at 100k memories.
   */
  #owners = new Map<number, RowOwner | null>();
  /** The last logged change this copy reflects; undefined until loaded. */
  #seq: number | undefined;
  /** The change stamp the copy was last brought up to date at ({@link nearest}). */
  #refreshedAt: string | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** True when this runtime can run the scan kernel (WebAssembly SIMD). */
  static supported(): boolean {
    kernelSupported ??= createDotKernel() !== undefined;
    return kernelSupported;
  }

  /** Vectors held (for status and benchmarks). */
  get size(): number {
    return this.#slotOf.size;
  }

  /** Bytes of the kernel's memory (the vectors, the query and the scores). */
  get bytes(): number {
    return this.#kernel?.memory.buffer.byteLength ?? 0;
  }

  /**
   * The `k` rows nearest to `vector` by cosine, nearest first; rows without a direction are
   * never returned. Brings the copy up to date first, unless `stamp` (the connection's change
   * stamp, read in the same snapshot before this call) is the one it was brought up to date
   * at: then nothing was committed since, and the log holds nothing new.
   */
  nearest(vector: Float32Array, k: number, stamp?: string): NearestRow[] {
    if (stamp === undefined || stamp !== this.#refreshedAt) {
      this.#refresh();
      this.#refreshedAt = stamp;
    }
    const kernel = this.#kernel;
    if (kernel === undefined || this.#used === 0 || k <= 0 || vector.length !== this.#dim) {
      return [];
    }
    const query = new Float32Array(kernel.memory.buffer, 0, this.#stride);
    if (!normalizeInto(vector, query)) return [];
    const strideBytes = this.#stride * 4;
    const vectorsAt = strideBytes;
    const scoresAt = vectorsAt + this.#capacity * strideBytes;
    kernel.dots(0, vectorsAt, this.#used, strideBytes, scoresAt);
    const scores = new Float32Array(kernel.memory.buffer, scoresAt, this.#used);
    return topK(scores, Math.min(k, this.#slotOf.size)).map((slot) => ({
      rowId: this.#rowOf[slot],
      distance: 1 - scores[slot],
    }));
  }

  /**
   * The memory and version each of `rowIds` belongs to, for rows this copy holds (call after a
   * lookup, in the same snapshot); rows it does not hold, or that no longer exist, are left out.
   * Owners not read before are read in one query.
   */
  ownersOf(rowIds: readonly number[]): Map<number, RowOwner> {
    const out = new Map<number, RowOwner>();
    const unread = rowIds.filter((rowId) => this.#slotOf.has(rowId) && !this.#owners.has(rowId));
    if (unread.length > 0) {
      const read = selectRowOwnersOf(this.#db, unread);
      for (const rowId of unread) this.#owners.set(rowId, read.get(rowId) ?? null);
    }
    for (const rowId of rowIds) {
      const owner = this.#slotOf.has(rowId) ? this.#owners.get(rowId) : undefined;
      if (owner) out.set(rowId, owner);
    }
    return out;
  }

  /** Reads the changes logged since the last lookup; reloads when that is not possible. */
  #refresh(): void {
    if (this.#seq === undefined) return this.#reload();
    const changes = selectVectorChanges(this.#db, this.#seq, VECTOR_CHANGES_KEPT + 1);
    if (changes.length === 0) return;
    // A gap: entries this copy never saw were pruned. Too many: one scan beats that many reads.
    if (
      changes[0].seq !== this.#seq + 1 || changes.length > VECTOR_CHANGES_KEPT ||
      changes.some((change) => change.rowId === null)
    ) {
      return this.#reload();
    }
    for (const rowId of new Set(changes.map((change) => change.rowId as number))) {
      const bytes = selectVector(this.#db, rowId);
      if (bytes === undefined) this.#remove(rowId);
      // Another size without a logged recreate cannot happen; if it did, start over.
      else if (this.#dim !== 0 && bytes.byteLength !== this.#dim * 4) return this.#reload();
      else this.#put(rowId, bytes);
    }
    this.#seq = changes[changes.length - 1].seq;
  }

  /** Drops the copy and reads every vector again. */
  #reload(): void {
    // The log position first: changes made during the scan are read again next time.
    const seq = selectLastVectorChange(this.#db);
    this.#clear();
    const put = (rowId: number, bytes: Uint8Array) => this.#put(rowId, bytes);
    if (!scanVectorChunks(this.#db, put)) {
      this.#clear();
      for (const { rowId, embedding } of iterateVectors(this.#db)) put(rowId, embedding);
    }
    this.#seq = seq;
  }

  #clear(): void {
    this.#kernel = undefined;
    this.#dim = 0;
    this.#stride = 0;
    this.#capacity = 0;
    this.#used = 0;
    this.#free = [];
    this.#slotOf = new Map();
    this.#rowOf = [];
    this.#owners = new Map();
  }

  #put(rowId: number, bytes: Uint8Array): void {
    this.#owners.delete(rowId);
    const dim = bytes.byteLength / 4;
    if (this.#kernel === undefined || dim !== this.#dim) this.#reset(dim);
    let slot = this.#slotOf.get(rowId);
    const fresh = slot === undefined;
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#used++;
      if (slot >= this.#capacity) this.#grow(slot + 1);
    }
    const target = new Float32Array(
      this.#kernel!.memory.buffer,
      (1 + slot) * this.#stride * 4,
      this.#stride,
    );
    if (normalizeInto(floats(bytes), target)) {
      if (!fresh) return;
      this.#slotOf.set(rowId, slot);
      this.#rowOf[slot] = rowId;
    } else if (fresh) {
      // No direction (a zero vector an older build stored): never a neighbour.
      target.fill(Number.NaN);
      this.#free.push(slot);
    } else {
      this.#remove(rowId);
    }
  }

  #remove(rowId: number): void {
    this.#owners.delete(rowId);
    const slot = this.#slotOf.get(rowId);
    if (slot === undefined) return;
    this.#slotOf.delete(rowId);
    // NaN scores are never selected, so a freed slot can stay in the scan until reused.
    new Float32Array(this.#kernel!.memory.buffer, (1 + slot) * this.#stride * 4, this.#stride)
      .fill(Number.NaN);
    this.#free.push(slot);
  }

  /** Starts an empty copy for vectors of `dim` dimensions. */
  #reset(dim: number): void {
    this.#clear();
    this.#dim = dim;
    this.#stride = Math.ceil(dim / 4) * 4;
    this.#kernel = createDotKernel(Math.ceil(this.#layoutBytes(INITIAL_SLOTS) / PAGE_BYTES));
    if (this.#kernel === undefined) throw new Error("WebAssembly SIMD is not available");
    this.#capacity = INITIAL_SLOTS;
  }

  /** Memory for the query, `slots` vectors and their scores. */
  #layoutBytes(slots: number): number {
    return (1 + slots) * this.#stride * 4 + slots * 4;
  }

  #grow(slots: number): void {
    const capacity = Math.max(slots, this.#capacity * 2);
    const memory = this.#kernel!.memory;
    const needed = Math.ceil(this.#layoutBytes(capacity) / PAGE_BYTES);
    const pages = memory.buffer.byteLength / PAGE_BYTES;
    if (needed > pages) memory.grow(needed - pages);
    this.#capacity = capacity;
  }
}

/** Slots of the `k` highest finite scores, highest first (ties: lower slot first). */
function topK(scores: Float32Array, k: number): number[] {
  if (k <= 0) return [];
  // A min-heap of the best k so far, by score.
  const heap: number[] = [];
  const less = (a: number, b: number) =>
    scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const down = (from: number) => {
    for (let i = from;;) {
      const left = 2 * i + 1, right = left + 1;
      let smallest = i;
      if (left < heap.length && less(heap[left], heap[smallest])) smallest = left;
      if (right < heap.length && less(heap[right], heap[smallest])) smallest = right;
      if (smallest === i) return;
      const swap = heap[i];
      heap[i] = heap[smallest];
      heap[smallest] = swap;
      i = smallest;
    }
  };
  for (let slot = 0; slot < scores.length; slot++) {
    const score = scores[slot];
    if (!(score === score)) continue; // NaN: a freed slot
    if (heap.length < k) {
      heap.push(slot);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!less(heap[i], heap[parent])) break;
        const swap = heap[i];
        heap[i] = heap[parent];
        heap[parent] = swap;
        i = parent;
      }
    } else if (score > scores[heap[0]]) {
      heap[0] = slot;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b] - scores[a] || a - b);
}
