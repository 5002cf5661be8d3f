/**
 * Evidence rows and their vectors on SQLite: {@linkcode EvidenceRowsRepository} and
 * {@linkcode VectorsRepository}. Nearest-row lookups are served from this process's copy of the
 * vectors (`vector_mirror.ts`), which follows every process's writes through the
 * `vector_changes` log; inside a write transaction (whose changes may still roll back) and
 * without WebAssembly SIMD, from sqlite-vec's own scan.
 *
 * @module
 */
import * as evidence from "./evidence_sql.ts";
import * as recall from "./recall_sql.ts";
import type { EvidenceRowsRepository, VectorCopyLoad, VectorsRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";
import type { RecallFilters } from "./types.ts";
import { VectorMirror } from "./vector_mirror.ts";

/** The evidence rows room over `core`'s connection. */
export function sqliteEvidenceRows(core: SqliteCore): Sync<EvidenceRowsRepository> {
  const db = core.connection.db;
  return {
    replaceRows: (memory, rows) => evidence.replaceRows(db, memory, rows, core.capabilities.vec),
    replaceRowsOfMany: (list) => evidence.replaceRowsOfMany(db, list, core.capabilities.vec),
    rowsToEmbed: (space, limit) => evidence.selectRowsToEmbed(db, space, limit),
    rowsOfMemory: (memoryId) => evidence.selectRowsOfMemory(db, memoryId),
    rowsOfMemories: (memoryIds) => evidence.selectRowsOfMemories(db, memoryIds),
    countRowsToEmbed: (space) => evidence.countRowsToEmbed(db, space),
    countEvidence: (space) => evidence.countEvidence(db, space),
    memoriesMissingRows: (limit) => evidence.selectMemoriesMissingRows(db, limit),
  };
}

/** The vectors room over `core`'s connection. */
export function sqliteVectors(core: SqliteCore): Sync<VectorsRepository> {
  const db = core.connection.db;
  return {
    writeRowVectors: (space, vectors) => evidence.writeRowVectors(db, space, vectors),
    nearestRows: (vector, k) => nearestRows(core, vector, k),
    currentRowOwners: (rowIds, filters) => recall.selectCurrentRowOwners(db, rowIds, filters),
    // One snapshot for the lookup, the owners and the memories.
    nearestCurrentRows: (vector, k, filters) =>
      core.connection.readNow(() => nearestCurrentRows(core, vector, k, filters)),
    loadVectorCopyPage: (maxVectors) => loadVectorCopyPage(core, maxVectors),
    vectorCopyLoad: () => copyLoad(core.vectors),
  };
}

/** A copy that is not loading (none made, or complete) counts as complete. */
function copyLoad(mirror: VectorMirror | undefined): VectorCopyLoad {
  const progress = mirror?.progress;
  return progress
    ? { complete: false, ...progress }
    : { complete: true, loaded: mirror?.size ?? 0, total: mirror?.size ?? 0 };
}

function loadVectorCopyPage(core: SqliteCore, maxVectors: number): VectorCopyLoad {
  const connection = core.connection;
  // Lookups use sqlite-vec's scan without the copy: nothing to load.
  if (!core.capabilities.vec || !VectorMirror.supported()) return copyLoad(undefined);
  const mirror = core.vectors ??= new VectorMirror(connection.db);
  // A write's changes may still roll back: the page waits for the next call.
  if (connection.inWrite) return { ...copyLoad(mirror), complete: false };
  connection.readNow(() => mirror.loadPage(maxVectors, connection.changeStamp()));
  return copyLoad(mirror);
}

function nearestRows(
  core: SqliteCore,
  vector: Float32Array,
  k: number,
): { rowId: number; distance: number }[] {
  const connection = core.connection;
  if (connection.inWrite || !core.capabilities.vec || !VectorMirror.supported()) {
    return evidence.selectNearestRows(connection.db, vector, k);
  }
  const vectors = core.vectors ??= new VectorMirror(connection.db);
  // One snapshot for catching up with the log and, at first, loading every vector.
  return connection.readNow(() => vectors.nearest(vector, k, connection.changeStamp()));
}

/**
 * Nearest rows kept to the rows of their memory's current version whose memory passes the
 * filters, each with that memory. Served from this process's vector copy, the owners come from
 * it too and the memories from the record cache: the joined query was ~0.45 ms of a hybrid
 * `find` at 1,000 memories through MCP.
 */
function nearestCurrentRows(
  core: SqliteCore,
  vector: Float32Array,
  k: number,
  filters: RecallFilters,
): { rowId: number; distance: number; memoryId: number }[] {
  const nearest = nearestRows(core, vector, k);
  // The copy answered the lookup unless a write is open (then sqlite-vec did).
  const mirror = core.connection.inWrite ? undefined : core.vectors;
  const owned = mirror?.ownersOf(nearest.map((row) => row.rowId)) ??
    new Map<number, evidence.RowOwner>();
  const unknown: number[] = [];
  for (const { rowId } of nearest) if (!owned.has(rowId)) unknown.push(rowId);
  const owners = recall.selectCurrentRowOwners(core.connection.db, unknown, filters);
  const records = core.getMemories([...new Set([...owned.values()].map((o) => o.memoryId))]);
  for (const [rowId, { memoryId, version }] of owned) {
    const memory = records.get(memoryId);
    if (
      memory !== undefined && memory.version === version &&
      recall.recordPassesFilters(memory, filters)
    ) owners.set(rowId, memoryId);
  }
  const out: { rowId: number; distance: number; memoryId: number }[] = [];
  for (const { rowId, distance } of nearest) {
    const memoryId = owners.get(rowId);
    if (memoryId !== undefined) out.push({ rowId, distance, memoryId });
  }
  return out;
}
