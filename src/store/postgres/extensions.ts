/**
 * The extensions mema looks for on a PostgreSQL server, and which vector search that leaves
 * active (issue 33). `pg_trgm` serves substring and CJK matches (the migrations create it);
 * `vector` (pgvector) is not in Debian 12's PostgreSQL 15, so vectors are searched through each
 * server's in-process copy (vector_copy.ts) whether or not it is there: this version does not
 * use pgvector yet, and says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeVectorPath } from "./extensions.ts";
 *
 * assert.match(describeVectorPath({ vector: null, vectorAvailable: false }), /not installed/);
 * assert.match(describeVectorPath({ vector: "0.7.0", vectorAvailable: true }), /not used/);
 * ```
 * @module
 */
import type { PgQuery } from "./core.ts";
import type { PgExtensions } from "./facts.ts";

export type { PgExtensions } from "./facts.ts";

/** Reads which of mema's extensions the server has. */
export async function readExtensions(sql: PgQuery): Promise<PgExtensions> {
  const rows = await sql<{ name: string; installed_version: string | null }[]>`
    SELECT name, installed_version FROM pg_available_extensions
    WHERE name IN ('pg_trgm', 'vector')`;
  const installed = (name: string) =>
    rows.find((row) => row.name === name)?.installed_version ?? null;
  return {
    pg_trgm: installed("pg_trgm"),
    vector: installed("vector"),
    vectorAvailable: rows.some((row) => row.name === "vector"),
  };
}

/** Which vector search is active, in words for `status`, `doctor` and the start-up line. */
export function describeVectorPath(
  extensions: Pick<PgExtensions, "vector" | "vectorAvailable">,
): string {
  const copy = "each server's in-process copy of the stored vectors";
  if (extensions.vector !== null) {
    return `${copy} (pgvector ${extensions.vector} is installed but not used by this version)`;
  }
  if (extensions.vectorAvailable) {
    return `${copy} (pgvector is available on the server, not installed, and not used by this version)`;
  }
  return `${copy} (pgvector is not installed on this server)`;
}
