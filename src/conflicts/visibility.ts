/**
 * Which conflicts a caller may see: under strict isolation only those whose
 * members all lie in the caller's own workspace (a conflict that reaches into
 * another workspace, or the `default` pool, is not the caller's to judge).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictVisible } from "./visibility.ts";
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
 * // Without strict isolation every caller sees every conflict group.
 * const group = { workspaceCanonical: "atlas", members: [] };
 * assert.equal(await conflictVisible(ctx, group), true);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import type { ConflictRecord } from "../store/mod.ts";
import { isStrict } from "../workspaces/access.ts";

/** True when the caller may see (and act on) this conflict. */
export async function conflictVisible(
  ctx: ServiceContext,
  group: Pick<ConflictRecord, "workspaceCanonical" | "members">,
): Promise<boolean> {
  if (!isStrict(ctx)) return true;
  const own = ctx.caller.workspace;
  if (group.workspaceCanonical !== own) return false;
  const members = await ctx.store.getMemories(group.members.map((member) => member.memory_id));
  return [...members.values()].every((memory) => memory.workspaceCanonical === own);
}

/** The workspace a conflict listing is limited to: the caller's, under strict isolation. */
export function conflictListScope(ctx: ServiceContext): string | undefined {
  return isStrict(ctx) ? ctx.caller.workspace : undefined;
}

/** The error for a conflict that does not exist or that the caller may not see. */
export function conflictNotFound(conflictId: number): MemaError {
  return new MemaError("not_found", `conflict ${conflictId} does not exist`, {
    field: "conflict_id",
  });
}
