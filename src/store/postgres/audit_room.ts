/**
 * The audit trail and the backup replay log on PostgreSQL: {@linkcode AuditRepository} and
 * {@linkcode ReplayLogRepository}, answering as the SQLite rooms do (src/store/audit_sql.ts,
 * src/store/replay_log_sql.ts and src/store/purge_sql.ts document each operation).
 *
 * `detail` is stored as `json` (its text as written); where a row's detail changes, the new
 * object is computed here and written whole, so its keys keep their order.
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { AuditRepository, ReplayLogRepository } from "../repositories.ts";
import type { AuditRecord } from "../audit_sql.ts";
import type { AuditEntry } from "../types.ts";

type Row = Record<string, unknown>;

function toAuditRecord(row: Row): AuditRecord {
  return {
    id: Number(row.id),
    at: String(row.at),
    action: String(row.action),
    memoryId: row.memory_id === null ? null : Number(row.memory_id),
    agentId: String(row.agent_id),
    client: String(row.client),
    reason: row.reason === null ? null : String(row.reason),
    detail: row.detail as Record<string, unknown>,
  };
}

async function insertAudit(sql: PgQuery, entry: AuditEntry): Promise<void> {
  await sql`INSERT INTO audit (at, action, memory_id, agent_id, client, reason, detail)
    VALUES (${entry.at}, ${entry.action}, ${entry.memoryId}, ${entry.agentId}, ${entry.client},
      ${entry.reason}, ${JSON.stringify(entry.detail)}::text::json)`;
}

/** Keys whose integer values name a memory (purge_sql.ts `selectAuditMentioning`). */
const MEMORY_KEYS = new Set(["memory_id", "survivor_id", "superseded_by", "resolution_memory_id"]);

/**
 * Whether an audit detail mentions the memory or one of the conflict groups: an integer under a
 * memory key, in an array under a key ending `_ids`, a key of `loser_versions` at the top, or a
 * `conflict_id` of one of the groups, anywhere in the document.
 */
function detailMentions(
  detail: unknown,
  memoryId: number,
  conflictIds: ReadonlySet<number>,
): boolean {
  // As SQLite's json_tree names them: `container` is the path of the array or object holding
  // the value (json_tree's `path`), `own` the value's own path (its `fullkey`).
  const visit = (value: unknown, key: string | undefined, container: string, own: string) => {
    if (typeof value === "number" && Number.isInteger(value)) {
      if (value === memoryId && key !== undefined && MEMORY_KEYS.has(key)) return true;
      if (value === memoryId && container.endsWith("_ids")) return true;
      return key === "conflict_id" && conflictIds.has(value);
    }
    if (Array.isArray(value)) {
      return value.some((item, index): boolean => visit(item, undefined, own, `${own}[${index}]`));
    }
    if (value !== null && typeof value === "object") {
      return Object.entries(value).some(([name, item]): boolean =>
        (own === "$.loser_versions" && name === String(memoryId)) ||
        visit(item, name, own, `${own}.${name}`)
      );
    }
    return false;
  };
  return visit(detail, undefined, "", "$");
}

/** The audit room over `core`'s pool. */
export function pgAudit(core: PgCore<unknown>): AuditRepository {
  return {
    appendAudit: (entry) => insertAudit(core.q(), entry),
    async recordCoalescedAudit(entry, window) {
      const sql = core.q();
      const like = async (candidate: AuditEntry) => {
        const peer = (candidate.detail.peer as string | undefined) ?? null;
        const [row] = await sql`SELECT id, detail FROM audit
          WHERE action = ${candidate.action} AND at COLLATE "C" >= ${window.since}
            AND client = ${candidate.client} AND agent_id = ${candidate.agentId}
            AND reason IS NOT DISTINCT FROM ${candidate.reason}
            AND (detail->>'peer') IS NOT DISTINCT FROM ${peer}
          ORDER BY id DESC LIMIT 1`;
        return row;
      };
      let target = entry;
      let existing = await like(entry);
      if (existing === undefined) {
        const [row] = await sql`SELECT count(*) AS n FROM audit
          WHERE action = ${entry.action} AND at COLLATE "C" >= ${window.since}`;
        if (Number(row.n) >= window.maxRows) {
          target = { ...window.overflow, at: entry.at };
          existing = await like(target);
        }
      }
      if (existing !== undefined) {
        const detail = { ...(existing.detail as Record<string, unknown>) };
        detail.count = Number(detail.count ?? 1) + 1;
        detail.last_at = entry.at;
        await sql`UPDATE audit SET detail = ${JSON.stringify(detail)}::text::json
          WHERE id = ${existing.id}`;
        return "counted";
      }
      await insertAudit(sql, target);
      return "added";
    },
    async listAudit(query) {
      const sql = core.q();
      const where = [sql`true`];
      if (query.memoryId !== undefined) where.push(sql`memory_id = ${query.memoryId}`);
      if (query.action !== undefined) where.push(sql`action = ${query.action}`);
      if (query.agentId !== undefined) where.push(sql`agent_id = ${query.agentId}`);
      if (query.after !== undefined) where.push(sql`at COLLATE "C" >= ${query.after}`);
      if (query.workspace !== undefined) {
        where.push(sql`memory_id IN (SELECT id FROM memories
          WHERE workspace_canonical = ${query.workspace})`);
      }
      const clause = where.reduce((all, part) => sql`${all} AND ${part}`);
      const rows = await sql`SELECT * FROM audit WHERE ${clause}
        ORDER BY id DESC LIMIT ${query.limit} OFFSET ${query.offset}`;
      const [count] = await sql`SELECT count(*) AS n FROM audit WHERE ${clause}`;
      return { total: Number(count.n), rows: rows.map(toAuditRecord) };
    },
    async auditMentioning(memoryId, conflictIds) {
      const groups = new Set(conflictIds);
      // Rows whose detail holds the number's digits at all, then the exact rule on each.
      const digits = [String(memoryId), ...conflictIds.map(String)];
      const rows = await core.q()`SELECT * FROM audit
        WHERE memory_id = ${memoryId} OR detail::text ~ ${`(${digits.join("|")})`}
        ORDER BY id`;
      return rows.map(toAuditRecord).filter((record) =>
        record.memoryId === memoryId || detailMentions(record.detail, memoryId, groups)
      );
    },
    async scrubAuditRow(auditId, change) {
      await core.q()`UPDATE audit SET reason = ${change.reason},
        detail = ${JSON.stringify(change.detail)}::text::json WHERE id = ${auditId}`;
    },
  };
}

/** The replay log over `core`'s pool. */
export function pgReplayLog(core: PgCore<unknown>): ReplayLogRepository {
  return {
    async replayOutcome(entryId) {
      const [row] = await core.q()`SELECT outcome FROM backup_replay_log
        WHERE entry_id = ${entryId}`;
      return row ? String(row.outcome) : undefined;
    },
    async logReplay(entry) {
      await core.q()`INSERT INTO backup_replay_log (entry_id, applied_at, outcome, memory_id,
          detail)
        VALUES (${entry.entryId}, ${entry.at}, ${entry.outcome}, ${entry.memoryId},
          ${JSON.stringify(entry.detail)}::text::json)`;
    },
  };
}
