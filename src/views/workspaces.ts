/**
 * The workspaces view: every workspace name mema knows, with its memory counts,
 * state (active, pending confirmation, redirect), last write and writers, and
 * whether unscoped recall leaves it out. Under strict isolation: the caller's own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { workspacesView } from "./workspaces.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * const view = await workspacesView(ctx);
 * assert.ok(view.workspaces.some((workspace) => workspace.canonical === "infra"));
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { WorkspaceSummary } from "../store/mod.ts";
import { isStrict, strictWorkspace } from "../workspaces/access.ts";
import { recallBlacklist } from "../workspaces/blacklist.ts";

/** One workspace in the view. */
export interface WorkspaceView extends WorkspaceSummary {
  /** Listed in `recall_blacklist.jsonl`: left out of unscoped recall. */
  blacklisted: boolean;
  /** The caller's own workspace. */
  own: boolean;
}

/** The workspaces view. */
export interface WorkspacesView {
  workspaces: WorkspaceView[];
  isolation: string;
  callerWorkspace: string | null;
  pending: string[];
  unreviewed: string[];
}

/** Every workspace the caller may see, with counts, state, last write and writers. */
export async function workspacesView(ctx: ServiceContext): Promise<WorkspacesView> {
  const own = isStrict(ctx) ? strictWorkspace(ctx) : undefined;
  const blacklist = new Set(recallBlacklist(ctx.settings.recallBlacklistPath));
  const all = await ctx.store.read(async () => await ctx.store.workspaceSummaries());
  const workspaces = all
    .filter((w) => own === undefined || w.canonical === own)
    .map((w) => ({
      ...w,
      blacklisted: blacklist.has(w.canonical),
      own: w.canonical === ctx.caller.workspace,
    }));
  return {
    workspaces,
    isolation: ctx.settings.workspaceIsolation,
    callerWorkspace: ctx.caller.workspace ?? null,
    pending: workspaces.filter((w) => w.state === "pending").map((w) => w.canonical),
    unreviewed: workspaces.filter((w) => w.state === "active" && !w.reviewed).map((w) =>
      w.canonical
    ),
  };
}
