/**
 * A server's in-process copy of the vectors (issue 33: Debian's PostgreSQL has no pgvector, so
 * vectors are stored portably and searched here). Loaded a page at a time between requests by a
 * serving process (lookups meanwhile answer from what it holds), or at the first lookup by any
 * other, then brought up to date before each lookup from `vector_changes`, which a trigger fills for every insert, update and
 * delete made by any server; a copy further behind than the log keeps is loaded again. The copy
 * is the SQLite backend's (`../quantized_vectors.ts`: int8, scanned by WebAssembly SIMD), so both
 * backends find the same rows at the same distances; `cosineNearest` is the exact scan a unit of
 * work uses over the table itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cosineNearest } from "./vector_copy.ts";
 *
 * const vectors = new Map([[1, new Float32Array([1, 0])], [2, new Float32Array([0, 1])]]);
 * const [best] = cosineNearest(vectors, new Float32Array([1, 0.1]), 1);
 * assert.equal(best.rowId, 1, "nearest is the closest direction");
 * ```
 * @module
 */
import type { PgQuery } from "./core.ts";
import { VECTOR_CHANGES_KEPT } from "../constants.ts";
import { QuantizedVectors } from "../quantized_vectors.ts";

/** Rows read per round trip while loading every vector (bounded memory at any size). */
const RELOAD_BATCH = 2_000;

/** Rows nearest to `query` by cosine distance (0 = same direction), nearest first (ties: lower id). */
export function cosineNearest(
  vectors: ReadonlyMap<number, Float32Array>,
  query: Float32Array,
  k: number,
): { rowId: number; distance: number }[] {
  let queryNorm = 0;
  for (let i = 0; i < query.length; i++) queryNorm += query[i] * query[i];
  queryNorm = Math.sqrt(queryNorm);
  const found: { rowId: number; distance: number }[] = [];
  if (queryNorm === 0 || k <= 0) return found;
  for (const [rowId, vector] of vectors) {
    if (vector.length !== query.length) continue;
    let dot = 0;
    let norm = 0;
    for (let i = 0; i < vector.length; i++) {
      dot += vector[i] * query[i];
      norm += vector[i] * vector[i];
    }
    // A zero vector has no direction: it is never anyone's neighbour.
    if (norm === 0) continue;
    found.push({ rowId, distance: 1 - dot / (Math.sqrt(norm) * queryNorm) });
  }
  found.sort((a, b) => a.distance - b.distance || a.rowId - b.rowId);
  return found.slice(0, k);
}

/** A load in progress: the last row id read (keyset pages) and the count when it began. */
interface Load {
  after: number;
  total: number;
}

/** The copy of every vector, as of the last change it read. */
export class VectorCopy {
  #vectors = new QuantizedVectors();
  #seq: number | undefined;
  /** The load in progress, if any; lookups meanwhile see the vectors read so far. */
  #load: Load | undefined;
  /** True while a serving process loads the copy in pages ({@link loadPage}). */
  #paged = false;
  /**
   * The catch-up in progress: lookups and pages wait for it and run theirs after it, one at a
   * time. A load spans many round trips, and a second one started beside it would clear the
   * copy under the first (whose lookup would then see part of the vectors).
   */
  #caughtUp: Promise<void> = Promise.resolve();

  /**
   * Forgets every vector and any load in progress (pgvector's index answers now: the copy's
   * memory is freed, and it no longer reports a load that will not finish).
   */
  drop(): void {
    this.#vectors.clear();
    this.#load = undefined;
    this.#seq = undefined;
    this.#paged = false;
  }

  /** True when this runtime can run the copy's scan (WebAssembly SIMD). */
  static supported(): boolean {
    return QuantizedVectors.supported();
  }

  get size(): number {
    return this.#vectors.size;
  }

  get bytes(): number {
    return this.#vectors.bytes;
  }

  /** How far the load in progress is; undefined when none is. */
  get progress(): { loaded: number; total: number } | undefined {
    const load = this.#load;
    return load && { loaded: this.#vectors.size, total: Math.max(load.total, this.#vectors.size) };
  }

  /**
   * The `k` nearest rows to `query`, after catching up with every server's writes. Without
   * pages loading in the background ({@link loadPage}), the first lookup loads every vector.
   */
  async nearest(
    sql: PgQuery,
    query: Float32Array,
    k: number,
  ): Promise<{ rowId: number; distance: number }[]> {
    await this.#inTurn(async () => {
      await this.#refresh(sql);
      if (this.#load !== undefined && !this.#paged) await this.#loadPages(sql, Infinity);
    });
    return this.#vectors.nearest(query, k);
  }

  /**
   * Reads the next page of the load (about `maxVectors` vectors, none for 0; it starts when the
   * copy was never loaded), after catching up with the log like a lookup. Returns how far the load is,
   * or undefined once the copy is complete; until then lookups answer from what it holds.
   */
  async loadPage(
    sql: PgQuery,
    maxVectors: number,
  ): Promise<{ loaded: number; total: number } | undefined> {
    this.#paged = true;
    await this.#inTurn(async () => {
      await this.#refresh(sql);
      if (this.#load !== undefined && maxVectors > 0) await this.#loadPages(sql, maxVectors);
    });
    const progress = this.progress;
    // Complete: a later reload (the log outran the copy) is a lookup's to do again.
    if (progress === undefined) this.#paged = false;
    return progress;
  }

  async #inTurn(work: () => Promise<void>): Promise<void> {
    const turn = this.#caughtUp.then(work);
    this.#caughtUp = turn.catch(() => {});
    await turn;
  }

  async #refresh(sql: PgQuery): Promise<void> {
    const [last] = await sql`SELECT coalesce(max(seq), 0) AS seq, coalesce(min(seq), 0) AS first
      FROM vector_changes`;
    const latest = Number(last.seq);
    if (this.#seq === latest) return;
    // First use, or further behind than the log reaches: load everything.
    if (this.#seq === undefined || Number(last.first) > this.#seq + 1) {
      return await this.#startLoad(sql, latest);
    }
    const changed = await sql`SELECT DISTINCT c.row_id, v.embedding FROM vector_changes c
      LEFT JOIN memory_row_vectors v ON v.row_id = c.row_id
      WHERE c.seq > ${this.#seq} AND c.seq <= ${latest}`;
    for (const row of changed) {
      if (row.row_id === null) return await this.#startLoad(sql, latest);
      const rowId = Number(row.row_id);
      if (row.embedding === null) this.#vectors.remove(rowId);
      else this.#vectors.put(rowId, Float32Array.from(row.embedding as number[]));
    }
    this.#seq = latest;
  }

  /**
   * Drops the copy and starts loading every vector; changes logged after `latest` are read
   * again by the next catch-up, so a row changed after its page was read stays right.
   */
  async #startLoad(sql: PgQuery, latest: number): Promise<void> {
    this.#vectors.clear();
    const [{ count }] = await sql`SELECT count(*) AS count FROM memory_row_vectors`;
    this.#load = { after: -1, total: Number(count) };
    this.#seq = latest;
  }

  /**
   * Reads pages of the load in row order, one of about `maxVectors` rows or all that are left
   * (keyset pages: the whole table as JavaScript arrays of numbers was ~1 KB a vector, 1 GB at
   * a million).
   */
  async #loadPages(sql: PgQuery, maxVectors: number): Promise<void> {
    const load = this.#load!;
    const limit = Number.isFinite(maxVectors) ? Math.max(1, maxVectors) : RELOAD_BATCH;
    for (;;) {
      // One row more than the page takes says whether any is left after it.
      const rows = await sql`SELECT row_id, embedding FROM memory_row_vectors
        WHERE row_id > ${load.after} ORDER BY row_id LIMIT ${limit + 1}`;
      const more = rows.length > limit;
      if (more) rows.pop();
      // Room for every vector at once (growing as it loads would leave up to a sixteenth spare).
      if (load.after === -1 && rows.length > 0) {
        this.#vectors.reserve((rows[0].embedding as number[]).length, load.total);
      }
      for (const row of rows) {
        this.#vectors.put(Number(row.row_id), Float32Array.from(row.embedding as number[]));
      }
      if (!more) break;
      load.after = Number(rows[rows.length - 1].row_id);
      if (Number.isFinite(maxVectors)) return;
    }
    this.#load = undefined;
  }
}

/** Keeps the newest entries of the change log (a copy further behind reloads). */
export async function pruneVectorChanges(sql: PgQuery): Promise<void> {
  await sql`DELETE FROM vector_changes
    WHERE seq <= (SELECT max(seq) FROM vector_changes) - ${VECTOR_CHANGES_KEPT}`;
}
