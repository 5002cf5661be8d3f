/**
 * Which entities a name stands for, as a caller sees them: every entity of the caller's read
 * scope (docs/SPEC.md §9) with that name or alias, by the built-in alias table too.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { entitiesNamed } from "./lookup.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const },
 * };
 * assert.deepEqual(await entitiesNamed(ctx, "Postgres"), []);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { EntityRecord, Store } from "../store/mod.ts";
import { type AccessContext, readScope } from "../workspaces/access.ts";
import { aliasKeys } from "./names.ts";

/** The entities `name` stands for in the caller's scope (one workspace's and the pool's). */
export async function entitiesNamed(
  ctx: AccessContext & { store: Store },
  name: string,
  workspace?: string,
): Promise<EntityRecord[]> {
  const scope = readScope(ctx, workspace);
  const found = await ctx.store.entitiesNamed(aliasKeys(name), scope.workspaces);
  return found.filter((entity) => !(scope.excludeWorkspaces ?? []).includes(entity.workspace));
}
