/**
 * The workspace registry on PostgreSQL: {@linkcode WorkspacesRepository}, answering exactly as
 * the SQLite room does (src/store/workspaces_sql.ts documents each operation).
 *
 * @module
 */
import type { PgCore } from "./core.ts";
import { indexMemoryTerms } from "./word_index_room.ts";
import type { WorkspacesRepository } from "../repositories.ts";
import type { MoveOutcome, WorkspaceRecord, WorkspaceState } from "../workspaces_sql.ts";

type Row = Record<string, unknown>;

const nullableString = (value: unknown) => value === null ? null : String(value);

function toRecord(row: Row): WorkspaceRecord {
  return {
    canonical: String(row.canonical),
    display: String(row.display),
    state: row.state as WorkspaceState,
    redirectTo: nullableString(row.redirect_to),
    reviewed: row.reviewed === true,
    createdAt: String(row.created_at),
    createdBy: nullableString(row.created_by),
    confirmedAt: nullableString(row.confirmed_at),
    confirmedBy: nullableString(row.confirmed_by),
  };
}

/** The most writers a workspace summary names. */
const SUMMARY_WRITERS = 5;

/** The workspaces room over `core`'s pool. */
export function pgWorkspaces(core: PgCore<unknown>): WorkspacesRepository {
  const listWorkspaces = async () =>
    (await core.q()`SELECT * FROM workspaces ORDER BY canonical COLLATE "C"`).map(toRecord);
  return {
    async getWorkspace(canonical) {
      const [row] = await core.q()`SELECT * FROM workspaces WHERE canonical = ${canonical}`;
      return row ? toRecord(row) : undefined;
    },
    listWorkspaces,
    async workspaceSummaries() {
      const sql = core.q();
      const counts = new Map<string, Record<string, number>>();
      const last = new Map<string, string>();
      const byStatus = await sql`SELECT workspace_canonical AS ws, status, count(*) AS n,
          max(updated_at COLLATE "C") AS last
        FROM memories WHERE status != 'deleted' GROUP BY workspace_canonical, status`;
      for (const row of byStatus) {
        const ws = String(row.ws);
        const statuses = counts.get(ws) ?? {};
        statuses[String(row.status)] = Number(row.n);
        counts.set(ws, statuses);
        const at = String(row.last);
        if ((last.get(ws) ?? "") < at) last.set(ws, at);
      }
      const writers = new Map<string, string[]>();
      const byWriter = await sql`SELECT workspace_canonical AS ws,
          client || '/' || agent_id AS writer, count(*) AS n
        FROM memories WHERE status != 'deleted'
        GROUP BY workspace_canonical, client, agent_id
        ORDER BY workspace_canonical COLLATE "C", n DESC,
          (client || '/' || agent_id) COLLATE "C"`;
      for (const row of byWriter) {
        const list = writers.get(String(row.ws)) ?? [];
        if (list.length < SUMMARY_WRITERS) list.push(String(row.writer));
        writers.set(String(row.ws), list);
      }
      return (await listWorkspaces()).map((record) => ({
        ...record,
        counts: counts.get(record.canonical) ?? {},
        lastWrite: last.get(record.canonical) ?? null,
        writers: writers.get(record.canonical) ?? [],
      }));
    },
    async registerWorkspace(workspace) {
      await core.q()`INSERT INTO workspaces (canonical, display, state, created_at, created_by)
        VALUES (${workspace.canonical}, ${workspace.display}, ${workspace.state},
          ${workspace.at}, ${workspace.by})
        ON CONFLICT (canonical) DO NOTHING`;
    },
    async confirmWorkspace(canonical, change) {
      await core.q()`UPDATE workspaces SET state = 'active', redirect_to = NULL,
        confirmed_at = ${change.at}, confirmed_by = ${change.by} WHERE canonical = ${canonical}`;
    },
    async markWorkspacesReviewed(canonicals, change) {
      if (canonicals.length === 0) return;
      await core.q()`UPDATE workspaces SET reviewed = true,
        confirmed_at = coalesce(confirmed_at, ${change.at}),
        confirmed_by = coalesce(confirmed_by, ${change.by})
        WHERE canonical = ANY(${canonicals as string[]}::text[])`;
    },
    async redirectWorkspace(from, to, change) {
      const sql = core.q();
      await sql`INSERT INTO workspaces (canonical, display, state, reviewed, created_at,
          created_by)
        VALUES (${to.canonical}, ${to.display}, 'active', true, ${change.at}, ${change.by})
        ON CONFLICT (canonical) DO NOTHING`;
      await sql`UPDATE workspaces SET state = 'redirect', redirect_to = ${to.canonical},
        confirmed_at = ${change.at}, confirmed_by = ${change.by} WHERE canonical = ${from}`;
      await sql`UPDATE workspaces SET redirect_to = ${to.canonical} WHERE redirect_to = ${from}`;
      await sql`UPDATE conflicts SET workspace_canonical = ${to.canonical}
        WHERE workspace_canonical = ${from}`;
    },
    async workspaceMemoryIds(canonical) {
      const rows = await core.q()`SELECT id FROM memories
        WHERE workspace_canonical = ${canonical} AND status != 'deleted' ORDER BY id`;
      return rows.map((row) => Number(row.id));
    },
    async moveMemory(memory, to, at) {
      const sql = core.q();
      const outcome: MoveOutcome = { id: memory.id };
      let status = memory.status;
      let supersededBy = memory.supersededBy;
      if (memory.status === "active") {
        const [twin] = await sql`SELECT id FROM memories
          WHERE workspace_canonical = ${to.canonical} AND content_sha = ${memory.contentSha}
            AND status = 'active' AND id != ${memory.id}`;
        if (twin) {
          status = "superseded";
          supersededBy = Number(twin.id);
          outcome.supersededBy = supersededBy;
        }
      }
      await sql`UPDATE memories SET workspace = ${to.display},
        workspace_canonical = ${to.canonical}, status = ${status},
        superseded_by = ${supersededBy}, updated_at = ${at} WHERE id = ${memory.id}`;
      // A `follows` link that would cross workspaces is cut, both ways.
      await sql`UPDATE memories m SET follows = NULL
        WHERE m.id = ${memory.id} AND m.follows IS NOT NULL
          AND (SELECT p.workspace_canonical FROM memories p WHERE p.id = m.follows)
            != ${to.canonical}`;
      await sql`UPDATE memories SET follows = NULL
        WHERE follows = ${memory.id} AND workspace_canonical != ${to.canonical}`;
      // The index row moves with it: its scope token names the new workspace.
      const fields = { subject: memory.subject, tags: memory.tags, content: memory.content };
      await indexMemoryTerms(core, memory.id, { ...fields, workspaceCanonical: to.canonical }, {
        ...fields,
        workspaceCanonical: memory.workspaceCanonical,
      });
      return outcome;
    },
  };
}
