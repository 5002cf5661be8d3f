/**
 * SQL for the scheduled scan: which memories a round still has to read, their watermarks, and
 * the queue of suspect pairs waiting for the agent's decision.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Live memories to scan after `afterId`: all of them (full) or those changed since their watermark. */
export function selectMemoriesToScan(
  db: DatabaseSync,
  query: { afterId: number; full: boolean; round: string; limit: number },
): { id: number; version: number }[] {
  const rows = db.prepare(
    `SELECT m.id AS id, m.version AS version FROM memories m
     LEFT JOIN scan_state s ON s.memory_id = m.id
     WHERE m.status = 'active' AND m.id > ?
       AND (? = 1 OR s.memory_id IS NULL OR s.scanned_version < m.version)
       AND (s.scanned_round IS NULL OR s.scanned_round != ?)
     ORDER BY m.id LIMIT ?`,
  ).all(query.afterId, query.full ? 1 : 0, query.round, query.limit) as Row[];
  return rows.map((row) => ({ id: Number(row.id), version: Number(row.version) }));
}

/** Counts what a round still has to scan. */
export function countMemoriesToScan(
  db: DatabaseSync,
  query: { afterId: number; full: boolean; round: string },
): number {
  return Number(
    (db.prepare(
      `SELECT count(*) AS n FROM memories m LEFT JOIN scan_state s ON s.memory_id = m.id
       WHERE m.status = 'active' AND m.id > ?
         AND (? = 1 OR s.memory_id IS NULL OR s.scanned_version < m.version)
         AND (s.scanned_round IS NULL OR s.scanned_round != ?)`,
    ).get(query.afterId, query.full ? 1 : 0, query.round) as Row).n,
  );
}

/** Records that a memory version was scanned in a round. */
export function upsertScanState(
  db: DatabaseSync,
  state: { memoryId: number; version: number; round: string; now: string },
): void {
  db.prepare(
    `INSERT INTO scan_state (memory_id, scanned_version, scanned_round, scanned_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(memory_id) DO UPDATE SET scanned_version = excluded.scanned_version,
       scanned_round = excluded.scanned_round, scanned_at = excluded.scanned_at`,
  ).run(state.memoryId, state.version, state.round, state.now);
}

/** A suspect pair waiting for the agent's decision. */
export interface ScanItem {
  id: number;
  candidateKey: string;
  memoryA: number;
  memoryB: number;
  versionA: number;
  versionB: number;
  rowA: string;
  rowB: string;
  assessment: Json;
  score: number;
  status: "pending" | "confirmed" | "dismissed" | "voided";
  roundId: string;
  conflictId: number | null;
}

function toScanItem(row: Row): ScanItem {
  return {
    id: Number(row.id),
    candidateKey: String(row.candidate_key),
    memoryA: Number(row.memory_a),
    memoryB: Number(row.memory_b),
    versionA: Number(row.version_a),
    versionB: Number(row.version_b),
    rowA: String(row.row_a),
    rowB: String(row.row_b),
    assessment: JSON.parse(String(row.assessment)),
    score: Number(row.score),
    status: row.status as ScanItem["status"],
    roundId: String(row.round_id),
    conflictId: row.conflict_id === null ? null : Number(row.conflict_id),
  };
}

/** Queues a suspect pair unless the same candidate was queued before. */
export function insertScanItem(
  db: DatabaseSync,
  item: Omit<ScanItem, "id" | "status" | "conflictId"> & { now: string },
): boolean {
  return db.prepare(
    `INSERT INTO scan_queue (candidate_key, memory_a, memory_b, version_a, version_b, row_a, row_b,
       assessment, score, status, round_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT(candidate_key) DO NOTHING`,
  ).run(
    item.candidateKey,
    item.memoryA,
    item.memoryB,
    item.versionA,
    item.versionB,
    item.rowA,
    item.rowB,
    JSON.stringify(item.assessment),
    item.score,
    item.roundId,
    item.now,
  ).changes > 0;
}

/** Pending items, best first, after a cursor (score, id). */
export function selectScanItems(
  db: DatabaseSync,
  query: { limit: number; after?: { score: number; id: number } },
): ScanItem[] {
  const after = query.after;
  const rows = db.prepare(
    `SELECT * FROM scan_queue WHERE status = 'pending'
       AND (? IS NULL OR score < ? OR (score = ? AND id > ?))
     ORDER BY score DESC, id LIMIT ?`,
  ).all(
    after ? 1 : null,
    after?.score ?? 0,
    after?.score ?? 0,
    after?.id ?? 0,
    query.limit,
  ) as Row[];
  return rows.map(toScanItem);
}

/** Reads one queue item. */
export function selectScanItem(db: DatabaseSync, id: number): ScanItem | undefined {
  const row = db.prepare("SELECT * FROM scan_queue WHERE id = ?").get(id) as Row | undefined;
  return row ? toScanItem(row) : undefined;
}

/** Records the agent's decision on a pending item. */
export function decideScanItem(
  db: DatabaseSync,
  id: number,
  decision: {
    status: "confirmed" | "dismissed" | "voided";
    by: string;
    now: string;
    conflictId?: number;
  },
): boolean {
  return db.prepare(
    `UPDATE scan_queue SET status = ?, decided_by = ?, decided_at = ?, conflict_id = ?
     WHERE id = ? AND status = 'pending'`,
  ).run(decision.status, decision.by, decision.now, decision.conflictId ?? null, id).changes > 0;
}
