/**
 * The workspace registry on SQLite: {@linkcode WorkspacesRepository}.
 *
 * @module
 */
import * as workspaces from "./workspaces_sql.ts";
import type { WorkspacesRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The workspaces room over `core`'s connection. */
export function sqliteWorkspaces(core: SqliteCore): Sync<WorkspacesRepository> {
  const db = core.connection.db;
  return {
    getWorkspace: (canonical) => workspaces.selectWorkspace(db, canonical),
    listWorkspaces: () => workspaces.selectWorkspaces(db),
    workspaceSummaries: () => workspaces.selectWorkspaceSummaries(db),
    registerWorkspace: (workspace) => workspaces.insertWorkspace(db, workspace),
    confirmWorkspace: (canonical, change) => workspaces.confirmWorkspace(db, canonical, change),
    markWorkspacesReviewed: (canonicals, change) =>
      workspaces.markWorkspacesReviewed(db, canonicals, change),
    redirectWorkspace: (from, to, change) => workspaces.redirectWorkspace(db, from, to, change),
    workspaceMemoryIds: (canonical) => workspaces.selectWorkspaceMemoryIds(db, canonical),
    moveMemory: (memory, to, at) =>
      workspaces.moveMemory(db, memory, to, { at, indexed: core.capabilities.fts }),
  };
}
