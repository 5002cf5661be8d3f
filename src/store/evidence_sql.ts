/**
 * SQL for evidence rows and their vectors. Rows are derived from `memories`
 * and rewritten in the same transaction as the content they cut; vectors live
 * in a sqlite-vec `vec0` table keyed by the row id (bound as BigInt: vec0
 * rejects a JavaScript number as a rowid).
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

type Row = Record<string, unknown>;

/** A row to store for one memory version. */
export interface NewEvidenceRow {
  kind: "subject" | "sentence" | "table_row" | "heading";
  text: string;
  startOffset: number | null;
  endOffset: number | null;
  rowIndex: number;
}

/** A stored row. */
export interface EvidenceRowRecord extends NewEvidenceRow {
  id: number;
  memoryId: number;
  memoryVersion: number;
  embeddingSpace: string | null;
}

function toRow(row: Row): EvidenceRowRecord {
  return {
    id: Number(row.id),
    memoryId: Number(row.memory_id),
    memoryVersion: Number(row.memory_version),
    rowIndex: Number(row.row_index),
    kind: row.kind as NewEvidenceRow["kind"],
    text: String(row.text),
    startOffset: row.start_offset === null ? null : Number(row.start_offset),
    endOffset: row.end_offset === null ? null : Number(row.end_offset),
    embeddingSpace: row.embedding_space === null ? null : String(row.embedding_space),
  };
}

const VEC_TABLE = "memory_row_vec";

/** True when the vector table exists. */
export function vecTableExists(db: DatabaseSync): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(VEC_TABLE) !== undefined;
}

/** (Re)creates the vector table for `dim` dimensions, dropping every vector. */
export function recreateVecTable(db: DatabaseSync, dim: number): void {
  db.exec(`DROP TABLE IF EXISTS ${VEC_TABLE}`);
  db.exec(
    `CREATE VIRTUAL TABLE ${VEC_TABLE} USING vec0(embedding float[${
      Math.trunc(dim)
    }] distance_metric=cosine)`,
  );
  db.exec("UPDATE memory_rows SET embedding_space = NULL");
}

/** Replaces the rows of a memory with those of its current version (and drops stale vectors). */
export function replaceRows(
  db: DatabaseSync,
  memory: { id: number; version: number },
  rows: readonly NewEvidenceRow[],
  hasVec: boolean,
): void {
  if (hasVec && vecTableExists(db)) {
    // One point delete per row: `rowid IN (SELECT …)` made vec0 scan its whole table
    // (10 ms at 5k vectors, 267 ms at 667k), even for a new memory that has no rows yet.
    const ids = db.prepare("SELECT id FROM memory_rows WHERE memory_id = ?").all(memory.id) as {
      id: number;
    }[];
    const remove = db.prepare(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`);
    for (const { id } of ids) remove.run(BigInt(id));
  }
  db.prepare("DELETE FROM memory_rows WHERE memory_id = ?").run(memory.id);
  const insert = db.prepare(
    `INSERT INTO memory_rows (memory_id, memory_version, row_index, kind, text, start_offset,
       end_offset) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of rows) {
    insert.run(
      memory.id,
      memory.version,
      row.rowIndex,
      row.kind,
      row.text,
      row.startOffset,
      row.endOffset,
    );
  }
}

/**
 * Rows of live memories that have no vector in `space`, in index order (unembedded rows
 * first, then rows of another space, each by memory id).
 *
 * Three range scans of `memory_rows_unembedded` instead of `embedding_space IS NULL OR
 * embedding_space != ?`, which no index serves: with `ORDER BY r.id` that query walked the
 * table from its first row past every row already embedded, so each batch cost O(rows embedded
 * so far) and a rebuild of 800k rows was quadratic (bench/scale.ts: 1,566 rows/s at 10k
 * memories, falling with size).
 */
export function selectRowsToEmbed(
  db: DatabaseSync,
  space: string,
  limit: number,
): EvidenceRowRecord[] {
  const select = (condition: string) =>
    db.prepare(
      `SELECT r.* FROM memory_rows r JOIN memories m ON m.id = r.memory_id
       WHERE ${condition} AND m.status != 'deleted' AND r.memory_version = m.version
       ORDER BY r.embedding_space, r.memory_id LIMIT ?`,
    );
  const rows = select("r.embedding_space IS NULL").all(limit) as Row[];
  for (const condition of ["r.embedding_space < ?", "r.embedding_space > ?"]) {
    if (rows.length >= limit) break;
    rows.push(...select(condition).all(space, limit - rows.length) as Row[]);
  }
  return rows.map(toRow);
}

/**
 * Stores vectors for rows; a row that changed meanwhile (deleted) is skipped. A row whose
 * vector is `null` (its text has no word the model knows, so no direction) is marked embedded
 * in `space` with no vec0 entry: it counts toward coverage, is not retried, and can never be
 * a nearest neighbour. Its next content version or a change of space embeds it again.
 */
export function writeRowVectors(
  db: DatabaseSync,
  space: string,
  vectors: readonly { rowId: number; vector: Float32Array | null }[],
): number {
  const exists = db.prepare("SELECT 1 FROM memory_rows WHERE id = ?");
  const remove = db.prepare(`DELETE FROM ${VEC_TABLE} WHERE rowid = ?`);
  const insert = db.prepare(`INSERT INTO ${VEC_TABLE}(rowid, embedding) VALUES (?, ?)`);
  const mark = db.prepare("UPDATE memory_rows SET embedding_space = ? WHERE id = ?");
  let written = 0;
  for (const { rowId, vector } of vectors) {
    if (exists.get(rowId) === undefined) continue;
    remove.run(BigInt(rowId));
    if (vector !== null) insert.run(BigInt(rowId), vector);
    mark.run(space, rowId);
    written++;
  }
  return written;
}

/** sqlite-vec refuses a KNN query with k above this. */
const VEC_MAX_K = 4096;

/**
 * Nearest rows to `vector`: row id and cosine distance (0 = same direction), at most `k`.
 * A zero vector stored before zero vectors were skipped has a NULL (NaN) distance to every
 * query, and sqlite-vec ranks those first; they are dropped and the query repeated once with
 * room for them, so they neither match nor crowd out real neighbours.
 */
export function selectNearestRows(
  db: DatabaseSync,
  vector: Float32Array,
  k: number,
): { rowId: number; distance: number }[] {
  const query = db.prepare(
    `SELECT rowid, distance FROM ${VEC_TABLE} WHERE embedding MATCH ? AND k = ? ORDER BY distance`,
  );
  const nearest = (limit: number) => {
    const rows = query.all(vector, limit) as Row[];
    const valid = rows.filter((row) => row.distance !== null && Number.isFinite(row.distance));
    return { full: rows.length === limit, invalid: rows.length - valid.length, valid };
  };
  let found = nearest(k);
  if (found.invalid > 0 && found.full && k < VEC_MAX_K) {
    found = nearest(Math.min(VEC_MAX_K, k + found.invalid));
  }
  return found.valid.slice(0, k).map((row) => ({
    rowId: Number(row.rowid),
    distance: Number(row.distance),
  }));
}

/** Reads rows by id. */
export function selectRowsById(db: DatabaseSync, ids: readonly number[]): EvidenceRowRecord[] {
  if (ids.length === 0) return [];
  const rows = db.prepare(
    "SELECT * FROM memory_rows WHERE id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as Row[];
  return rows.map(toRow);
}

/** The rows of one memory's current version, in order. */
export function selectRowsOfMemory(db: DatabaseSync, memoryId: number): EvidenceRowRecord[] {
  const rows = db.prepare(
    `SELECT r.* FROM memory_rows r JOIN memories m ON m.id = r.memory_id
     WHERE r.memory_id = ? AND r.memory_version = m.version ORDER BY r.row_index`,
  ).all(memoryId) as Row[];
  return rows.map(toRow);
}

/** Row and vector coverage for status and doctor. */
export function countEvidence(
  db: DatabaseSync,
  space: string | undefined,
): { memories: number; memoriesWithRows: number; rows: number; embedded: number } {
  const memories = Number(
    (db.prepare("SELECT count(*) AS n FROM memories WHERE status != 'deleted'").get() as Row).n,
  );
  const withRows = Number(
    (db.prepare("SELECT count(DISTINCT memory_id) AS n FROM memory_rows").get() as Row).n,
  );
  const rows = Number((db.prepare("SELECT count(*) AS n FROM memory_rows").get() as Row).n);
  const embedded = space === undefined ? 0 : Number(
    (db.prepare("SELECT count(*) AS n FROM memory_rows WHERE embedding_space = ?").get(
      space,
    ) as Row)
      .n,
  );
  return { memories, memoriesWithRows: withRows, rows, embedded };
}

/**
 * Rows, and rows without a vector in `space`, for the vector state every response reports:
 * a count of the table (its smallest index) and three range scans of the rows not yet
 * embedded, so the cost follows the backlog, not the library ({@link countEvidence}'s
 * distinct and per-space counts took ~60 ms at 100k memories, paid every 500 ms).
 */
export function countRowsToEmbed(
  db: DatabaseSync,
  space: string | undefined,
): { rows: number; pending: number } {
  const rows = Number((db.prepare("SELECT count(*) AS n FROM memory_rows").get() as Row).n);
  if (space === undefined) return { rows, pending: rows };
  const pending = Number(
    (db.prepare(
      `SELECT (SELECT count(*) FROM memory_rows WHERE embedding_space IS NULL)
            + (SELECT count(*) FROM memory_rows WHERE embedding_space < ?)
            + (SELECT count(*) FROM memory_rows WHERE embedding_space > ?) AS n`,
    ).get(space, space) as Row).n,
  );
  return { rows, pending };
}

/** Ids of live memories without rows of their current version (for rebuild). */
export function selectMemoriesMissingRows(db: DatabaseSync, limit: number): number[] {
  const rows = db.prepare(
    `SELECT m.id FROM memories m WHERE m.status != 'deleted' AND NOT EXISTS
       (SELECT 1 FROM memory_rows r WHERE r.memory_id = m.id AND r.memory_version = m.version)
     ORDER BY m.id LIMIT ?`,
  ).all(limit) as Row[];
  return rows.map((row) => Number(row.id));
}
