/**
 * The workspace registry as the write path sees it: a write to a name mema has
 * never seen registers it (active, or pending under strict isolation), a write
 * to a renamed or merged name lands where it went, and a new name close to an
 * existing one carries a `did_you_mean` hint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nearWorkspaceName } from "./registry.ts";
 *
 * assert.equal(nearWorkspaceName("alpah", ["alpha", "billing"]), "alpha");
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../platform/clock.ts";
import { editDistance } from "../text/edit_distance.ts";
import { isStrict } from "./access.ts";
import { NEAR_NAME_MAX_DISTANCE } from "./constants.ts";

/**
 * Thrown by the write path under strict isolation when a write would create a
 * workspace; nothing was stored and the name is registered as pending.
 */
export class NewWorkspacePending extends Error {
  readonly workspace: string;
  readonly display: string;

  constructor(workspace: string, display: string) {
    super(`workspace "${workspace}" is new and waits for confirmation`);
    this.name = "NewWorkspacePending";
    this.workspace = workspace;
    this.display = display;
  }
}

/** Where a write lands and what the registry said about it. */
export interface WorkspaceArrival {
  canonical: string;
  display: string;
  /** The write registered this workspace. */
  isNew: boolean;
  /** An existing workspace the new name is a near miss of. */
  didYouMean?: string;
  /** The renamed or merged name the write asked for. */
  redirectedFrom?: string;
}

/** Who a registry row names as its creator or confirmer: `client/agent_id`. */
export function callerLabel(ctx: Pick<ServiceContext, "caller">): string {
  return `${ctx.caller.client}/${ctx.caller.agentId}`;
}

/** The existing name a new one is most likely a misspelling of, if any. */
export function nearWorkspaceName(name: string, existing: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of existing) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate);
    const shorter = Math.min(name.length, candidate.length);
    if (distance <= NEAR_NAME_MAX_DISTANCE && distance < shorter / 2 && distance < bestDistance) {
      [best, bestDistance] = [candidate, distance];
    }
  }
  return best;
}

/**
 * Admits a write to workspace `canonical` (spelled `display`). Runs inside the
 * write transaction. Under strict isolation a name mema has never seen, or one
 * still pending, throws {@linkcode NewWorkspacePending}; elsewhere a new name is
 * registered as active.
 */
export async function admitWorkspace(
  ctx: ServiceContext,
  canonical: string,
  display: string,
): Promise<WorkspaceArrival> {
  let known = await ctx.store.getWorkspace(canonical);
  if (known === undefined) {
    // A concurrent write unit may be registering it right now: wait for that one, look again.
    if (await ctx.store.claimKeys([JSON.stringify(["workspace", canonical])])) {
      known = await ctx.store.getWorkspace(canonical);
    }
  }
  if (known?.state === "redirect" && known.redirectTo !== null) {
    const target = await ctx.store.getWorkspace(known.redirectTo);
    return {
      canonical: known.redirectTo,
      display: target?.display ?? known.redirectTo,
      isNew: false,
      redirectedFrom: canonical,
    };
  }
  if (known && (known.state === "active" || !isStrict(ctx))) {
    return { canonical, display, isNew: false };
  }
  if (isStrict(ctx)) throw new NewWorkspacePending(canonical, display);
  const didYouMean = nearWorkspaceName(
    canonical,
    (await ctx.store.listWorkspaces()).filter((w) => w.state === "active").map((w) => w.canonical),
  );
  await ctx.store.registerWorkspace({
    canonical,
    display,
    state: "active",
    at: nowIso(),
    by: callerLabel(ctx),
  });
  return { canonical, display, isNew: true, didYouMean };
}

/** Registers `pending` as a workspace waiting for confirmation (strict isolation). */
export async function registerPendingWorkspace(
  ctx: ServiceContext,
  pending: NewWorkspacePending,
): Promise<void> {
  await ctx.store.write(async () =>
    await ctx.store.registerWorkspace({
      canonical: pending.workspace,
      display: pending.display,
      state: "pending",
      at: nowIso(),
      by: callerLabel(ctx),
    })
  );
}
