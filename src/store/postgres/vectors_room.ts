/**
 * Vectors of evidence rows on PostgreSQL: {@linkcode VectorsRepository}, and the vector side of
 * {@linkcode MaintenanceRepository}. Stored portably (`real[]`). With pgvector's index built
 * (vector_index.ts), every lookup is one statement over it, in the caller's unit (a write unit's
 * own uncommitted rows included), and no copy is kept. Without it, they are searched through this
 * server's copy (vector_copy.ts) outside write units, and from the table itself inside one, whose
 * own uncommitted writes only it can see (as on SQLite, where sqlite-vec's scan answers then).
 *
 * The embedding space's dimension lives in `meta` (`pg_vector_dim`): "the vector table exists"
 * once a space was chosen, and choosing another drops every vector, as recreating sqlite-vec's
 * table does.
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { MaintenanceRepository, VectorCopyLoad, VectorsRepository } from "../repositories.ts";
import type { RecallFilters } from "../types.ts";
import type { PgExtensions } from "./facts.ts";
import { filterCondition } from "./recall_room.ts";
import { cosineNearest, pruneVectorChanges, VectorCopy } from "./vector_copy.ts";
import { ensureVectorIndex, nearestByIndex, readVectorIndex } from "./vector_index.ts";

/** What the store knows of the server's extensions; the rooms update `vectorIndex`. */
export interface VectorFacts {
  extensions: PgExtensions;
}

/**
 * The dimension of pgvector's index as of now (null: none), re-read while the facts say there
 * is none or it differs from `dim`: another server may have built it (the first embedding space
 * chosen) or switched the space since this one opened.
 */
async function currentIndex(
  core: PgCore<unknown>,
  facts: VectorFacts,
  dim?: number,
): Promise<number | null> {
  const { vector, vectorIndex } = facts.extensions;
  if (vector === null) return null;
  if (vectorIndex !== null && (dim === undefined || vectorIndex === dim)) return vectorIndex;
  const now = await readVectorIndex(core.q());
  facts.extensions = { ...facts.extensions, vectorIndex: now };
  return now;
}

/**
 * How a lookup for `query` runs: "copy" without pgvector's index, "none" when the index is of
 * another dimension (the space is changing: no stored vector is comparable, as in the copy, and
 * loading a copy for nothing is avoided), else the pgvector version to search with.
 */
async function indexFor(
  core: PgCore<unknown>,
  facts: VectorFacts,
  query: Float32Array,
): Promise<string | "copy" | "none"> {
  const dim = await currentIndex(core, facts, query.length);
  if (dim === null) return "copy";
  return dim === query.length ? facts.extensions.vector! : "none";
}

/** Runs an index lookup in the caller's unit, or in a transaction of its own outside one. */
async function inTransaction<T>(core: PgCore<unknown>, body: (sql: PgQuery) => Promise<T>) {
  if (core.inUnit()) return await body(core.q());
  return await core.sql.begin((tx) => body(tx as unknown as PgQuery)) as T;
}

/** How far `copy` is loaded (complete when no load is in progress). */
function copyLoad(copy: VectorCopy): VectorCopyLoad {
  const progress = copy.progress;
  return progress
    ? { complete: false, ...progress }
    : { complete: true, loaded: copy.size, total: copy.size };
}

/** The meta key holding the current embedding space's dimension. */
const VECTOR_DIM_KEY = "pg_vector_dim";

/**
 * The vectors room over `core`'s pool: pgvector's index when `facts` says it is built, else this
 * server's copy of the vectors.
 */
export function pgVectors(
  core: PgCore<unknown>,
  copy: VectorCopy,
  facts: VectorFacts,
): VectorsRepository {
  /** True when pgvector's index answers; a copy loaded before it was built is dropped then. */
  const indexAnswers = async () => {
    if (await currentIndex(core, facts) === null) return false;
    if (copy.size > 0 || copy.progress !== undefined) copy.drop();
    return true;
  };
  const byIndex = async (vector: Float32Array, k: number, filters?: RecallFilters) => {
    const pgvector = await indexFor(core, facts, vector);
    if (pgvector === "copy") return undefined;
    if (copy.size > 0 || copy.progress !== undefined) copy.drop();
    if (pgvector === "none") return [];
    return await inTransaction(
      core,
      (sql) => nearestByIndex(sql, vector, { k, pgvector, filters }),
    );
  };
  const nearestRows = async (vector: Float32Array, k: number) => {
    const indexed = await byIndex(vector, k);
    if (indexed) return indexed.map(({ rowId, distance }) => ({ rowId, distance }));
    // A read unit's snapshot holds nothing the copy lacks (a `find` reads inside one: the
    // whole table read and scanned exactly there was every hybrid find's cost at scale).
    if (!core.inWriteUnit() && VectorCopy.supported()) {
      return await copy.nearest(core.sql, vector, k);
    }
    const vectors = new Map<number, Float32Array>();
    for (const row of await core.q()`SELECT row_id, embedding FROM memory_row_vectors`) {
      vectors.set(Number(row.row_id), Float32Array.from(row.embedding as number[]));
    }
    return cosineNearest(vectors, vector, k);
  };
  const currentRowOwners = async (
    rowIds: readonly number[],
    filters: Parameters<
      VectorsRepository["currentRowOwners"]
    >[1],
  ) => {
    const found = new Map<number, number>();
    if (rowIds.length === 0) return found;
    const sql = core.q();
    const rows = await sql`SELECT r.id, r.memory_id FROM memory_rows r
      JOIN memories m ON m.id = r.memory_id
      WHERE r.id = ANY(${rowIds as number[]}::bigint[]) AND r.memory_version = m.version
        AND ${filterCondition(sql, filters)}`;
    for (const row of rows) found.set(Number(row.id), Number(row.memory_id));
    return found;
  };
  return {
    async writeRowVectors(space, vectors) {
      const sql = core.q();
      if (vectors.length === 0) return 0;
      const ids = vectors.map((v) => v.rowId);
      const existing = new Set(
        (await sql`SELECT id FROM memory_rows WHERE id = ANY(${ids}::bigint[])`)
          .map((row) => Number(row.id)),
      );
      const marked: number[] = [];
      for (const { rowId, vector } of vectors) {
        // A row deleted meanwhile (its memory changed) is skipped.
        if (!existing.has(rowId)) continue;
        if (vector === null) {
          // No direction: marked embedded, never a neighbour.
          await sql`DELETE FROM memory_row_vectors WHERE row_id = ${rowId}`;
        } else {
          await sql`INSERT INTO memory_row_vectors (row_id, embedding)
            VALUES (${rowId}, ${Array.from(vector)}::real[])
            ON CONFLICT (row_id) DO UPDATE SET embedding = excluded.embedding`;
        }
        marked.push(rowId);
      }
      // One statement marks them all: one round trip, and one firing of the kept counts' trigger
      // (library_counts.ts) instead of one per row (300 rows: 288 → 222 ms without it).
      if (marked.length > 0) {
        await sql`UPDATE memory_rows SET embedding_space = ${space}
          WHERE id = ANY(${marked}::bigint[])`;
      }
      await pruneVectorChanges(sql);
      return marked.length;
    },
    nearestRows,
    currentRowOwners,
    async loadVectorCopyPage(maxVectors) {
      // pgvector answers: no copy to load (its memory and start-up time are saved).
      if (!VectorCopy.supported() || await indexAnswers()) {
        return { complete: true, loaded: 0, total: 0 };
      }
      await copy.loadPage(core.sql, maxVectors);
      return copyLoad(copy);
    },
    async vectorCopyLoad() {
      if (await indexAnswers()) return { complete: true, loaded: 0, total: 0 };
      return copyLoad(copy);
    },
    async nearestCurrentRows(vector, k, filters) {
      const indexed = await byIndex(vector, k, filters);
      if (indexed) return indexed;
      const nearest = await nearestRows(vector, k);
      const owners = await currentRowOwners(nearest.map((row) => row.rowId), filters);
      const out: { rowId: number; distance: number; memoryId: number }[] = [];
      for (const { rowId, distance } of nearest) {
        const memoryId = owners.get(rowId);
        if (memoryId !== undefined) out.push({ rowId, distance, memoryId });
      }
      return out;
    },
  };
}

/**
 * The tables a purge deletes a memory's text from or rewrites it in (src/store/postgres/
 * purge_room.ts, entities_room.ts): the VACUUM after a purge frees their dead rows' space. The
 * entity tables were missing once, and names taken from a purged fact stayed in dead rows until
 * autovacuum came by (tests/e2e/purge_test.ts checks every table that held the text).
 */
const PURGED_TABLES = [
  "memories",
  "memory_history",
  "memory_terms",
  "memory_postings",
  "memory_rows",
  "audit",
  "entities",
  "entity_aliases",
  "entity_mentions",
  "entity_relations",
  "notices",
  "conflicts",
  "jobs",
  "backup_replay_log",
];

/** Upkeep on PostgreSQL: the server manages its WAL; a purge's scrub is a VACUUM. */
export function pgMaintenance(
  core: PgCore<unknown>,
  copy: VectorCopy,
  facts: VectorFacts,
): MaintenanceRepository {
  return {
    // PostgreSQL checkpoints and recycles its WAL itself.
    checkpoint: () => Promise.resolve({ busy: 0 }),
    spaceCheckpoints: () => Promise.resolve(),
    async scrubFreedSpace() {
      // Outside any transaction (VACUUM refuses one): the tables a purge deletes from.
      const problems: string[] = [];
      for (const table of PURGED_TABLES) {
        try {
          await core.sql`VACUUM ${core.sql(table)}`;
        } catch (error) {
          problems.push(`VACUUM ${table}: ${error instanceof Error ? error.message : error}`);
        }
      }
      return { vacuumed: problems.length === 0, walTruncated: false, problems };
    },
    // Nothing of mema's to truncate: PostgreSQL recycles its write-ahead log itself (checkpoints,
    // archiving; docs/POSTGRES.md says what it keeps). Answering "not truncated" once left a
    // purge's scrub owed for ever: every start waited 2 s and warned of a "-wal" file that does
    // not exist (tests/e2e/purge_test.ts).
    truncateWal: () => Promise.resolve({ truncated: true }),
    // GIN drops a deleted row's entries when the table is vacuumed (scrubFreedSpace).
    compactTermsIndex: () => Promise.resolve(),
    async vecTableExists() {
      const [row] = await core.q()`SELECT 1 FROM meta WHERE key = ${VECTOR_DIM_KEY}`;
      return row !== undefined;
    },
    async recreateVecTable(dim) {
      const sql = core.q();
      await sql`DELETE FROM memory_row_vectors`;
      await sql`UPDATE memory_rows SET embedding_space = NULL`;
      await sql`INSERT INTO meta (key, value) VALUES (${VECTOR_DIM_KEY}, ${String(Math.trunc(dim))})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
      // Every copy reloads.
      await sql`INSERT INTO vector_changes (row_id) VALUES (NULL)`;
      await pruneVectorChanges(sql);
      // pgvector's column and index follow the new dimension (the table is empty: no cost).
      if (facts.extensions.vector !== null) {
        await ensureVectorIndex(sql);
        facts.extensions = { ...facts.extensions, vectorIndex: await readVectorIndex(sql) };
      }
    },
    vectorMirrorSize: () => Promise.resolve({ vectors: copy.size, bytes: copy.bytes }),
    async wordIndexSlice(afterId, span) {
      const sql = core.q();
      const [max] = await sql`SELECT max(id) AS id FROM memories`;
      const lastId = max.id === null ? 0 : Number(max.id);
      const through = Math.max(afterId, Math.min(afterId + span, lastId));
      const last = through === lastId || afterId >= lastId;
      // The last slice counts every index row past `afterId`: a row without its memory is drift.
      const [row] = await sql`SELECT
        (SELECT count(*) FROM memories WHERE id > ${afterId} AND id <= ${through}
          AND status != 'deleted') AS memories,
        (SELECT count(*) FROM memory_terms WHERE memory_id > ${afterId}
          AND (${last} OR memory_id <= ${through})) AS indexed`;
      return {
        throughId: through,
        last,
        memories: Number(row.memories),
        indexed: Number(row.indexed),
      };
    },
  };
}
