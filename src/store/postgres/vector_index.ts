/**
 * Vector search by pgvector (issue 33), when the database has the `vector` extension installed:
 * each stored vector is also a `vector(dim)` column (`embedding_hnsw`, generated from the
 * portable `real[]` one, so every write path, `mema copy` and the change log stay as they are)
 * with an HNSW index by cosine distance, and a lookup is one `ORDER BY ... <=> ... LIMIT k`
 * under the recall filters. No server then keeps a copy of the vectors (vector_copy.ts).
 *
 * mema never creates the extension (that needs a superuser or a managed service's role, and is
 * the database owner's decision: docs/POSTGRES.md); it builds the column and its index when it
 * finds the extension installed and an embedding space chosen: at every open, under the
 * migration lock (the first open after `CREATE EXTENSION vector` builds them over every stored
 * vector, once), and when the space changes (the table is empty then). HNSW indexes `vector`
 * columns of up to {@linkcode HNSW_MAX_DIM} dimensions; a larger space keeps the copy.
 *
 * Filters: pgvector 0.8 and later scan the index iteratively (`hnsw.iterative_scan =
 * strict_order`), so a filtered lookup (a strict workspace, a status, a time window) keeps
 * reading the index until `k` rows pass, in distance order; older versions read `ef_search`
 * (at least `k`) candidates and filter those, so a narrow filter may return fewer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scansIteratively } from "./vector_index.ts";
 *
 * assert.equal(scansIteratively("0.8.1"), true, "filters hold the index scan until k rows pass");
 * assert.equal(scansIteratively("0.7.4"), false);
 * ```
 * @module
 */
import type { PgQuery } from "./core.ts";
import type { RecallFilters } from "../types.ts";
import { filterCondition } from "./recall_room.ts";

/** pgvector's limit on the dimensions of an indexed `vector` column (HNSW and IVFFlat). */
export const HNSW_MAX_DIM = 2_000;

/** The largest `hnsw.ef_search` pgvector accepts. */
const EF_SEARCH_MAX = 1_000;

/**
 * Builds the pgvector column and its HNSW index for the current space, or drops them when there
 * is no space (or one too wide to index); does nothing without the extension, or when they
 * already fit. Run by migration 11, by every open, and when the space changes.
 */
export const ENSURE_VECTOR_INDEX = `
DO $$
DECLARE
  dim integer;
  have text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    RETURN;
  END IF;
  SELECT value::integer INTO dim FROM meta WHERE key = 'pg_vector_dim';
  SELECT format_type(atttypid, atttypmod) INTO have FROM pg_attribute
    WHERE attrelid = 'memory_row_vectors'::regclass AND attname = 'embedding_hnsw'
      AND NOT attisdropped;
  IF dim IS NOT NULL AND dim <= ${HNSW_MAX_DIM} AND have = format('vector(%s)', dim) THEN
    RETURN;
  END IF;
  IF have IS NOT NULL THEN
    ALTER TABLE memory_row_vectors DROP COLUMN embedding_hnsw;
  END IF;
  IF dim IS NULL OR dim > ${HNSW_MAX_DIM} THEN
    RETURN;
  END IF;
  EXECUTE format('ALTER TABLE memory_row_vectors ADD COLUMN embedding_hnsw vector(%s)
    GENERATED ALWAYS AS (embedding::vector(%s)) STORED', dim, dim);
  CREATE INDEX memory_row_vectors_hnsw ON memory_row_vectors
    USING hnsw (embedding_hnsw vector_cosine_ops);
END
$$;
`;

/** Builds or drops the pgvector column and index to fit the current space (see above). */
export async function ensureVectorIndex(sql: PgQuery): Promise<void> {
  await sql.unsafe(ENSURE_VECTOR_INDEX).simple();
}

/**
 * The dimension of the pgvector column mema searches, or null when there is none (no
 * extension, no space chosen yet, or the index not built yet: doctor reads before any open).
 */
export async function readVectorIndex(sql: PgQuery): Promise<number | null> {
  const [row] = await sql`SELECT format_type(a.atttypid, a.atttypmod) AS type
    FROM pg_attribute a
    WHERE a.attrelid = to_regclass('memory_row_vectors') AND a.attname = 'embedding_hnsw'
      AND NOT a.attisdropped
      AND EXISTS (SELECT 1 FROM pg_index i
        WHERE i.indexrelid = to_regclass('memory_row_vectors_hnsw') AND i.indisvalid)`;
  const dim = row ? /^vector\((\d+)\)$/.exec(String(row.type))?.[1] : undefined;
  return dim === undefined ? null : Number(dim);
}

/** True when `version` (pgvector's, e.g. "0.8.1") scans an HNSW index iteratively (0.8+). */
export function scansIteratively(version: string): boolean {
  const [major, minor] = version.split(".").map(Number);
  return major > 0 || minor >= 8;
}

/**
 * The `k` rows nearest to `query` by the HNSW index, nearest first; with `filters`, only current
 * rows (their memory's version) of memories passing them, each with its memory. `sql` must be
 * a transaction (the index's settings are set for it alone).
 */
export async function nearestByIndex(
  sql: PgQuery,
  query: Float32Array,
  options: { k: number; pgvector: string; filters?: RecallFilters },
): Promise<{ rowId: number; distance: number; memoryId: number }[]> {
  const { k, filters } = options;
  if (k <= 0) return [];
  const efSearch = String(Math.min(EF_SEARCH_MAX, Math.max(40, k)));
  if (scansIteratively(options.pgvector)) {
    await sql`SELECT set_config('hnsw.iterative_scan', 'strict_order', true),
      set_config('hnsw.ef_search', ${efSearch}, true)`;
  } else {
    await sql`SELECT set_config('hnsw.ef_search', ${efSearch}, true)`;
  }
  // Sent as `real[]` and cast: the driver knows that type, while a parameter typed `vector` (an
  // extension's type) makes it pause the connection and read the catalog's types on another.
  const target = sql`${Array.from(query)}::real[]::vector`;
  const rows = filters
    ? await sql`SELECT v.row_id, r.memory_id, v.embedding_hnsw <=> ${target} AS distance
      FROM memory_row_vectors v
      JOIN memory_rows r ON r.id = v.row_id
      JOIN memories m ON m.id = r.memory_id
      WHERE r.memory_version = m.version AND ${filterCondition(sql, filters)}
      ORDER BY v.embedding_hnsw <=> ${target} LIMIT ${k}`
    : await sql`SELECT v.row_id, 0 AS memory_id, v.embedding_hnsw <=> ${target} AS distance
      FROM memory_row_vectors v
      ORDER BY v.embedding_hnsw <=> ${target} LIMIT ${k}`;
  return rows.map((row) => ({
    rowId: Number(row.row_id),
    distance: Number(row.distance),
    memoryId: Number(row.memory_id),
  }));
}
