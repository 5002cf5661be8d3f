/**
 * An in-process copy of the stored vectors for nearest-row lookups. sqlite-vec 0.1.9 only
 * scans: its brute-force KNN over ~100k float[100] vectors took ~36 ms of a ~54 ms hybrid
 * `find` at 100k memories, and its quantized columns (`bit`, `int8`) were slower still with the
 * oversampling their recall needs (measured in docs/ARCHITECTURE.md). This copy holds each vector
 * quantized to int8 (`quantized_vectors.ts`, shared with the PostgreSQL backend) and scans it
 * with a WebAssembly SIMD kernel (`vector_scan.ts`).
 *
 * It stays correct across processes by construction: every change to the vector table is logged
 * in `vector_changes` in the same transaction (`evidence_sql.ts`), and before each lookup the
 * copy reads the entries it has not seen and re-reads those rows' current vectors (or reloads
 * everything after the table was recreated, or when entries it needed were pruned). Reading the
 * current state of a logged row is idempotent, so no lock or snapshot is needed.
 *
 * Loading every vector costs ~2 µs each (~2 s at a million): a serving process loads the copy
 * a page of chunks at a time between requests ({@link VectorMirror.loadPage}), and until the
 * last page lookups answer from the vectors read so far. The log position is taken when the
 * load starts and the log is read before every page and lookup, so a row changed after its
 * chunk was read is read again like any other change. A process that loads no pages (the CLI,
 * a test) loads everything at its first lookup.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  countStoredVectors,
  iterateVectors,
  type RowOwner,
  scanVectorChunkPage,
  selectLastVectorChange,
  selectRowOwnersOf,
  selectVector,
  selectVectorChanges,
  vecTableDim,
} from "./evidence_sql.ts";
import { VECTOR_CHANGES_KEPT, VECTOR_OWNERS_KEPT } from "./constants.ts";
import { type NearestRow, QuantizedVectors } from "./quantized_vectors.ts";

export type { NearestRow };

/** A load in progress: where its chunk read stands. */
interface Load {
  /** The last chunk read (-1: none yet). */
  afterChunk: number;
  /** Vectors visited so far, and the stored count when it started (progress). */
  visited: number;
  total: number;
}

/** How far the copy is loaded: undefined when it is complete (or holds nothing to load). */
export interface CopyLoadProgress {
  loaded: number;
  total: number;
}

/** sqlite-vec's default vectors per chunk (vec0 `chunk_size`): a page reads 2,048 / this chunks. */
const VEC_CHUNK_SIZE = 1_024;
/** Chunks read per query when a lookup loads the whole copy itself. */
const FULL_LOAD_CHUNKS = 64;

/** The float32 values of `bytes` (copied only when they are not 4-byte aligned). */
function floats(bytes: Uint8Array): Float32Array {
  return bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2)
    : new Float32Array(bytes.slice().buffer);
}

/** The vectors of one connection's database, kept in step with its `vector_changes` log. */
export class VectorMirror {
  readonly #db: DatabaseSync;
  #vectors = new QuantizedVectors();
  /**
   * The memory and version each held row belongs to (null: the row is gone), read at its first
   * lookup and kept until its vector changes: a row's owner never changes (a memory's new rows
   * get new ids, and a vector written for a reused id is logged like any other). Loading them
   * all with the vectors took 1.6 s and 110 MB at 100k memories; at most
   * `VECTOR_OWNERS_KEPT` are kept.
   */
  #owners = new Map<number, RowOwner | null>();
  /** The last logged change this copy reflects; undefined until a load starts. */
  #seq: number | undefined;
  /** The load in progress, if any; lookups meanwhile see the vectors read so far. */
  #load: Load | undefined;
  /** True from {@link loadPage}'s first call to the end of its load: lookups leave it to pages. */
  #paged = false;
  /** The change stamp the copy was last brought up to date at ({@link nearest}). */
  #refreshedAt: string | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** True when this runtime can run the scan kernel (WebAssembly SIMD). */
  static supported(): boolean {
    return QuantizedVectors.supported();
  }

  /** Vectors held (for status and benchmarks). */
  get size(): number {
    return this.#vectors.size;
  }

  /** Bytes of the copy (the quantized vectors, their ids, the query and the scores). */
  get bytes(): number {
    return this.#vectors.bytes;
  }

  /**
   * The `k` rows nearest to `vector` by cosine, nearest first; rows without a direction are
   * never returned. Brings the copy up to date first, unless `stamp` (the connection's change
   * stamp, read in the same snapshot before this call) is the one it was brought up to date
   * at: then nothing was committed since, and the log holds nothing new.
   */
  nearest(vector: Float32Array, k: number, stamp?: string): NearestRow[] {
    this.#catchUp(stamp);
    // Without pages loading in the background, the first lookup loads everything.
    if (this.#load !== undefined && !this.#paged) this.#loadPages(Infinity);
    return this.#vectors.nearest(vector, k);
  }

  /**
   * Reads the next page of the load (about `maxVectors` vectors, none for 0; the load starts
   * when the copy was never loaded), after catching up with the log like a lookup.
   * Returns how far the load is, or undefined once the copy is complete. Call inside one read
   * transaction; until the load completes, lookups no longer finish it themselves.
   */
  loadPage(maxVectors: number, stamp?: string): CopyLoadProgress | undefined {
    this.#paged = true;
    this.#catchUp(stamp);
    if (this.#load !== undefined && maxVectors > 0) this.#loadPages(maxVectors);
    const progress = this.progress;
    // Complete: a later reload (the log outran the copy) is a lookup's to do again, as in any
    // process (a new space's first vectors are few; a restart mid-load stays paged).
    if (progress === undefined) this.#paged = false;
    return progress;
  }

  /** How far the load in progress is; undefined when none is. */
  get progress(): CopyLoadProgress | undefined {
    const load = this.#load;
    return load && { loaded: this.#vectors.size, total: Math.max(load.total, load.visited) };
  }

  /** Starts the copy, then brings it up to date with the log unless `stamp` says nothing moved. */
  #catchUp(stamp: string | undefined): void {
    if (this.#seq === undefined) this.#startLoad();
    else if (stamp === undefined || stamp !== this.#refreshedAt) this.#refresh();
    this.#refreshedAt = stamp;
  }

  /**
   * The memory and version each of `rowIds` belongs to, for rows this copy holds (call after a
   * lookup, in the same snapshot); rows it does not hold, or that no longer exist, are left out.
   * Owners not read before are read in one query.
   */
  ownersOf(rowIds: readonly number[]): Map<number, RowOwner> {
    const out = new Map<number, RowOwner>();
    const held = rowIds.filter((rowId) => this.#vectors.has(rowId));
    let unread = held.filter((rowId) => !this.#owners.has(rowId));
    if (unread.length > 0 && this.#owners.size + unread.length > VECTOR_OWNERS_KEPT) {
      this.#owners = new Map();
      unread = held;
    }
    if (unread.length > 0) {
      const read = selectRowOwnersOf(this.#db, unread);
      for (const rowId of unread) this.#owners.set(rowId, read.get(rowId) ?? null);
    }
    for (const rowId of rowIds) {
      const owner = this.#vectors.has(rowId) ? this.#owners.get(rowId) : undefined;
      if (owner) out.set(rowId, owner);
    }
    return out;
  }

  /** Reads the changes logged since the last lookup; starts over when that is not possible. */
  #refresh(): void {
    const changes = selectVectorChanges(this.#db, this.#seq!, VECTOR_CHANGES_KEPT + 1);
    if (changes.length === 0) return;
    // A gap: entries this copy never saw were pruned. Too many: one scan beats that many reads.
    if (
      changes[0].seq !== this.#seq! + 1 || changes.length > VECTOR_CHANGES_KEPT ||
      changes.some((change) => change.rowId === null)
    ) {
      return this.#startLoad();
    }
    const dim = this.#vectors.dim;
    for (const rowId of new Set(changes.map((change) => change.rowId as number))) {
      const bytes = selectVector(this.#db, rowId);
      this.#owners.delete(rowId);
      if (bytes === undefined) this.#vectors.remove(rowId);
      // Another size without a logged recreate cannot happen; if it did, start over.
      else if (dim !== 0 && bytes.byteLength !== dim * 4) return this.#startLoad();
      else this.#vectors.put(rowId, floats(bytes));
    }
    this.#seq = changes[changes.length - 1].seq;
  }

  /** Drops the copy and starts reading every vector again (the pages follow). */
  #startLoad(): void {
    // The log position first: changes made during the load are read again from there.
    const seq = selectLastVectorChange(this.#db);
    this.#clear();
    const dim = vecTableDim(this.#db);
    const total = countStoredVectors(this.#db);
    if (dim !== undefined) this.#vectors.reserve(dim, total);
    this.#seq = seq;
    this.#load = { afterChunk: -1, visited: 0, total };
  }

  /** Reads one page of about `maxVectors` vectors, or every page left when that is Infinity. */
  #loadPages(maxVectors: number): void {
    const load = this.#load!;
    const put = (rowId: number, bytes: Uint8Array) => this.#vectors.put(rowId, floats(bytes));
    for (;;) {
      // Chunks holding deleted slots make a lighter page, never a heavier one.
      const maxChunks = Number.isFinite(maxVectors)
        ? Math.max(1, Math.round(maxVectors / VEC_CHUNK_SIZE))
        : FULL_LOAD_CHUNKS;
      const page = scanVectorChunkPage(this.#db, { afterChunk: load.afterChunk, maxChunks }, put);
      if (page === undefined) return this.#readRowByRow();
      load.afterChunk = page.lastChunk;
      load.visited += page.visited;
      if (page.done) break;
      if (Number.isFinite(maxVectors)) return;
    }
    this.#load = undefined;
  }

  /**
   * Reads every vector through the virtual table, in one go (~17 µs a vector): only when the
   * chunk tables are not laid out as expected.
   */
  #readRowByRow(): void {
    const seq = selectLastVectorChange(this.#db);
    this.#clear();
    for (const { rowId, embedding } of iterateVectors(this.#db)) {
      this.#vectors.put(rowId, floats(embedding));
    }
    this.#seq = seq;
  }

  #clear(): void {
    this.#vectors.clear();
    this.#owners = new Map();
    this.#load = undefined;
  }
}
