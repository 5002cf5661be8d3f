/**
 * What mema reports about a PostgreSQL server (its extensions, what doctor read), as plain
 * types with no driver behind them, so the SQLite start path may name them at no cost.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PgExtensions } from "./facts.ts";
 *
 * const none: PgExtensions = { pg_trgm: null, vector: null, vectorAvailable: false, vectorIndex: null };
 * assert.equal(none.vector, null);
 * ```
 * @module
 */

/** Installed versions (`null` when not installed) and whether pgvector could be installed. */
export interface PgExtensions {
  pg_trgm: string | null;
  vector: string | null;
  /** pgvector's files are on the server (`pg_available_extensions`), installed or not. */
  vectorAvailable: boolean;
  /**
   * The dimension of the pgvector column and HNSW index mema searches (vector_index.ts); null
   * when there is none, and the vectors are searched in each server's copy.
   */
  vectorIndex: number | null;
}

/** What doctor found in a PostgreSQL database. */
export interface PostgresProbe {
  /** The URL without its password. */
  database: string;
  serverVersion: string;
  /** The schema version the database is at (0: mema never opened it). */
  schemaVersion: number;
  /** The schema version this build writes. */
  expectedSchemaVersion: number;
  extensions: PgExtensions;
  vectorPath: string;
  /** Memories by status; set when the schema is this build's. */
  counts?: Record<string, number>;
  /** When an unfinished `mema copy` into this database started, if one did. */
  copyIncomplete?: string;
  /** Decisions waiting; set when the schema is this build's. */
  backlog?: {
    openConflicts: number;
    applyingConflicts: number;
    pendingNotices: number;
    scanQueuePending: number;
  };
}
