/**
 * What a caller may see and change, by workspace (docs/SPEC.md §9, issue 13).
 *
 * - `none`: no access control. An explicit workspace scopes a query to it and the `default`
 *   pool; an unscoped query spans the library minus the recall blacklist.
 * - `weak`: as `none`, plus a fixed ranking nudge toward the caller's own workspace.
 * - `strict`: the caller sees and changes only its own workspace. The `default` pool is not
 *   mixed in; memories elsewhere are `not_found`; writes elsewhere are `invalid_input`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canSeeWorkspace } from "./access.ts";
 *
 * const caller = { client: "cli", agentId: "a", workspace: "alpha" };
 * const ctx = { caller, settings: { workspaceIsolation: "strict" as const } };
 * assert.equal(canSeeWorkspace(ctx, "alpha"), true);
 * assert.equal(canSeeWorkspace(ctx, "default"), false);
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { CallerIdentity, ServiceSettings } from "../core/context.ts";
import { canonicalWorkspace, DEFAULT_WORKSPACE } from "../core/workspace_names.ts";

/** The part of a service context access decisions read. */
export interface AccessContext {
  caller: CallerIdentity;
  settings: Pick<ServiceSettings, "workspaceIsolation">;
}

/** True under strict isolation. */
export function isStrict(ctx: AccessContext): boolean {
  return ctx.settings.workspaceIsolation === "strict";
}

/**
 * The caller's own workspace. Under strict isolation there is always one (the server refuses
 * to start, and HTTP refuses the request, without it); this throws if that invariant broke.
 */
export function strictWorkspace(ctx: AccessContext): string {
  const own = ctx.caller.workspace;
  if (own === undefined) {
    throw new MemaError(
      "invalid_input",
      "strict workspace isolation needs the caller's workspace",
      {
        field: "workspace",
        hint:
          "set workspace in the config, MEMA_WORKSPACE or --workspace (stdio), or send X-Mema-Workspace (HTTP)",
      },
    );
  }
  return own;
}

/** True when the caller may see memories of this (canonical) workspace. */
export function canSeeWorkspace(ctx: AccessContext, workspaceCanonical: string): boolean {
  if (!isStrict(ctx)) return true;
  return workspaceCanonical === ctx.caller.workspace;
}

/** The error for a memory the caller may not see: the same words as a missing one. */
export function memoryNotFound(id: number, field = "memory_id"): MemaError {
  return new MemaError("not_found", `memory ${id} does not exist`, { field });
}

/**
 * The memory when the caller may see it; `undefined` for a missing one and for
 * one in a workspace strict isolation hides, so both read as "does not exist".
 */
export function visible<T extends { workspaceCanonical: string }>(
  ctx: AccessContext,
  memory: T | undefined,
): T | undefined {
  return memory && canSeeWorkspace(ctx, memory.workspaceCanonical) ? memory : undefined;
}

/** The workspaces a read is limited to, and those it leaves out. */
export interface ReadScope {
  /** Canonical names the read is limited to; undefined spans the library. */
  workspaces?: string[];
  /** Canonical names left out of an unscoped read (the recall blacklist). */
  excludeWorkspaces?: string[];
}

/**
 * The scope of a read that names `requested` (or nothing). Under strict isolation the scope
 * is the caller's workspace alone, and naming another one is `invalid_input` (the caller
 * cannot ask about a workspace it may not see). Otherwise an explicit workspace scopes the
 * read to it plus the `default` pool (unless `workspaceOnly`), and an unscoped read spans
 * the library without the `blacklist`.
 */
export function readScope(
  ctx: AccessContext,
  requested: string | undefined,
  options: { workspaceOnly?: boolean; blacklist?: readonly string[] } = {},
): ReadScope {
  if (isStrict(ctx)) {
    const own = strictWorkspace(ctx);
    if (requested !== undefined && canonicalWorkspace(requested) !== own) {
      throw outsideOwnWorkspace(own, "workspace");
    }
    return { workspaces: [own] };
  }
  if (requested !== undefined) {
    const canonical = canonicalWorkspace(requested);
    return {
      workspaces: canonical === DEFAULT_WORKSPACE || options.workspaceOnly
        ? [canonical]
        : [canonical, DEFAULT_WORKSPACE],
    };
  }
  const blacklist = options.blacklist ?? [];
  return blacklist.length > 0 ? { excludeWorkspaces: [...blacklist] } : {};
}

/** The `invalid_input` for touching a workspace other than the caller's under strict isolation. */
export function outsideOwnWorkspace(own: string, field: string): MemaError {
  return new MemaError(
    "invalid_input",
    `strict workspace isolation: this caller works only in workspace "${own}"`,
    {
      field,
      hint:
        `leave ${field} out or pass "${own}"; another workspace needs a caller configured for it`,
    },
  );
}

/**
 * The workspace a write lands in: the one named, else the caller's own. Under strict isolation
 * a different name is `invalid_input`. Without either, the write names none: `invalid_input`.
 */
export function writeWorkspace(
  ctx: AccessContext,
  requested: string | undefined,
  field = "workspace",
): string {
  if (isStrict(ctx)) {
    const own = strictWorkspace(ctx);
    if (requested !== undefined && canonicalWorkspace(requested) !== own) {
      throw outsideOwnWorkspace(own, field);
    }
    return requested ?? own;
  }
  if (requested !== undefined) return requested;
  if (ctx.caller.workspace !== undefined) return ctx.caller.workspace;
  throw new MemaError("invalid_input", `${field} is required`, {
    field,
    hint:
      'name the project, or "default" for facts that hold everywhere; list existing ones with memory_review {"view": "workspaces"}',
  });
}
