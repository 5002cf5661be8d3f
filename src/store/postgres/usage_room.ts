/**
 * Access statistics on PostgreSQL: {@linkcode UsageRepository}, answering as the SQLite room
 * does (src/store/usage_sql.ts documents each operation). PostgreSQL keeps no cache of memory
 * rows, so a flush invalidates nothing.
 *
 * @module
 */
import type { PgCore } from "./core.ts";
import type { UsageRepository } from "../repositories.ts";
import type { AccessStat } from "../usage_sql.ts";

/** The usage room over `core`'s pool. */
export function pgUsage(core: PgCore<unknown>): UsageRepository {
  return {
    async addAccesses(accesses) {
      if (accesses.length === 0) return 0;
      const sql = core.q();
      // One statement for the batch: the accesses as parallel arrays, joined by id.
      const rows = await sql`UPDATE memories AS m SET access_count = m.access_count + a.count,
          last_accessed = CASE WHEN m.last_accessed IS NULL
            OR m.last_accessed COLLATE "C" < a.at COLLATE "C" THEN a.at ELSE m.last_accessed END
        FROM unnest(${accesses.map((a) => a.memoryId)}::bigint[],
          ${accesses.map((a) => a.count)}::int[], ${accesses.map((a) => a.at)}::text[])
          AS a(id, count, at)
        WHERE m.id = a.id AND m.status <> 'deleted'
        RETURNING m.id`;
      return rows.length;
    },
    async accessStats(ids) {
      const stats = new Map<number, AccessStat>();
      if (ids.length === 0) return stats;
      const rows = await core.q()`SELECT id, access_count, last_accessed FROM memories
        WHERE id = ANY(${ids as number[]}::bigint[]) AND access_count > 0`;
      for (const row of rows) {
        stats.set(Number(row.id), {
          count: Number(row.access_count),
          lastAccessed: row.last_accessed === null ? null : String(row.last_accessed),
        });
      }
      return stats;
    },
  };
}
