/**
 * Purging a memory for good on PostgreSQL: {@linkcode PurgeRepository}, answering as the SQLite
 * room does (src/store/purge_sql.ts documents what goes and what stays). The `memories` row stays
 * as a tombstone; the bytes of the deleted rows leave the tables at the next VACUUM
 * (`scrubFreedSpace`), and leave PostgreSQL's WAL, archives and backups only as they expire
 * (docs/POSTGRES.md).
 *
 * @module
 */
import type { PgCore } from "./core.ts";
import type { PurgeRepository } from "../repositories.ts";
import { PURGE_SCRUB_OWED } from "../purge_sql.ts";
import { unindexMemoryTerms } from "./word_index_room.ts";

const json = (value: unknown) => JSON.stringify(value);

/** The purge room over `core`'s pool. */
export function pgPurge(core: PgCore<unknown>): PurgeRepository {
  const owedScrub = async () => {
    const [row] = await core.q()`SELECT value FROM meta WHERE key = ${PURGE_SCRUB_OWED}`;
    if (row === undefined) return undefined;
    const value = String(row.value);
    let backupIds: string[] = [];
    try {
      const parsed = JSON.parse(value) as { backup_ids?: unknown };
      if (Array.isArray(parsed.backup_ids)) backupIds = parsed.backup_ids.map(String);
    } catch {
      // An unreadable value still owes the scrub.
    }
    return { value, backupIds };
  };
  return {
    async purgeMemoryContent(memory, now) {
      const sql = core.q();
      const id = memory.id;
      const history = (await sql`SELECT version, content_sha FROM memory_history
        WHERE memory_id = ${id} ORDER BY version`).map((row) => ({
        version: Number(row.version),
        contentSha: String(row.content_sha),
      }));
      await unindexMemoryTerms(core, id, memory);
      // Their vectors go with them (a cascade, logged for every server's copy).
      const rows = (await sql`DELETE FROM memory_rows WHERE memory_id = ${id} RETURNING id`).length;
      await sql`DELETE FROM memory_history WHERE memory_id = ${id}`;
      const jobs = (await sql`DELETE FROM jobs
        WHERE json_typeof(payload->'memory_id') = 'number'
          AND (payload->>'memory_id')::numeric = ${id} RETURNING id`).length;
      await sql`DELETE FROM scan_state WHERE memory_id = ${id}`;
      await sql`DELETE FROM check_plan WHERE memory_id = ${id}`;
      await sql`DELETE FROM stale_claims WHERE memory_id = ${id}`;
      const scanItems = (await sql`DELETE FROM scan_queue
        WHERE memory_a = ${id} OR memory_b = ${id} RETURNING id`).length;
      const replayEntryIds = (await sql`SELECT entry_id FROM backup_replay_log
        WHERE memory_id = ${id} ORDER BY entry_id COLLATE "C"`).map((row) => String(row.entry_id));
      // The log keeps each entry id (a replay still skips it), not the saved input.
      await sql`UPDATE backup_replay_log SET detail = '{"purged":true}'::json
        WHERE memory_id = ${id}`;
      const followersUnlinked = (await sql`UPDATE memories SET follows = NULL
        WHERE follows = ${id} RETURNING id`).length;
      const supersededUnlinked = (await sql`UPDATE memories SET superseded_by = NULL
        WHERE superseded_by = ${id} AND id != ${id} RETURNING id`).length;
      await sql`UPDATE conflicts SET resolution_memory_id = NULL
        WHERE resolution_memory_id = ${id}`;
      await sql`UPDATE memories SET subject = '', content = '', tags = '[]'::jsonb,
          metadata = '{}'::json, source_ref = NULL, follows = NULL, superseded_by = NULL,
          status = 'deleted', updated_at = ${now}, last_accessed = NULL
        WHERE id = ${id}`;
      return {
        history,
        rows,
        jobs,
        scanItems,
        replayEntryIds,
        followersUnlinked,
        supersededUnlinked,
      };
    },
    async conflictIdsOf(memoryId) {
      const rows = await core.q()`SELECT conflict_id FROM conflict_members
        WHERE memory_id = ${memoryId} ORDER BY conflict_id`;
      return rows.map((row) => Number(row.conflict_id));
    },
    async deleteConflict(conflictId) {
      const sql = core.q();
      await sql`DELETE FROM notices WHERE conflict_id = ${conflictId}`;
      await sql`DELETE FROM scan_queue WHERE conflict_id = ${conflictId}`;
      await sql`DELETE FROM conflict_members WHERE conflict_id = ${conflictId}`;
      await sql`DELETE FROM conflict_keys WHERE conflict_id = ${conflictId}`;
      await sql`DELETE FROM stale_claims WHERE conflict_id = ${conflictId}`;
      await sql`DELETE FROM conflicts WHERE id = ${conflictId}`;
    },
    async rewriteConflictWithout(conflictId, memoryId, change) {
      const sql = core.q();
      await sql`DELETE FROM conflict_members
        WHERE conflict_id = ${conflictId} AND memory_id = ${memoryId}`;
      if (change.staleClaims === "drop") {
        await sql`DELETE FROM stale_claims WHERE conflict_id = ${conflictId}`;
      } else {
        await sql`UPDATE stale_claims SET holder_ids = (
            SELECT coalesce(json_agg(holder), '[]'::json)
            FROM json_array_elements(stale_claims.holder_ids) AS holder
            WHERE holder::text::numeric != ${change.memoryId})
          WHERE conflict_id = ${conflictId}`;
      }
      await sql`UPDATE conflicts SET status = ${change.status},
          candidate_key = ${change.candidateKey}, members = ${json(change.members)}::text::json,
          value_groups = ${json(change.valueGroups)}::text::json,
          detection = ${json(change.detection)}::text::json, chosen_value = ${change.chosenValue},
          decision_reason = ${change.decisionReason}, plan = ${json(change.plan)}::text::json,
          plan_history = ${json(change.planHistory)}::text::json, revision = revision + 1,
          updated_at = ${change.now}
        WHERE id = ${conflictId}`;
    },
    async deleteNoticesNaming(memoryId) {
      const rows = await core.q()`DELETE FROM notices n WHERE json_typeof(n.payload->'memory_ids')
          = 'array' AND EXISTS (SELECT 1 FROM json_array_elements_text(n.payload->'memory_ids') j
            WHERE j::numeric = ${memoryId})
        RETURNING id`;
      return rows.length;
    },
    owedScrub,
    async markScrubOwed(backupIds) {
      const before = (await owedScrub())?.backupIds ?? [];
      const value = json({ backup_ids: [...new Set([...before, ...backupIds])] });
      await core.q()`INSERT INTO meta (key, value) VALUES (${PURGE_SCRUB_OWED}, ${value})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    },
    async clearOwedScrub(value) {
      await core.q()`DELETE FROM meta WHERE key = ${PURGE_SCRUB_OWED} AND value = ${value}`;
    },
  };
}
