/**
 * The workspace registry (generation 7) and the moves that change a memory's
 * workspace: every canonical name a write has used, whether it is confirmed,
 * pending confirmation (strict isolation) or a redirect left by a rename or
 * merge, and who created and reviewed it.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { indexMemoryTerms } from "./terms_sql.ts";
import type { MemoryRecord } from "./types.ts";
import { selectMemory } from "./memories_sql.ts";

/** The registry table; the migration fills it from the workspaces memories already use. */
export const WORKSPACES_TABLE = `
CREATE TABLE workspaces (
  canonical TEXT PRIMARY KEY,
  display TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'pending', 'redirect')),
  redirect_to TEXT,
  reviewed INTEGER NOT NULL DEFAULT 0 CHECK (reviewed IN (0, 1)),
  created_at TEXT NOT NULL,
  created_by TEXT,
  confirmed_at TEXT,
  confirmed_by TEXT
);
INSERT INTO workspaces (canonical, display, state, reviewed, created_at)
  SELECT workspace_canonical, min(workspace), 'active', 1, min(created_at)
  FROM memories GROUP BY workspace_canonical;
INSERT OR IGNORE INTO workspaces (canonical, display, state, reviewed, created_at)
  VALUES ('default', 'default', 'active', 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
`;

/** Where a workspace stands. */
export type WorkspaceState = "active" | "pending" | "redirect";

/** One registry row. */
export interface WorkspaceRecord {
  canonical: string;
  display: string;
  state: WorkspaceState;
  /** For a redirect: the workspace writes to this name land in. */
  redirectTo: string | null;
  /** Confirmed by `confirm_workspaces` (a person looked at the list). */
  reviewed: boolean;
  createdAt: string;
  createdBy: string | null;
  confirmedAt: string | null;
  confirmedBy: string | null;
}

/** A registry row with what its memories say. */
export interface WorkspaceSummary extends WorkspaceRecord {
  counts: Record<string, number>;
  lastWrite: string | null;
  /** `client/agent_id` of the writers, most memories first (at most 5). */
  writers: string[];
}

type Row = Record<string, unknown>;

function toRecord(row: Row): WorkspaceRecord {
  return {
    canonical: String(row.canonical),
    display: String(row.display),
    state: row.state as WorkspaceState,
    redirectTo: row.redirect_to === null ? null : String(row.redirect_to),
    reviewed: Number(row.reviewed) === 1,
    createdAt: String(row.created_at),
    createdBy: row.created_by === null ? null : String(row.created_by),
    confirmedAt: row.confirmed_at === null ? null : String(row.confirmed_at),
    confirmedBy: row.confirmed_by === null ? null : String(row.confirmed_by),
  };
}

/** One workspace's registry row. */
export function selectWorkspace(db: DatabaseSync, canonical: string): WorkspaceRecord | undefined {
  const row = db.prepare("SELECT * FROM workspaces WHERE canonical = ?").get(canonical) as
    | Row
    | undefined;
  return row ? toRecord(row) : undefined;
}

/** Every registry row, by name. */
export function selectWorkspaces(db: DatabaseSync): WorkspaceRecord[] {
  return (db.prepare("SELECT * FROM workspaces ORDER BY canonical").all() as Row[]).map(toRecord);
}

/** Every registry row with its memory counts, last write and writers. */
export function selectWorkspaceSummaries(db: DatabaseSync): WorkspaceSummary[] {
  const counts = new Map<string, Record<string, number>>();
  const last = new Map<string, string>();
  for (
    const row of db.prepare(
      `SELECT workspace_canonical AS ws, status, count(*) AS n, max(updated_at) AS last
       FROM memories WHERE status != 'deleted' GROUP BY workspace_canonical, status`,
    ).all() as Row[]
  ) {
    const ws = String(row.ws);
    const byStatus = counts.get(ws) ?? {};
    byStatus[String(row.status)] = Number(row.n);
    counts.set(ws, byStatus);
    const at = String(row.last);
    if ((last.get(ws) ?? "") < at) last.set(ws, at);
  }
  const writers = new Map<string, string[]>();
  for (
    const row of db.prepare(
      `SELECT workspace_canonical AS ws, client || '/' || agent_id AS writer, count(*) AS n
       FROM memories WHERE status != 'deleted'
       GROUP BY workspace_canonical, client, agent_id ORDER BY ws, n DESC, writer`,
    ).all() as Row[]
  ) {
    const list = writers.get(String(row.ws)) ?? [];
    if (list.length < 5) list.push(String(row.writer));
    writers.set(String(row.ws), list);
  }
  return selectWorkspaces(db).map((record) => ({
    ...record,
    counts: counts.get(record.canonical) ?? {},
    lastWrite: last.get(record.canonical) ?? null,
    writers: writers.get(record.canonical) ?? [],
  }));
}

/** Registers a workspace (no-op when the name is known). */
export function insertWorkspace(
  db: DatabaseSync,
  workspace: { canonical: string; display: string; state: WorkspaceState; at: string; by: string },
): void {
  db.prepare(
    `INSERT OR IGNORE INTO workspaces (canonical, display, state, created_at, created_by)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(workspace.canonical, workspace.display, workspace.state, workspace.at, workspace.by);
}

/** Makes a pending (or redirected) name an active workspace. */
export function confirmWorkspace(
  db: DatabaseSync,
  canonical: string,
  change: { at: string; by: string },
): void {
  db.prepare(
    `UPDATE workspaces SET state = 'active', redirect_to = NULL, confirmed_at = ?, confirmed_by = ?
     WHERE canonical = ?`,
  ).run(change.at, change.by, canonical);
}

/** Marks workspaces as reviewed by a person. */
export function markWorkspacesReviewed(
  db: DatabaseSync,
  canonicals: readonly string[],
  change: { at: string; by: string },
): void {
  const statement = db.prepare(
    `UPDATE workspaces SET reviewed = 1, confirmed_at = coalesce(confirmed_at, ?),
       confirmed_by = coalesce(confirmed_by, ?) WHERE canonical = ?`,
  );
  for (const canonical of canonicals) statement.run(change.at, change.by, canonical);
}

/**
 * Turns `from` into a redirect to `to` (registered as active when new), and
 * moves every conflict filed under `from` with it. Redirects that pointed at
 * `from` now point at `to`, so a chain never forms.
 */
export function redirectWorkspace(
  db: DatabaseSync,
  from: string,
  to: { canonical: string; display: string },
  change: { at: string; by: string },
): void {
  db.prepare(
    `INSERT OR IGNORE INTO workspaces (canonical, display, state, reviewed, created_at, created_by)
     VALUES (?, ?, 'active', 1, ?, ?)`,
  ).run(to.canonical, to.display, change.at, change.by);
  db.prepare(
    `UPDATE workspaces SET state = 'redirect', redirect_to = ?, confirmed_at = ?, confirmed_by = ?
     WHERE canonical = ?`,
  ).run(to.canonical, change.at, change.by, from);
  db.prepare("UPDATE workspaces SET redirect_to = ? WHERE redirect_to = ?").run(to.canonical, from);
  db.prepare("UPDATE conflicts SET workspace_canonical = ? WHERE workspace_canonical = ?")
    .run(to.canonical, from);
}

/** Ids of the memories (any status) in a workspace, oldest first. */
export function selectWorkspaceMemoryIds(db: DatabaseSync, canonical: string): number[] {
  return (db.prepare(
    "SELECT id FROM memories WHERE workspace_canonical = ? AND status != 'deleted' ORDER BY id",
  ).all(canonical) as Row[]).map((row) => Number(row.id));
}

/** What moving one memory did. */
export interface MoveOutcome {
  id: number;
  /** The memory was an active twin of one already in the target: it is now superseded by it. */
  supersededBy?: number;
}

/**
 * Moves memory `id` into workspace `to`: its row, its index scope token, and
 * its sequence links (a `follows` link that would cross workspaces is cut, both
 * ways). An active memory whose exact content is already active in `to` is
 * superseded by that twin instead of breaking the one-active-copy rule.
 */
export function moveMemory(
  db: DatabaseSync,
  memory: MemoryRecord,
  to: { canonical: string; display: string },
  options: { at: string; indexed: boolean },
): MoveOutcome {
  const outcome: MoveOutcome = { id: memory.id };
  let status = memory.status;
  let supersededBy = memory.supersededBy;
  if (memory.status === "active") {
    const twin = db.prepare(
      `SELECT id FROM memories WHERE workspace_canonical = ? AND content_sha = ?
       AND status = 'active' AND id != ?`,
    ).get(to.canonical, memory.contentSha, memory.id) as Row | undefined;
    if (twin) {
      status = "superseded";
      supersededBy = Number(twin.id);
      outcome.supersededBy = supersededBy;
    }
  }
  db.prepare(
    `UPDATE memories SET workspace = ?, workspace_canonical = ?, status = ?, superseded_by = ?,
       updated_at = ? WHERE id = ?`,
  ).run(to.display, to.canonical, status, supersededBy, options.at, memory.id);
  db.prepare(
    `UPDATE memories SET follows = NULL WHERE id = ? AND follows IS NOT NULL
       AND (SELECT workspace_canonical FROM memories p WHERE p.id = memories.follows) != ?`,
  ).run(memory.id, to.canonical);
  db.prepare(
    "UPDATE memories SET follows = NULL WHERE follows = ? AND workspace_canonical != ?",
  ).run(memory.id, to.canonical);
  if (!options.indexed) return outcome;
  const fields = {
    subject: memory.subject,
    tags: memory.tags,
    content: memory.content,
  };
  indexMemoryTerms(db, memory.id, { ...fields, workspaceCanonical: to.canonical }, {
    ...fields,
    workspaceCanonical: memory.workspaceCanonical,
  });
  return outcome;
}

/** Reads a memory for a move (any status but deleted). */
export function selectMovable(db: DatabaseSync, id: number): MemoryRecord | undefined {
  const memory = selectMemory(db, id);
  return memory && memory.status !== "deleted" ? memory : undefined;
}
