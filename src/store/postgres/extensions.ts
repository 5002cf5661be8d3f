/**
 * The extensions mema looks for on a PostgreSQL server, and which vector search that leaves
 * active (issue 33). `pg_trgm` serves substring and CJK matches (the migrations create it).
 * With `vector` (pgvector) installed, mema keeps an HNSW index over the vectors and searches it
 * (vector_index.ts); without it (Debian 12's PostgreSQL 15 ships none), or before an embedding
 * space is chosen, vectors are searched through each server's in-process copy (vector_copy.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeVectorPath } from "./extensions.ts";
 *
 * const absent = { vector: null, vectorAvailable: false, vectorIndex: null };
 * assert.match(describeVectorPath(absent), /in-process copy.*not installed/);
 * const indexed = { vector: "0.8.1", vectorAvailable: true, vectorIndex: 384 };
 * assert.match(describeVectorPath(indexed), /^pgvector 0\.8\.1 \(HNSW/);
 * ```
 * @module
 */
import type { PgQuery } from "./core.ts";
import type { PgExtensions } from "./facts.ts";
import { HNSW_MAX_DIM, readVectorIndex } from "./vector_index.ts";

export type { PgExtensions } from "./facts.ts";

/** Reads which of mema's extensions the server has, and whether the pgvector index is built. */
export async function readExtensions(sql: PgQuery): Promise<PgExtensions> {
  const rows = await sql<{ name: string; installed_version: string | null }[]>`
    SELECT name, installed_version FROM pg_available_extensions
    WHERE name IN ('pg_trgm', 'vector')`;
  const installed = (name: string) =>
    rows.find((row) => row.name === name)?.installed_version ?? null;
  const vector = installed("vector");
  return {
    pg_trgm: installed("pg_trgm"),
    vector,
    vectorAvailable: rows.some((row) => row.name === "vector"),
    vectorIndex: vector === null ? null : await readVectorIndex(sql),
  };
}

/** Which vector search is active, in words for `status`, `doctor` and the start-up line. */
export function describeVectorPath(
  extensions: Pick<PgExtensions, "vector" | "vectorAvailable" | "vectorIndex">,
): string {
  const { vector, vectorIndex } = extensions;
  if (vector !== null && vectorIndex !== null) {
    return `pgvector ${vector} (HNSW index by cosine distance, ${vectorIndex} dimensions)`;
  }
  const copy = "each server's in-process copy of the stored vectors";
  if (vector !== null) {
    return `${copy} (pgvector ${vector} is installed: its HNSW index is built once an embedding ` +
      `model of at most ${HNSW_MAX_DIM} dimensions has been chosen and a server has started)`;
  }
  if (extensions.vectorAvailable) {
    return `${copy} (pgvector is available on the server but not installed in this database: ` +
      `CREATE EXTENSION vector, then restart mema, to search with it)`;
  }
  return `${copy} (pgvector is not installed on this server)`;
}
