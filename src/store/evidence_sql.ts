/**
 * SQL for evidence rows and their vectors. Rows are derived from `memories`
 * and rewritten in the same transaction as the content they cut; vectors live
 * in a sqlite-vec `vec0` table keyed by the row id (bound as BigInt: vec0
 * rejects a JavaScript number as a rowid). Every change to that table is also logged in
 * `vector_changes` in the same transaction, so an in-process copy of the vectors
 * (`vector_mirror.ts`) can follow writes made by any process.
 *
 * A row whose text is its memory's subject, or the slice of its content between the row's
 * offsets, is stored with an empty `text` and read back from the memory (a row always belongs
 * to the version it was cut from, and the reads join it): the sentences repeated every
 * content's characters, ~0.33 KB of the 2.02 KB a memory took at 1M memories (LoCoMo chat
 * turns, ~6.7 rows a memory). Rows written before keep their text; both read the same.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { insertRows } from "./multi_row_insert.ts";
import { selectEmbeddedCount, selectRowCount, selectStatusCounts } from "./library_counts_sql.ts";
import { VECTOR_CHANGES_KEPT } from "./constants.ts";

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

/**
 * The text of a stored row: a row stored empty stands for its memory's subject, or its slice
 * of the content, read with `row` ({@linkcode ROW_SOURCE_COLUMNS}).
 */
export function storedText(row: Row): string {
  const text = String(row.text);
  if (text !== "" || row.memory_subject === undefined || row.memory_subject === null) return text;
  if (row.start_offset === null) return String(row.memory_subject);
  return String(row.memory_content).slice(Number(row.start_offset), Number(row.end_offset));
}

/**
 * The text to store for `row` of a memory whose subject and content are `memory`: empty when
 * the read can cut it from the memory again ({@linkcode storedText}), else the text itself.
 */
function textToStore(
  row: NewEvidenceRow,
  memory: { subject: string; content: string } | undefined,
): string {
  if (memory === undefined) return row.text;
  const derived = row.startOffset === null || row.endOffset === null
    ? (row.kind === "subject" ? memory.subject : undefined)
    : memory.content.slice(row.startOffset, row.endOffset);
  return derived === row.text ? "" : row.text;
}

/**
 * The memory columns a row read joins in so {@linkcode storedText} can restore a row: only for a
 * row stored empty (a row stored with its text needs neither, and a conflict check reads ~35
 * rows of its neighbours, each carrying its memory's whole content otherwise).
 */
export const ROW_SOURCE_COLUMNS = "CASE WHEN r.text = '' THEN m.subject END AS memory_subject, " +
  "CASE WHEN r.text = '' THEN m.content END AS memory_content";

function toRow(row: Row): EvidenceRowRecord {
  return {
    id: Number(row.id),
    memoryId: Number(row.memory_id),
    memoryVersion: Number(row.memory_version),
    rowIndex: Number(row.row_index),
    kind: row.kind as NewEvidenceRow["kind"],
    text: storedText(row),
    startOffset: row.start_offset === null ? null : Number(row.start_offset),
    endOffset: row.end_offset === null ? null : Number(row.end_offset),
    embeddingSpace: row.embedding_space === null ? null : String(row.embedding_space),
  };
}

const VEC_TABLE = "memory_row_vec";
const CHANGES_TABLE = "vector_changes";

/** Logs that the vector of `rowId` changed (`null`: every vector, the table was recreated). */
function logVectorChange(db: DatabaseSync, rowId: number | null): void {
  db.prepare(`INSERT INTO ${CHANGES_TABLE}(row_id) VALUES (?)`).run(rowId);
}

/** Keeps the newest {@link VECTOR_CHANGES_KEPT} entries (a reader further behind reloads). */
function pruneVectorChanges(db: DatabaseSync): void {
  db.prepare(
    `DELETE FROM ${CHANGES_TABLE} WHERE seq <= (SELECT max(seq) FROM ${CHANGES_TABLE}) - ?`,
  ).run(VECTOR_CHANGES_KEPT);
}

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
  logVectorChange(db, null);
  pruneVectorChanges(db);
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
    let removed = 0;
    for (const { id } of ids) {
      if (remove.run(BigInt(id)).changes === 0) continue;
      logVectorChange(db, id);
      removed++;
    }
    if (removed > 0) pruneVectorChanges(db);
  }
  db.prepare("DELETE FROM memory_rows WHERE memory_id = ?").run(memory.id);
  const source = rows.length === 0 ? undefined : db.prepare(
    "SELECT subject, content FROM memories WHERE id = ? AND version = ?",
  ).get(memory.id, memory.version) as { subject: string; content: string } | undefined;
  const insert = db.prepare(
    `INSERT INTO memory_rows (memory_id, memory_version, row_index, kind, text, start_offset,
       end_offset) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of rows) insert.run(...rowValues(memory, row, source));
}

/** The `memory_rows` columns of `row` of `memory`, in the order the inserts name them. */
function rowValues(
  memory: { id: number; version: number },
  row: NewEvidenceRow,
  source: { subject: string; content: string } | undefined,
): SQLInputValue[] {
  return [
    memory.id,
    memory.version,
    row.rowIndex,
    row.kind,
    textToStore(row, source),
    row.startOffset,
    row.endOffset,
  ];
}

/**
 * {@linkcode replaceRows} for many memories, in order, with the same rows as one after the
 * other. When none of them has rows yet (a bulk import's new memories), there is nothing to
 * drop: their sources are read in one query and the rows go in a few multi-row inserts
 * (multi_row_insert.ts); otherwise memory by memory.
 */
export function replaceRowsOfMany(
  db: DatabaseSync,
  list: readonly { memory: { id: number; version: number }; rows: readonly NewEvidenceRow[] }[],
  hasVec: boolean,
): void {
  if (list.length === 0) return;
  const memoryIds = list.map((item) => item.memory.id);
  const ids = JSON.stringify(memoryIds);
  // A memory listed twice replaces its own rows: one by one too.
  const held = new Set(memoryIds).size < list.length || db.prepare(
        "SELECT 1 FROM memory_rows WHERE memory_id IN (SELECT value FROM json_each(?)) LIMIT 1",
      ).get(ids) !== undefined;
  if (held) {
    for (const { memory, rows } of list) replaceRows(db, memory, rows, hasVec);
    return;
  }
  const sources = new Map<number, { version: number; subject: string; content: string }>();
  for (
    const row of db.prepare(
      "SELECT id, version, subject, content FROM memories WHERE id IN (SELECT value FROM json_each(?))",
    ).all(ids) as Row[]
  ) {
    sources.set(Number(row.id), {
      version: Number(row.version),
      subject: String(row.subject),
      content: String(row.content),
    });
  }
  const values: SQLInputValue[][] = [];
  for (const { memory, rows } of list) {
    const found = sources.get(memory.id);
    const source = found?.version === memory.version ? found : undefined;
    for (const row of rows) values.push(rowValues(memory, row, source));
  }
  insertRows(db, {
    into: `INSERT INTO memory_rows (memory_id, memory_version, row_index, kind, text,
       start_offset, end_offset)`,
    columns: 7,
  }, values);
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
      `SELECT r.*, ${ROW_SOURCE_COLUMNS} FROM memory_rows r JOIN memories m ON m.id = r.memory_id
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
  let logged = 0;
  for (const { rowId, vector } of vectors) {
    if (exists.get(rowId) === undefined) continue;
    const removed = remove.run(BigInt(rowId)).changes > 0;
    if (vector !== null) insert.run(BigInt(rowId), vector);
    if (removed || vector !== null) {
      logVectorChange(db, rowId);
      logged++;
    }
    mark.run(space, rowId);
    written++;
  }
  if (logged > 0) pruneVectorChanges(db);
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

/** Changes logged after `seq`, oldest first, at most `limit` (`rowId` null: all changed). */
export function selectVectorChanges(
  db: DatabaseSync,
  seq: number,
  limit: number,
): { seq: number; rowId: number | null }[] {
  const rows = db.prepare(
    `SELECT seq, row_id FROM ${CHANGES_TABLE} WHERE seq > ? ORDER BY seq LIMIT ?`,
  ).all(seq, limit) as Row[];
  return rows.map((row) => ({
    seq: Number(row.seq),
    rowId: row.row_id === null ? null : Number(row.row_id),
  }));
}

/** The newest change logged (0 when none is). */
export function selectLastVectorChange(db: DatabaseSync): number {
  const row = db.prepare(`SELECT max(seq) AS seq FROM ${CHANGES_TABLE}`).get() as Row;
  return row.seq === null ? 0 : Number(row.seq);
}

/** The dimension the vector table was created with, or undefined (no table, or unreadable). */
export function vecTableDim(db: DatabaseSync): number | undefined {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(VEC_TABLE) as
    | Row
    | undefined;
  const dim = Number(/float\[(\d+)\]/.exec(String(sql?.sql))?.[1]);
  return Number.isInteger(dim) && dim > 0 ? dim : undefined;
}

/**
 * How many vectors are stored: the set validity bits of sqlite-vec's chunks (~1 ms at 1.1M
 * vectors, where counting vec0's row-id table took 15 ms warm and the virtual table itself
 * ~0.4 s), so a load of the in-process copy can reserve its room once and say how far it is;
 * 0 without the table or in another layout (the copy then grows as it loads).
 */
export function countStoredVectors(db: DatabaseSync): number {
  if (!vecTableExists(db)) return 0;
  try {
    let count = 0;
    const chunks = db.prepare(`SELECT validity FROM ${VEC_TABLE}_chunks`).iterate();
    for (const { validity } of chunks as Iterable<Row>) {
      if (!(validity instanceof Uint8Array)) return 0;
      for (const byte of validity) count += BITS_SET[byte];
    }
    return count;
  } catch {
    return 0;
  }
}

/** Set bits of each byte value. */
const BITS_SET = Uint8Array.from(
  { length: 256 },
  (_, byte) => byte.toString(2).replaceAll("0", "").length,
);

/** Every stored vector, as a row id and the float32 bytes vec0 keeps. */
export function* iterateVectors(
  db: DatabaseSync,
): Generator<{ rowId: number; embedding: Uint8Array }> {
  if (!vecTableExists(db)) return;
  const rows = db.prepare(`SELECT rowid, embedding FROM ${VEC_TABLE}`).iterate() as Iterable<Row>;
  for (const row of rows) {
    yield { rowId: Number(row.rowid), embedding: row.embedding as Uint8Array };
  }
}

/**
 * The first vector of a page and one in {@link SAMPLE_EVERY} after it are compared with a point
 * read as the page is read.
 */
const SAMPLE_EVERY = 4_096;

/** Where a paged read of the chunk tables stands ({@link scanVectorChunkPage}). */
export interface ChunkPage {
  /** The last chunk read: the next page starts after it. */
  lastChunk: number;
  /** Vectors visited in this page. */
  visited: number;
  /** True when no chunk is left after this page. */
  done: boolean;
}

/**
 * Visits the stored vectors of up to `maxChunks` chunks after chunk `afterChunk` (start at -1)
 * by reading sqlite-vec's chunk tables directly: ~0.1 s at 100k vectors, where reading the
 * virtual table row by row takes ~1.7 s (vec0 looks up each row). A serving process reads a
 * page at a time between requests; call it inside one read transaction per page. The layout
 * read is sqlite-vec 0.1's: `<table>_chunks(chunk_id, size, validity, rowids)`, a validity bit
 * and a little-endian int64 row id per slot, and `<table>_vector_chunks00(rowid = chunk_id,
 * vectors)`, `size` float32 vectors. It is checked as it is read (blob sizes, and one vector in
 * {@link SAMPLE_EVERY} byte for byte against a point read in the same snapshot); anything
 * unexpected returns undefined, and the caller drops what it was given and reads the table with
 * {@link iterateVectors} instead. The samples are the check against vec0's own reads: counting
 * the virtual table's rows, the check of a one-go load, took ~0.4 s at 1.1M vectors, which the
 * last page would have held a request for.
 */
export function scanVectorChunkPage(
  db: DatabaseSync,
  page: { afterChunk: number; maxChunks: number },
  visit: (rowId: number, embedding: Uint8Array) => void,
): ChunkPage | undefined {
  if (!vecTableExists(db)) return { lastChunk: page.afterChunk, visited: 0, done: true };
  const dim = vecTableDim(db);
  if (dim === undefined) return undefined;
  const samples: { rowId: number; embedding: Uint8Array }[] = [];
  let visited = 0;
  let lastChunk = page.afterChunk;
  let more = false;
  try {
    // One chunk more than the page reads says whether any is left after it.
    const chunks = db.prepare(
      `SELECT chunk_id, size, validity, rowids FROM ${VEC_TABLE}_chunks WHERE chunk_id > ?
       ORDER BY chunk_id LIMIT ?`,
    ).all(page.afterChunk, page.maxChunks + 1) as Row[];
    more = chunks.length > page.maxChunks;
    if (more) chunks.pop();
    const vectorsOf = db.prepare(
      `SELECT vectors FROM ${VEC_TABLE}_vector_chunks00 WHERE rowid = ?`,
    );
    for (const chunk of chunks) {
      const size = Number(chunk.size);
      const validity = chunk.validity as Uint8Array;
      const rowIds = chunk.rowids as Uint8Array;
      const vectors = (vectorsOf.get(chunk.chunk_id as number) as Row | undefined)?.vectors;
      if (
        !(validity instanceof Uint8Array) || !(rowIds instanceof Uint8Array) ||
        !(vectors instanceof Uint8Array) || validity.byteLength * 8 !== size ||
        rowIds.byteLength !== size * 8 || vectors.byteLength !== size * dim * 4
      ) {
        return undefined;
      }
      const ids = new DataView(rowIds.buffer, rowIds.byteOffset, rowIds.byteLength);
      for (let slot = 0; slot < size; slot++) {
        if ((validity[slot >> 3] & (1 << (slot & 7))) === 0) continue;
        const rowId = Number(ids.getBigInt64(slot * 8, true));
        const embedding = vectors.subarray(slot * dim * 4, (slot + 1) * dim * 4);
        if (visited++ % SAMPLE_EVERY === 0) samples.push({ rowId, embedding: embedding.slice() });
        visit(rowId, embedding);
      }
      lastChunk = Number(chunk.chunk_id);
    }
  } catch {
    return undefined;
  }
  const sound = samples.every(({ rowId, embedding }) => {
    const read = selectVector(db, rowId);
    return read !== undefined && read.byteLength === embedding.byteLength &&
      read.every((byte, i) => byte === embedding[i]);
  });
  return sound ? { lastChunk, visited, done: !more } : undefined;
}

/** The stored vector of one row (float32 bytes), or undefined when it has none. */
export function selectVector(db: DatabaseSync, rowId: number): Uint8Array | undefined {
  if (!vecTableExists(db)) return undefined;
  const row = db.prepare(`SELECT embedding FROM ${VEC_TABLE} WHERE rowid = ?`).get(
    BigInt(rowId),
  ) as Row | undefined;
  return row?.embedding as Uint8Array | undefined;
}

/** The memory and version an evidence row belongs to. */
export interface RowOwner {
  memoryId: number;
  version: number;
}

/** The owners of the evidence rows `rowIds` that exist. */
export function selectRowOwnersOf(
  db: DatabaseSync,
  rowIds: readonly number[],
): Map<number, RowOwner> {
  const owners = new Map<number, RowOwner>();
  const rows = db.prepare(
    `SELECT r.id AS id, r.memory_id AS memory_id, r.memory_version AS memory_version
     FROM (SELECT value AS row_id FROM json_each(?)) wanted
     CROSS JOIN memory_rows r ON r.id = wanted.row_id`,
  ).all(JSON.stringify(rowIds)) as Row[];
  for (const row of rows) {
    owners.set(Number(row.id), {
      memoryId: Number(row.memory_id),
      version: Number(row.memory_version),
    });
  }
  return owners;
}

/** The rows of one memory's current version, in order. */
export function selectRowsOfMemory(db: DatabaseSync, memoryId: number): EvidenceRowRecord[] {
  const rows = db.prepare(
    `SELECT r.*, ${ROW_SOURCE_COLUMNS} FROM memory_rows r JOIN memories m ON m.id = r.memory_id
     WHERE r.memory_id = ? AND r.memory_version = m.version ORDER BY r.row_index`,
  ).all(memoryId) as Row[];
  return rows.map(toRow);
}

/**
 * The rows of several memories' current versions, each memory's in order (one without current
 * rows, or unknown, maps to none): the neighbours of a conflict check in one query, not one each.
 */
export function selectRowsOfMemories(
  db: DatabaseSync,
  memoryIds: readonly number[],
): Map<number, EvidenceRowRecord[]> {
  const out = new Map<number, EvidenceRowRecord[]>(memoryIds.map((id) => [id, []]));
  if (memoryIds.length === 0) return out;
  const rows = db.prepare(
    `SELECT r.*, ${ROW_SOURCE_COLUMNS} FROM memory_rows r JOIN memories m ON m.id = r.memory_id
     WHERE r.memory_id IN (SELECT value FROM json_each(?)) AND r.memory_version = m.version
     ORDER BY r.memory_id, r.row_index`,
  ).all(JSON.stringify([...new Set(memoryIds)])) as Row[];
  for (const row of rows) out.get(Number(row.memory_id))?.push(toRow(row));
  return out;
}

/** Memories not purged, from the kept counts. */
export function liveMemories(db: DatabaseSync): number {
  return Object.entries(selectStatusCounts(db))
    .reduce((sum, [status, n]) => status === "deleted" ? sum : sum + n, 0);
}

/**
 * Row and vector coverage for doctor. The memories, rows and embedded rows are kept counts; the
 * memories with rows are counted (a scan of `memory_rows`: doctor's, never a request's).
 */
export function countEvidence(
  db: DatabaseSync,
  space: string | undefined,
): { memories: number; memoriesWithRows: number; rows: number; embedded: number } {
  const memories = liveMemories(db);
  const withRows = Number(
    (db.prepare("SELECT count(DISTINCT memory_id) AS n FROM memory_rows").get() as Row).n,
  );
  const rows = selectRowCount(db);
  const embedded = space === undefined ? 0 : selectEmbeddedCount(db, space);
  return { memories, memoriesWithRows: withRows, rows, embedded };
}

/**
 * Rows, and rows without a vector in `space`, for the vector state every response reports:
 * both from the kept counts (src/store/library_counts_sql.ts), so the cost follows neither the
 * library nor the backlog (three range scans of the rows not yet embedded took 312 ms on
 * PostgreSQL at 100k memories with none embedded; {@link countEvidence}'s distinct and
 * per-space counts took ~60 ms at 100k, paid every 500 ms).
 */
export function countRowsToEmbed(
  db: DatabaseSync,
  space: string | undefined,
): { rows: number; pending: number } {
  const rows = selectRowCount(db);
  return { rows, pending: space === undefined ? rows : rows - selectEmbeddedCount(db, space) };
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
