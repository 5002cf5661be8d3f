/**
 * Evidence rows on PostgreSQL: {@linkcode EvidenceRowsRepository}, answering as the SQLite room
 * does (src/store/evidence_sql.ts documents each operation). `embedding_space` is stored with the
 * byte-order collation, so "rows of another space" (`<` and `>` the current one) and the order
 * rows are embedded in are the same as on SQLite.
 *
 * @module
 */
import type { PgCore } from "./core.ts";
import type { Fragment } from "./recall_room.ts";
import type { EvidenceRowsRepository } from "../repositories.ts";
import type { EvidenceRowRecord, NewEvidenceRow } from "../evidence_sql.ts";
import { selectLibraryCounts } from "./library_counts.ts";

type Row = Record<string, unknown>;

const nullableNumber = (value: unknown) => value === null ? null : Number(value);

function toRow(row: Row): EvidenceRowRecord {
  return {
    id: Number(row.id),
    memoryId: Number(row.memory_id),
    memoryVersion: Number(row.memory_version),
    rowIndex: Number(row.row_index),
    kind: row.kind as NewEvidenceRow["kind"],
    text: String(row.text),
    startOffset: nullableNumber(row.start_offset),
    endOffset: nullableNumber(row.end_offset),
    embeddingSpace: row.embedding_space === null ? null : String(row.embedding_space),
  };
}

/** The evidence rows room over `core`'s pool. */
export function pgEvidenceRows(core: PgCore<unknown>): EvidenceRowsRepository {
  return {
    async replaceRows(memory, rows) {
      const sql = core.q();
      const removed = sql`DELETE FROM memory_rows WHERE memory_id = ${memory.id}`;
      if (rows.length === 0) return void await removed;
      // Inside a unit both statements go out at once on its one connection, which runs them in
      // order (one round trip under the write lock, not two); outside one they run one by one.
      if (!core.inUnit()) await removed;
      // One statement for every row, whatever their number.
      const inserted =
        sql`INSERT INTO memory_rows (memory_id, memory_version, row_index, kind, text,
          start_offset, end_offset)
        SELECT ${memory.id}, ${memory.version}, r.row_index, r.kind, r.text, r.start_offset,
          r.end_offset
        FROM unnest(${rows.map((row) => row.rowIndex)}::int[],
          ${rows.map((row) => row.kind)}::text[], ${rows.map((row) => row.text)}::text[],
          ${rows.map((row) => row.startOffset)}::int[], ${rows.map((row) => row.endOffset)}::int[])
          AS r(row_index, kind, text, start_offset, end_offset)`;
      await Promise.all([removed, inserted]);
    },
    async replaceRowsOfMany(list) {
      if (list.length === 0) return;
      const sql = core.q();
      const removed = sql`DELETE FROM memory_rows
        WHERE memory_id = ANY(${list.map((item) => item.memory.id)}::bigint[])`;
      if (!core.inUnit()) await removed;
      const rows = list.flatMap(({ memory, rows }) => rows.map((row) => ({ memory, row })));
      // Sent with the delete, as replaceRows does: one round trip for every memory's rows.
      const inserted = rows.length === 0 ? [] : sql`INSERT INTO memory_rows (memory_id,
          memory_version, row_index, kind, text, start_offset, end_offset)
        SELECT * FROM unnest(${rows.map((r) => r.memory.id)}::bigint[],
          ${rows.map((r) => r.memory.version)}::int[], ${rows.map((r) => r.row.rowIndex)}::int[],
          ${rows.map((r) => r.row.kind)}::text[], ${rows.map((r) => r.row.text)}::text[],
          ${rows.map((r) => r.row.startOffset)}::int[], ${
        rows.map((r) => r.row.endOffset)
      }::int[])`;
      await Promise.all([removed, inserted]);
    },
    async rowsToEmbed(space, limit) {
      const sql = core.q();
      const select = async (condition: Fragment, take: number) =>
        await sql`SELECT r.* FROM memory_rows r JOIN memories m ON m.id = r.memory_id
          WHERE ${condition} AND m.status != 'deleted' AND r.memory_version = m.version
          ORDER BY r.embedding_space, r.memory_id, r.id LIMIT ${take}`;
      // Unembedded rows first, then rows of another space, as on SQLite.
      const rows: Row[] = [...await select(sql`r.embedding_space IS NULL`, limit)];
      for (
        const condition of [sql`r.embedding_space < ${space}`, sql`r.embedding_space > ${space}`]
      ) {
        if (rows.length >= limit) break;
        rows.push(...await select(condition, limit - rows.length));
      }
      return rows.map(toRow);
    },
    async rowsOfMemory(memoryId) {
      const rows = await core.q()`SELECT r.* FROM memory_rows r
        JOIN memories m ON m.id = r.memory_id
        WHERE r.memory_id = ${memoryId} AND r.memory_version = m.version ORDER BY r.row_index`;
      return rows.map(toRow);
    },
    async rowsOfMemories(memoryIds) {
      const found = new Map<number, EvidenceRowRecord[]>(memoryIds.map((id) => [id, []]));
      if (memoryIds.length === 0) return found;
      const rows = await core.q()`SELECT r.* FROM memory_rows r
        JOIN memories m ON m.id = r.memory_id
        WHERE r.memory_id = ANY(${memoryIds as number[]}::bigint[])
          AND r.memory_version = m.version
        ORDER BY r.memory_id, r.row_index`;
      for (const row of rows) found.get(Number(row.memory_id))?.push(toRow(row));
      return found;
    },
    async countRowsToEmbed(space) {
      // Both from the kept counts (library_counts.ts): neither the library nor the backlog.
      const sql = core.q();
      const rows = (await selectLibraryCounts(sql, "rows")).reduce((sum, p) => sum + p.n, 0);
      if (space === undefined) return { rows, pending: rows };
      const embedded = (await selectLibraryCounts(sql, "embedded"))
        .reduce((sum, p) => p.kind === space ? sum + p.n : sum, 0);
      return { rows, pending: rows - embedded };
    },
    async countEvidence(space) {
      const [row] = await core.q()`SELECT
          (SELECT coalesce(sum(n), 0) FROM library_counts
            WHERE counted = 'memories' AND status != 'deleted') AS memories,
          (SELECT count(DISTINCT memory_id) FROM memory_rows) AS with_rows,
          (SELECT coalesce(sum(n), 0) FROM library_counts WHERE counted = 'rows') AS rows,
          (SELECT coalesce(sum(n), 0) FROM library_counts
            WHERE counted = 'embedded' AND kind = ${space ?? null}) AS embedded`;
      return {
        memories: Number(row.memories),
        memoriesWithRows: Number(row.with_rows),
        rows: Number(row.rows),
        embedded: space === undefined ? 0 : Number(row.embedded),
      };
    },
    async memoriesMissingRows(limit) {
      const rows = await core.q()`SELECT m.id FROM memories m
        WHERE m.status != 'deleted' AND NOT EXISTS (SELECT 1 FROM memory_rows r
          WHERE r.memory_id = m.id AND r.memory_version = m.version)
        ORDER BY m.id LIMIT ${limit}`;
      return rows.map((row) => Number(row.id));
    },
  };
}
