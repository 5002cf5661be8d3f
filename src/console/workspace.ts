/**
 * Which workspace the console shows. Under `strict` isolation it shows one workspace at a time
 * and offers nothing that reaches past it; otherwise "All workspaces" is offered too.
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { workspacesView } from "../views/workspaces.ts";
import { DEFAULT_WORKSPACE } from "../core/workspace_names.ts";
import type { ConsoleScope } from "./scope.ts";

/** The picker's value for "All workspaces"; any other value is a canonical workspace name. */
export const ALL_WORKSPACES = "*";

/** The workspace in view for a request, and what the picker offers. */
export interface WorkspaceChoice {
  workspace?: string;
  workspaces: string[];
  allowAll: boolean;
  strict: boolean;
}

/**
 * The workspaces the picker offers, largest first. The person at the keyboard owns the library,
 * so every workspace is offered; strict isolation then holds inside the one chosen.
 */
async function workspaceNames(ctx: ServiceContext): Promise<string[]> {
  const all = (await workspacesView({
    ...ctx,
    settings: { ...ctx.settings, workspaceIsolation: "none" },
  })).workspaces;
  const names = all
    .filter((w) => w.state === "active")
    .sort((a, b) =>
      (b.counts.active ?? 0) - (a.counts.active ?? 0) || a.canonical.localeCompare(b.canonical)
    )
    .map((w) => w.canonical);
  if (!names.includes(DEFAULT_WORKSPACE)) names.push(DEFAULT_WORKSPACE);
  return names;
}

/**
 * Resolves the requested workspace against the isolation mode and the library. Under `strict`
 * the default is the configured workspace, else the largest.
 */
export async function chooseWorkspace(
  ctx: ServiceContext,
  requested: string | undefined,
  configured?: string,
): Promise<WorkspaceChoice> {
  const strict = ctx.settings.workspaceIsolation === "strict";
  const workspaces = await workspaceNames(ctx);
  const known = requested !== undefined && workspaces.includes(requested);
  if (!strict) {
    return { workspace: known ? requested : undefined, workspaces, allowAll: true, strict };
  }
  const fallback = configured !== undefined && workspaces.includes(configured)
    ? configured
    : workspaces[0];
  return { workspace: known ? requested : fallback, workspaces, allowAll: false, strict };
}

/**
 * What the session keeps after the picker sends `wanted`: `*` (all, unless isolation is strict)
 * or one of the workspaces offered. Anything else is refused, and the session keeps its choice.
 */
export function pickWorkspace(choice: WorkspaceChoice, wanted: string | null): string {
  if (wanted === ALL_WORKSPACES) {
    if (choice.allowAll) return wanted;
    throw new MemaError(
      "invalid_input",
      "workspace isolation is strict: the console shows one workspace at a time",
      { field: "ws" },
    );
  }
  if (wanted !== null && choice.workspaces.includes(wanted)) return wanted;
  throw new MemaError("invalid_input", `there is no workspace "${wanted ?? ""}" to show`, {
    field: "ws",
    hint: "pick one the header's list offers",
  });
}

/**
 * The request's context: identity `console/<user>` with the workspace in view. The workspace is
 * carried on the caller, where the services read the caller's workspace from.
 */
export function scopedContext(base: ServiceContext, workspace: string | undefined): ServiceContext {
  return { ...base, caller: Object.assign({}, base.caller, { workspace }) };
}

/**
 * Refuses to show or change something outside the workspace in view under `strict` isolation
 * (the services refuse it too; this keeps the console's own links and forms honest).
 */
export function checkInScope(scope: ConsoleScope, workspaceCanonical: string, what: string): void {
  if (!scope.strict || scope.workspace === undefined) return;
  if (workspaceCanonical === scope.workspace) return;
  throw new MemaError("not_found", `${what} is not in workspace ${scope.workspace}`, {
    hint: "workspace isolation is strict: pick its workspace in the header",
  });
}
