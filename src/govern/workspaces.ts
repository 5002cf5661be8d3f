/**
 * Workspace governance (docs/SPEC.md §9, issue 13): rename, merge, move memories,
 * confirm a pending workspace, confirm the registry. Each needs the user's
 * approval (`authorized: true`), runs in one transaction and is audited.
 *
 * A renamed or merged name stays in the registry as a redirect, so a client
 * still configured with the old name writes into the new one instead of
 * splitting the project again. Under strict isolation a caller reaches only its
 * own workspace, so it may confirm its own pending workspace and nothing else:
 * the other actions belong to a caller without strict isolation (or the console).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { renameWorkspace } from "./workspaces.ts";
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
 *   content: "The API runs on port 8080.",
 *   subject: "api port",
 *   workspace: "alpah",
 * });
 * await renameWorkspace(ctx, { from: "alpah", to: "alpha", reason: "typo", authorized: true });
 * assert.equal((await store.getMemory(memoryId))?.workspaceCanonical, "alpha");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { indexMemoryGraph } from "../entities/graph.ts";
import { MemaError } from "../errors/mod.ts";
import { requireAuthorization } from "../core/authorization.ts";
import { checkReason } from "./lifecycle.ts";
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../platform/clock.ts";
import { normalizeTags } from "../memory/normalize.ts";
import type { MemoryRecord, RecallFilters, WorkspaceRecord } from "../store/mod.ts";
import { isStrict, outsideOwnWorkspace, strictWorkspace, visible } from "../workspaces/access.ts";
import {
  canonicalWorkspace,
  DEFAULT_WORKSPACE,
  WORKSPACE_MAX_CHARS,
} from "../core/workspace_names.ts";
import { callerLabel } from "../workspaces/registry.ts";

/** The most memories one `move_memories` call moves (a larger job: merge the workspaces). */
export const MOVE_MEMORIES_MAX = 5_000;

/** A workspace name from input: its canonical form and display spelling, or `invalid_input`. */
function checkName(name: string, field: string): { canonical: string; display: string } {
  const display = name.trim();
  const canonical = canonicalWorkspace(display);
  if (display === "" || canonical.length > WORKSPACE_MAX_CHARS) {
    throw new MemaError(
      "invalid_input",
      `${field} must be a workspace name of 1-${WORKSPACE_MAX_CHARS} characters`,
      { field },
    );
  }
  return { canonical, display: canonical === DEFAULT_WORKSPACE ? DEFAULT_WORKSPACE : display };
}

/** Refuses, under strict isolation, any action but one on the caller's own pending workspace. */
function refuseUnderStrict(ctx: ServiceContext, field: string): void {
  if (isStrict(ctx)) throw outsideOwnWorkspace(strictWorkspace(ctx), field);
}

async function existing(
  ctx: ServiceContext,
  canonical: string,
  field: string,
): Promise<WorkspaceRecord> {
  const record = await ctx.store.getWorkspace(canonical);
  if (!record || record.state === "redirect") {
    const names = (await ctx.store.listWorkspaces()).filter((w) => w.state !== "redirect");
    throw new MemaError("not_found", `workspace "${canonical}" does not exist`, {
      field,
      hint: record?.redirectTo
        ? `it was renamed or merged into "${record.redirectTo}"`
        : `workspaces: ${names.map((w) => w.canonical).join(", ")}`,
    });
  }
  return record;
}

async function audit(
  ctx: ServiceContext,
  entry: { action: string; reason: string; memoryId?: number; detail: Record<string, unknown> },
): Promise<void> {
  await ctx.store.appendAudit({
    at: nowIso(),
    action: entry.action,
    memoryId: entry.memoryId ?? null,
    agentId: ctx.caller.agentId,
    client: ctx.caller.client,
    reason: entry.reason,
    detail: entry.detail,
  });
}

/** What moving memories did. */
export interface MoveReport {
  moved: number[];
  /** Active memories whose exact content the target already held: now superseded by it. */
  supersededByTwin: { memoryId: number; twinId: number }[];
}

/** Moves memories in the current transaction (audited one row per memory). */
async function moveAll(
  ctx: ServiceContext,
  memories: readonly MemoryRecord[],
  to: { canonical: string; display: string },
  audit_: { action: string; reason: string },
): Promise<MoveReport> {
  const at = nowIso();
  const report: MoveReport = { moved: [], supersededByTwin: [] };
  for (const memory of memories) {
    if (memory.workspaceCanonical === to.canonical) continue;
    const outcome = await ctx.store.moveMemory(memory, to, at);
    // Entities belong to a workspace: the moved fact names those of its new one.
    await indexMemoryGraph(ctx.store, { memoryId: memory.id, version: memory.version });
    report.moved.push(memory.id);
    if (outcome.supersededBy !== undefined) {
      report.supersededByTwin.push({ memoryId: memory.id, twinId: outcome.supersededBy });
    }
    await audit(ctx, {
      ...audit_,
      memoryId: memory.id,
      detail: {
        from_workspace: memory.workspaceCanonical,
        to_workspace: to.canonical,
        ...(outcome.supersededBy !== undefined ? { superseded_by: outcome.supersededBy } : {}),
      },
    });
  }
  return report;
}

/** What rename and merge did. */
export interface WorkspaceMoveResult extends MoveReport {
  from: string[];
  into: string;
}

/**
 * Renames workspace `from` to `to` (a name not in use): every memory moves, the old name
 * becomes a redirect. Renaming onto an existing workspace is a merge: say so.
 */
export async function renameWorkspace(
  ctx: ServiceContext,
  input: { from: string; to: string; reason?: string; authorized?: boolean },
): Promise<WorkspaceMoveResult> {
  refuseUnderStrict(ctx, "from");
  const reason = checkReason(input.reason);
  const from = checkName(input.from, "from");
  const to = checkName(input.to, "to");
  if (from.canonical === DEFAULT_WORKSPACE) {
    throw new MemaError("invalid_input", "the default pool cannot be renamed", {
      field: "from",
      hint: "move its memories with move_memories instead",
    });
  }
  return await ctx.store.write(async () => {
    await existing(ctx, from.canonical, "from");
    const target = await ctx.store.getWorkspace(to.canonical);
    if (to.canonical === from.canonical) {
      throw new MemaError("invalid_input", "from and to name the same workspace", { field: "to" });
    }
    if (target && target.state !== "redirect") {
      throw new MemaError("invalid_input", `workspace "${to.canonical}" already exists`, {
        field: "to",
        hint: `to fold "${from.canonical}" into it, use merge_workspaces`,
      });
    }
    const ids = await ctx.store.workspaceMemoryIds(from.canonical);
    requireAuthorization(input.authorized, {
      action: "rename_workspace",
      impact:
        `Workspace "${from.canonical}" becomes "${to.canonical}": its ${ids.length} memories move, and writes that still name "${from.canonical}" land in "${to.canonical}". Reason: ${reason}.`,
    });
    if (target) {
      await ctx.store.confirmWorkspace(to.canonical, { at: nowIso(), by: callerLabel(ctx) });
    }
    return await foldInto(ctx, [from.canonical], to, { action: "rename_workspace", reason });
  });
}

/** Folds workspaces `from` into `into` (which must exist): memories move, names redirect. */
export async function mergeWorkspaces(
  ctx: ServiceContext,
  input: { from: string[]; into: string; reason?: string; authorized?: boolean },
): Promise<WorkspaceMoveResult> {
  refuseUnderStrict(ctx, "into");
  const reason = checkReason(input.reason);
  const into = checkName(input.into, "into");
  const sources = [...new Set(input.from.map((name, i) => checkName(name, `from.${i}`).canonical))];
  if (sources.includes(into.canonical)) {
    throw new MemaError("invalid_input", "a workspace cannot be merged into itself", {
      field: "from",
    });
  }
  if (sources.includes(DEFAULT_WORKSPACE)) {
    throw new MemaError("invalid_input", "the default pool cannot be merged away", {
      field: "from",
      hint: "move chosen memories out of it with move_memories",
    });
  }
  return await ctx.store.write(async () => {
    const target = await existing(ctx, into.canonical, "into");
    for (const [i, name] of sources.entries()) await existing(ctx, name, `from.${i}`);
    let count = 0;
    for (const name of sources) count += (await ctx.store.workspaceMemoryIds(name)).length;
    requireAuthorization(input.authorized, {
      action: "merge_workspaces",
      impact: `Workspaces ${
        sources.map((s) => `"${s}"`).join(", ")
      } fold into "${into.canonical}": ${count} memories move (an exact duplicate of a memory already there becomes superseded by it), and the old names redirect there. Reason: ${reason}.`,
    });
    return await foldInto(
      ctx,
      sources,
      { canonical: target.canonical, display: target.display },
      { action: "merge_workspaces", reason },
    );
  });
}

async function foldInto(
  ctx: ServiceContext,
  sources: readonly string[],
  to: { canonical: string; display: string },
  audit_: { action: string; reason: string },
): Promise<WorkspaceMoveResult> {
  const report: MoveReport = { moved: [], supersededByTwin: [] };
  for (const source of sources) {
    const memories = [
      ...(await ctx.store.getMemories(await ctx.store.workspaceMemoryIds(source))).values(),
    ];
    const part = await moveAll(ctx, memories, to, audit_);
    report.moved.push(...part.moved);
    report.supersededByTwin.push(...part.supersededByTwin);
    await ctx.store.redirectWorkspace(source, to, { at: nowIso(), by: callerLabel(ctx) });
    await audit(ctx, {
      ...audit_,
      detail: { from_workspace: source, to_workspace: to.canonical, memories: part.moved.length },
    });
  }
  return { ...report, from: [...sources], into: to.canonical };
}

/** Which memories `move_memories` takes: ids, or a filter over one workspace. */
export interface MoveSelection {
  memoryIds?: number[];
  filter?: { workspace: string; tags?: string[]; status?: "active" | "any" };
}

/** What `move_memories` did, or would do with `dryRun`. */
export interface MoveMemoriesResult extends MoveReport {
  dryRun: boolean;
  to: string;
  /** With `dryRun`: the memories that would move. */
  wouldMove?: { memoryId: number; subject: string; from: string }[];
}

/**
 * Moves memories (by id, or every memory of a workspace matching tags) into workspace `to`,
 * registered as active if new. `dryRun` lists what would move and changes nothing (no
 * authorization needed to look).
 */
export async function moveMemories(
  ctx: ServiceContext,
  input: MoveSelection & { to: string; dryRun?: boolean; reason?: string; authorized?: boolean },
): Promise<MoveMemoriesResult> {
  refuseUnderStrict(ctx, "to");
  const to = checkName(input.to, "to");
  if ((input.memoryIds === undefined) === (input.filter === undefined)) {
    throw new MemaError("invalid_input", "give either memory_ids or filter", {
      field: "memory_ids",
    });
  }
  const reason = input.dryRun ? input.reason?.trim() ?? "" : checkReason(input.reason);
  const select = async (): Promise<MemoryRecord[]> => {
    if (input.memoryIds) {
      const found = await ctx.store.getMemories(input.memoryIds);
      return input.memoryIds.map((id, index) => {
        const memory = visible(ctx, found.get(id));
        if (!memory || memory.status === "deleted") {
          throw new MemaError("not_found", `memory ${id} does not exist`, {
            field: `memory_ids.${index}`,
          });
        }
        return memory;
      });
    }
    const filter = input.filter!;
    const source = checkName(filter.workspace, "filter.workspace").canonical;
    const filters: RecallFilters = {
      statuses: filter.status === "any"
        ? ["active", "pending", "superseded", "retired"]
        : ["active"],
      workspaces: [source],
    };
    if (filter.tags?.length) filters.tagsAll = normalizeTags(filter.tags, "filter.tags");
    const ids = await ctx.store.browse(filters, { limit: MOVE_MEMORIES_MAX + 1, offset: 0 });
    if (ids.length > MOVE_MEMORIES_MAX) {
      throw new MemaError(
        "resource_limit_exceeded",
        `more than ${MOVE_MEMORIES_MAX} memories match; narrow the filter or merge the workspaces`,
        { field: "filter" },
      );
    }
    const records = await ctx.store.getMemories(ids);
    return ids.flatMap((id) => records.get(id) ?? []);
  };
  if (input.dryRun) {
    const memories = (await ctx.store.read(select)).filter((m) =>
      m.workspaceCanonical !== to.canonical
    );
    return {
      dryRun: true,
      to: to.canonical,
      moved: [],
      supersededByTwin: [],
      wouldMove: memories.map((m) => ({
        memoryId: m.id,
        subject: m.subject,
        from: m.workspaceCanonical,
      })),
    };
  }
  return await ctx.store.write(async () => {
    const memories = await select();
    const target = await ctx.store.getWorkspace(to.canonical);
    if (target?.state === "redirect") {
      throw new MemaError("invalid_input", `workspace "${to.canonical}" was renamed or merged`, {
        field: "to",
        hint: `move into "${target.redirectTo}" instead`,
      });
    }
    requireAuthorization(input.authorized, {
      action: "move_memories",
      memoryIds: memories.map((m) => m.id),
      impact: `${memories.length} memories move into workspace "${to.canonical}"${
        target ? "" : " (a new workspace)"
      }. Reason: ${reason}.`,
    });
    if (!target) {
      await ctx.store.registerWorkspace({
        ...to,
        state: "active",
        at: nowIso(),
        by: callerLabel(ctx),
      });
    } else if (target.state === "pending") {
      await ctx.store.confirmWorkspace(to.canonical, { at: nowIso(), by: callerLabel(ctx) });
    }
    const report = await moveAll(ctx, memories, to, { action: "move_memories", reason });
    return { ...report, dryRun: false, to: to.canonical };
  });
}

/** Makes a pending workspace (created by a write under strict isolation) active. */
export async function confirmPendingWorkspace(
  ctx: ServiceContext,
  input: { workspace: string; reason?: string; authorized?: boolean },
): Promise<{ workspace: string; state: "active" }> {
  const name = checkName(input.workspace, "workspace");
  if (isStrict(ctx) && name.canonical !== strictWorkspace(ctx)) {
    throw outsideOwnWorkspace(strictWorkspace(ctx), "workspace");
  }
  const reason = input.reason?.trim() || "confirmed a new workspace";
  return await ctx.store.write(async () => {
    const record = await ctx.store.getWorkspace(name.canonical);
    if (!record || record.state !== "pending") {
      throw new MemaError(
        record ? "invalid_input" : "not_found",
        record
          ? `workspace "${name.canonical}" is ${record.state}, not pending`
          : `workspace "${name.canonical}" is not pending (no write asked for it)`,
        { field: "workspace" },
      );
    }
    requireAuthorization(input.authorized, {
      action: "confirm_pending_workspace",
      impact:
        `Workspace "${name.canonical}" becomes a real workspace; writes to it are stored from now on. Reason: ${reason}.`,
    });
    const at = nowIso();
    await ctx.store.confirmWorkspace(name.canonical, { at, by: callerLabel(ctx) });
    await ctx.store.markWorkspacesReviewed([name.canonical], { at, by: callerLabel(ctx) });
    await audit(ctx, {
      action: "confirm_pending_workspace",
      reason,
      detail: { workspace: name.canonical },
    });
    return { workspace: name.canonical, state: "active" as const };
  });
}

/**
 * Marks the listed workspaces (or every active one) as reviewed: a person looked at the list
 * and found no duplicates. Under strict isolation only the caller's own.
 */
export async function confirmWorkspaces(
  ctx: ServiceContext,
  input: { workspaces?: string[]; reason?: string; authorized?: boolean },
): Promise<{ confirmed: string[] }> {
  const reason = input.reason?.trim() || "reviewed the workspace list";
  const named = input.workspaces?.map((name, i) => checkName(name, `workspaces.${i}`).canonical);
  if (isStrict(ctx)) {
    const own = strictWorkspace(ctx);
    if (named?.some((name) => name !== own)) throw outsideOwnWorkspace(own, "workspaces");
  }
  return await ctx.store.write(async () => {
    const active = (await ctx.store.listWorkspaces()).filter((w) => w.state === "active");
    const scope = isStrict(ctx) ? [strictWorkspace(ctx)] : undefined;
    const list = named ?? scope ?? active.map((w) => w.canonical);
    for (const [i, name] of list.entries()) await existing(ctx, name, `workspaces.${i}`);
    requireAuthorization(input.authorized, {
      action: "confirm_workspaces",
      impact: `Workspaces ${
        list.map((w) => `"${w}"`).join(", ")
      } are marked as reviewed (no duplicates among them). Reason: ${reason}.`,
    });
    await ctx.store.markWorkspacesReviewed(list, { at: nowIso(), by: callerLabel(ctx) });
    await audit(ctx, { action: "confirm_workspaces", reason, detail: { workspaces: list } });
    return { confirmed: list };
  });
}
