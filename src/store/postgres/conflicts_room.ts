/**
 * Conflict groups and notices on PostgreSQL (with the scan queue, scan_queue_room.ts, they are
 * `store.conflicts`) and {@linkcode PendingNoticesRepository}, answering as the SQLite rooms do
 * (src/store/conflicts_sql.ts and notices_sql.ts document each operation).
 * JSON documents (members, plans, payloads) are stored as `json`, their text as written.
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { Fragment } from "./recall_room.ts";
import type {
  ConflictGroupsRepository,
  NoticesRepository,
  PendingNoticesRepository,
} from "../repositories.ts";
import type { ConflictRecord, ConflictStatus } from "../conflicts_sql.ts";
import type { NoticeFilter, NoticeRecord, NoticeStatus } from "../notices_sql.ts";

type Row = Record<string, unknown>;

const nullableString = (value: unknown) => value === null ? null : String(value);
const nullableNumber = (value: unknown) => value === null ? null : Number(value);
const json = (value: unknown) => JSON.stringify(value);

function toConflict(row: Row): ConflictRecord {
  return {
    id: Number(row.id),
    workspaceCanonical: String(row.workspace_canonical),
    status: row.status as ConflictStatus,
    revision: Number(row.revision),
    source: row.source as ConflictRecord["source"],
    candidateKey: String(row.candidate_key),
    members: row.members as ConflictRecord["members"],
    valueGroups: row.value_groups as ConflictRecord["valueGroups"],
    detection: row.detection as ConflictRecord["detection"],
    chosenValue: nullableString(row.chosen_value),
    decidedBy: nullableString(row.decided_by),
    decisionRef: nullableString(row.decision_ref),
    decisionReason: nullableString(row.decision_reason),
    plan: row.plan as ConflictRecord["plan"],
    planHistory: row.plan_history as ConflictRecord["planHistory"],
    resolutionMemoryId: nullableNumber(row.resolution_memory_id),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

async function addMembers(sql: PgQuery, conflictId: number, memoryIds: number[]): Promise<void> {
  if (memoryIds.length === 0) return;
  await sql`INSERT INTO conflict_members (conflict_id, memory_id)
    SELECT ${conflictId}, unnest(${memoryIds}::bigint[]) ON CONFLICT DO NOTHING`;
}

/** The conflict groups room over `core`'s pool. */
export function pgConflictGroups(core: PgCore<unknown>): ConflictGroupsRepository {
  return {
    async insert(group) {
      const sql = core.q();
      const [row] = await sql`INSERT INTO conflicts (workspace_canonical, status, source,
          candidate_key, members, value_groups, detection, created_at, updated_at)
        VALUES (${group.workspaceCanonical}, ${group.status}, ${group.source},
          ${group.candidateKey}, ${json(group.members)}::text::json,
          ${json(group.valueGroups)}::text::json, ${json(group.detection)}::text::json,
          ${group.createdAt}, ${group.createdAt})
        ON CONFLICT (candidate_key) DO NOTHING RETURNING id`;
      if (row === undefined) return undefined;
      const id = Number(row.id);
      await addMembers(sql, id, group.members.map((m) => m.memory_id));
      return id;
    },
    async get(id) {
      const [row] = await core.q()`SELECT * FROM conflicts WHERE id = ${id}`;
      return row ? toConflict(row) : undefined;
    },
    async list(query) {
      const sql = core.q();
      let where = sql`status = ANY(${query.statuses as string[]}::text[])`;
      if (query.workspace !== undefined) {
        // Wholly inside the workspace: every member memory is in it (strict isolation).
        where = sql`${where} AND workspace_canonical = ${query.workspace} AND NOT EXISTS (
          SELECT 1 FROM json_array_elements(conflicts.members) AS member
          JOIN memories m ON m.id = (member->>'memory_id')::bigint
          WHERE m.workspace_canonical != ${query.workspace})`;
      }
      const rows = await sql`SELECT * FROM conflicts WHERE ${where}
        ORDER BY id DESC LIMIT ${query.limit} OFFSET ${query.offset}`;
      const [count] = await sql`SELECT count(*) AS n FROM conflicts WHERE ${where}`;
      return { rows: rows.map(toConflict), total: Number(count.n) };
    },
    async update(id, expectedRevision, change) {
      const sql = core.q();
      const sets: Fragment[] = [sql`revision = revision + 1`, sql`updated_at = ${change.now}`];
      if (change.status !== undefined) sets.push(sql`status = ${change.status}`);
      if (change.chosenValue !== undefined) sets.push(sql`chosen_value = ${change.chosenValue}`);
      if (change.decidedBy !== undefined) sets.push(sql`decided_by = ${change.decidedBy}`);
      if (change.decisionRef !== undefined) sets.push(sql`decision_ref = ${change.decisionRef}`);
      if (change.decisionReason !== undefined) {
        sets.push(sql`decision_reason = ${change.decisionReason}`);
      }
      if (change.plan !== undefined) sets.push(sql`plan = ${json(change.plan)}::text::json`);
      if (change.planHistory !== undefined) {
        sets.push(sql`plan_history = ${json(change.planHistory)}::text::json`);
      }
      if (change.resolutionMemoryId !== undefined) {
        sets.push(sql`resolution_memory_id = ${change.resolutionMemoryId}`);
      }
      if (change.members !== undefined) {
        sets.push(sql`members = ${json(change.members)}::text::json`);
      }
      if (change.valueGroups !== undefined) {
        sets.push(sql`value_groups = ${json(change.valueGroups)}::text::json`);
      }
      const list = sets.reduce((all, set) => sql`${all}, ${set}`);
      const rows = await sql`UPDATE conflicts SET ${list}
        WHERE id = ${id} AND revision = ${expectedRevision} RETURNING id`;
      if (rows.length === 0) return false;
      if (change.members !== undefined) {
        await addMembers(sql, id, change.members.map((m) => m.memory_id));
      }
      return true;
    },
    async openOf(memoryIds) {
      const found = new Map<
        number,
        { conflictId: number; status: ConflictStatus; revision: number }[]
      >();
      if (memoryIds.length === 0) return found;
      const rows = await core.q()`SELECT cm.memory_id, c.id, c.status, c.revision
        FROM conflict_members cm JOIN conflicts c ON c.id = cm.conflict_id
        WHERE cm.memory_id = ANY(${memoryIds as number[]}::bigint[])
          AND c.status IN ('open', 'applying')
        ORDER BY cm.memory_id, c.id`;
      for (const row of rows) {
        const list = found.get(Number(row.memory_id)) ?? [];
        list.push({
          conflictId: Number(row.id),
          status: row.status as ConflictStatus,
          revision: Number(row.revision),
        });
        found.set(Number(row.memory_id), list);
      }
      return found;
    },
    async addKey(key, conflictId) {
      const sql = core.q();
      const [taken] = await sql`SELECT 1 FROM conflicts WHERE candidate_key = ${key}`;
      if (taken !== undefined) return false;
      const rows = await sql`INSERT INTO conflict_keys (candidate_key, conflict_id)
        VALUES (${key}, ${conflictId}) ON CONFLICT DO NOTHING RETURNING candidate_key`;
      return rows.length > 0;
    },
    async byKey(key) {
      const [row] = await core.q()`SELECT id FROM conflicts WHERE candidate_key = ${key}
        UNION ALL SELECT conflict_id FROM conflict_keys WHERE candidate_key = ${key} LIMIT 1`;
      return row ? Number(row.id) : undefined;
    },
    async markStale(claim) {
      await core.q()`INSERT INTO stale_claims (memory_id, conflict_id, memory_version,
          holder_ids, chosen_value, created_at)
        VALUES (${claim.memoryId}, ${claim.conflictId}, ${claim.memoryVersion},
          ${json(claim.holderIds)}::text::json, ${claim.chosenValue}, ${claim.now})
        ON CONFLICT (memory_id, conflict_id) DO UPDATE SET
          memory_version = excluded.memory_version, holder_ids = excluded.holder_ids,
          chosen_value = excluded.chosen_value`;
    },
    async staleClaimsOf(memoryIds) {
      const found = new Map<number, ReturnType<typeof toStaleClaim>[]>();
      if (memoryIds.length === 0) return found;
      const rows = await core.q()`SELECT s.* FROM stale_claims s
        JOIN memories m ON m.id = s.memory_id
        WHERE s.memory_id = ANY(${memoryIds as number[]}::bigint[])
          AND m.version = s.memory_version
        ORDER BY s.memory_id, s.conflict_id`;
      for (const row of rows) {
        const claim = toStaleClaim(row);
        const list = found.get(claim.memoryId) ?? [];
        list.push(claim);
        found.set(claim.memoryId, list);
      }
      return found;
    },
    async backlog() {
      const [row] = await core.q()`SELECT
          (SELECT count(*) FROM conflicts WHERE status = 'open') AS open,
          (SELECT count(*) FROM conflicts WHERE status = 'applying') AS applying,
          (SELECT count(*) FROM notices WHERE status IN ('pending', 'delivered')) AS notices,
          (SELECT count(*) FROM scan_queue WHERE status = 'pending') AS queue`;
      return {
        openConflicts: Number(row.open),
        applyingConflicts: Number(row.applying),
        pendingNotices: Number(row.notices),
        scanQueuePending: Number(row.queue),
      };
    },
  };
}

function toStaleClaim(row: Row) {
  return {
    memoryId: Number(row.memory_id),
    conflictId: Number(row.conflict_id),
    memoryVersion: Number(row.memory_version),
    holderIds: row.holder_ids as number[],
    chosenValue: String(row.chosen_value),
  };
}

function toNotice(row: Row): NoticeRecord {
  return {
    id: Number(row.id),
    kind: String(row.kind),
    severity: row.severity as NoticeRecord["severity"],
    conflictId: nullableNumber(row.conflict_id),
    dedupeKey: String(row.dedupe_key),
    title: String(row.title),
    message: String(row.message),
    payload: row.payload as NoticeRecord["payload"],
    status: row.status as NoticeStatus,
    createdAt: String(row.created_at),
  };
}

/** The memory ids a notice's payload names (`payload.memory_ids`), as rows `j(value)`. */
const PAYLOAD_MEMORY_IDS = `json_array_elements_text(CASE
  WHEN json_typeof(n.payload->'memory_ids') = 'array' THEN n.payload->'memory_ids'
  ELSE '[]'::json END) AS j(value)`;

/** The condition of a notice filter (alias `n` is `notices`), as notices_sql.ts builds it. */
function noticeCondition(sql: PgQuery, filter: NoticeFilter): Fragment {
  // A fresh fragment at each use: the driver splices each one once.
  const ids = () => sql.unsafe(PAYLOAD_MEMORY_IDS);
  const parts: Fragment[] = [sql`n.status = ANY(${filter.statuses as string[]}::text[])`];
  if (filter.id !== undefined) parts.push(sql`n.id = ${filter.id}`);
  if (filter.memoryId !== undefined) {
    parts.push(sql`EXISTS (SELECT 1 FROM ${ids()} WHERE j.value::numeric = ${filter.memoryId})`);
  }
  if (filter.kind !== undefined) parts.push(sql`n.kind = ${filter.kind}`);
  if (filter.severity !== undefined) parts.push(sql`n.severity = ${filter.severity}`);
  if (filter.conflictId !== undefined) parts.push(sql`n.conflict_id = ${filter.conflictId}`);
  if (filter.createdBefore !== undefined) {
    parts.push(sql`n.created_at COLLATE "C" < ${filter.createdBefore}`);
  }
  if (filter.createdAfter !== undefined) {
    parts.push(sql`n.created_at COLLATE "C" >= ${filter.createdAfter}`);
  }
  if (filter.workspace !== undefined) {
    parts.push(sql`EXISTS (SELECT 1 FROM ${ids()}) AND NOT EXISTS (
      SELECT 1 FROM ${ids()} LEFT JOIN memories m ON m.id = j.value::numeric
      WHERE m.id IS NULL OR m.workspace_canonical <> ${filter.workspace})`);
  }
  const source: Fragment[] = [];
  if (filter.sourceRefPrefix !== undefined) {
    source.push(sql`starts_with(m.source_ref, ${filter.sourceRefPrefix})`);
  }
  if (filter.agentId !== undefined) source.push(sql`m.agent_id = ${filter.agentId}`);
  if (filter.client !== undefined) source.push(sql`m.client = ${filter.client}`);
  if (source.length > 0) {
    const all = source.reduce((left, part) => sql`${left} AND ${part}`);
    parts.push(sql`EXISTS (SELECT 1 FROM ${ids()}
      JOIN memories m ON m.id = j.value::numeric WHERE ${all})`);
  }
  return parts.reduce((left, part) => sql`${left} AND ${part}`);
}

/** The notices room over `core`'s pool. */
export function pgNotices(core: PgCore<unknown>): NoticesRepository {
  return {
    async insertNotice(notice) {
      const [row] = await core.q()`INSERT INTO notices (kind, severity, conflict_id, dedupe_key,
          title, message, payload, status, created_at, updated_at)
        VALUES (${notice.kind}, ${notice.severity}, ${notice.conflictId}, ${notice.dedupeKey},
          ${notice.title}, ${notice.message}, ${json(notice.payload)}::text::json, 'pending',
          ${notice.createdAt}, ${notice.createdAt})
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`;
      return row ? Number(row.id) : undefined;
    },
    async notices(query) {
      const rows = await core.q()`SELECT * FROM notices
        WHERE status = ANY(${query.statuses as string[]}::text[])
        ORDER BY id LIMIT ${query.limit} OFFSET ${query.offset}`;
      return rows.map(toNotice);
    },
    async notice(id) {
      const [row] = await core.q()`SELECT * FROM notices WHERE id = ${id}`;
      return row ? toNotice(row) : undefined;
    },
    async setNoticeStatus(ids, change) {
      if (ids.length === 0) return 0;
      const from = change.from ?? ["pending", "delivered", "dismissed", "resolved"];
      const rows = await core.q()`UPDATE notices SET status = ${change.status},
          updated_at = ${change.now}
        WHERE id = ANY(${ids as number[]}::bigint[]) AND status = ANY(${from as string[]}::text[])
        RETURNING id`;
      return rows.length;
    },
    async noticesWhere(filter, page) {
      const sql = core.q();
      const rows = await sql`SELECT n.* FROM notices n WHERE ${noticeCondition(sql, filter)}
        ORDER BY n.id LIMIT ${page.limit} OFFSET ${page.offset}`;
      return rows.map(toNotice);
    },
    async countNotices(filter) {
      const sql = core.q();
      const rows = await sql`SELECT n.severity, n.kind, count(*) AS n FROM notices n
        WHERE ${noticeCondition(sql, filter)} GROUP BY n.severity, n.kind`;
      const counts = {
        total: 0,
        bySeverity: {} as Record<string, number>,
        byKind: {} as Record<string, number>,
      };
      for (const row of rows) {
        const n = Number(row.n);
        counts.total += n;
        const [severity, kind] = [String(row.severity), String(row.kind)];
        counts.bySeverity[severity] = (counts.bySeverity[severity] ?? 0) + n;
        counts.byKind[kind] = (counts.byKind[kind] ?? 0) + n;
      }
      return counts;
    },
    async setNoticesWhere(filter, change) {
      const sql = core.q();
      const rows = await sql`UPDATE notices SET status = ${change.status},
          updated_at = ${change.now}
        WHERE id IN (SELECT n.id FROM notices n WHERE ${noticeCondition(sql, filter)}
          ORDER BY n.id LIMIT ${change.limit})
        RETURNING id`;
      return rows.length;
    },
    async noticesOf(conflictId) {
      const rows = await core.q()`SELECT id FROM notices
        WHERE conflict_id = ${conflictId} AND status IN ('pending', 'delivered') ORDER BY id`;
      return rows.map((row) => Number(row.id));
    },
  };
}

/** Whether any notice is pending (every answer asks: one index probe). */
export function pgPendingNotices(core: PgCore<unknown>): PendingNoticesRepository {
  return {
    async hasPendingNotices() {
      const [row] = await core.q()`SELECT EXISTS (SELECT 1 FROM notices
        WHERE status = 'pending') AS found`;
      return row.found === true;
    },
  };
}
