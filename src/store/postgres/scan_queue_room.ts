/**
 * The scheduled scan's progress and its queue of suspect pairs on PostgreSQL:
 * {@linkcode ScanQueueRepository}, answering as the SQLite room does
 * (src/store/scan_queue_sql.ts documents each operation).
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { ScanQueueRepository } from "../repositories.ts";
import type { ScanItem } from "../scan_queue_sql.ts";

type Row = Record<string, unknown>;

const nullableNumber = (value: unknown) => value === null ? null : Number(value);

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
    assessment: row.assessment as ScanItem["assessment"],
    score: Number(row.score),
    status: row.status as ScanItem["status"],
    roundId: String(row.round_id),
    conflictId: nullableNumber(row.conflict_id),
  };
}

/** The scheduled scan's progress and queue over `core`'s pool. */
export function pgScanQueue(core: PgCore<unknown>): ScanQueueRepository {
  // Active memories after `afterId` not scanned in this round: every one in a full round,
  // else those never scanned or changed since.
  const toScan = (sql: PgQuery, query: { afterId: number; full: boolean; round: string }) =>
    sql`m.status = 'active' AND m.id > ${query.afterId}
      AND (${query.full}::boolean OR s.memory_id IS NULL OR s.scanned_version < m.version)
      AND (s.scanned_round IS NULL OR s.scanned_round != ${query.round})`;
  return {
    async memoriesToScan(query) {
      const sql = core.q();
      const rows = await sql`SELECT m.id, m.version FROM memories m
        LEFT JOIN scan_state s ON s.memory_id = m.id
        WHERE ${toScan(sql, query)} ORDER BY m.id LIMIT ${query.limit}`;
      return rows.map((row) => ({ id: Number(row.id), version: Number(row.version) }));
    },
    async countToScan(query) {
      const sql = core.q();
      const [row] = await sql`SELECT count(*) AS n FROM memories m
        LEFT JOIN scan_state s ON s.memory_id = m.id WHERE ${toScan(sql, query)}`;
      return Number(row.n);
    },
    async markScanned(state) {
      await core.q()`INSERT INTO scan_state (memory_id, scanned_version, scanned_round,
          scanned_at)
        VALUES (${state.memoryId}, ${state.version}, ${state.round}, ${state.now})
        ON CONFLICT (memory_id) DO UPDATE SET scanned_version = excluded.scanned_version,
          scanned_round = excluded.scanned_round, scanned_at = excluded.scanned_at`;
    },
    async queueItem(item) {
      const rows = await core.q()`INSERT INTO scan_queue (candidate_key, memory_a, memory_b,
          version_a, version_b, row_a, row_b, assessment, score, status, round_id, created_at)
        VALUES (${item.candidateKey}, ${item.memoryA}, ${item.memoryB}, ${item.versionA},
          ${item.versionB}, ${item.rowA}, ${item.rowB}, ${
        JSON.stringify(item.assessment)
      }::text::json,
          ${item.score}, 'pending', ${item.roundId}, ${item.now})
        ON CONFLICT (candidate_key) DO NOTHING RETURNING id`;
      return rows.length > 0;
    },
    async queueItems(query) {
      const sql = core.q();
      const after = query.after;
      // Keyset paging on (score descending, id).
      const rows = await sql`SELECT * FROM scan_queue WHERE status = 'pending' ${
        after === undefined
          ? sql``
          : sql`AND (score < ${after.score} OR (score = ${after.score} AND id > ${after.id}))`
      } ORDER BY score DESC, id LIMIT ${query.limit}`;
      return rows.map(toScanItem);
    },
    async queueItemById(id) {
      const [row] = await core.q()`SELECT * FROM scan_queue WHERE id = ${id}`;
      return row ? toScanItem(row) : undefined;
    },
    async decideItem(id, decision) {
      const rows = await core.q()`UPDATE scan_queue SET status = ${decision.status},
          decided_by = ${decision.by}, decided_at = ${decision.now},
          conflict_id = ${decision.conflictId ?? null}
        WHERE id = ${id} AND status = 'pending' RETURNING id`;
      return rows.length > 0;
    },
  };
}
