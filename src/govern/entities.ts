/**
 * Governance of the entity graph (issue 35): fold two entities that are one thing (`merge`:
 * "Payments" and "Payments API") and take a name back out of an entity it was wrongly folded
 * into (`split`: "PG" meant "Procter & Gamble" here). Both are audited with the caller's reason
 * and, like every `memory_govern` action, need `authorized: true`. Neither touches a memory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { mergeEntities } from "./entities.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * await rememberMemory(ctx, { content: "Deploys of Payments run on Fridays.", subject: "deploys", workspace: "w" });
 * await rememberMemory(ctx, { content: "The Payments API is slow.", subject: "api", workspace: "w" });
 * const merged = await mergeEntities(ctx, {
 *   from: "Payments",
 *   into: "Payments API",
 *   reason: "one service",
 *   authorized: true,
 * });
 * assert.deepEqual(merged.aliases.sort(), ["Payments", "Payments API"]);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { requireAuthorization } from "../core/authorization.ts";
import { MemaError } from "../errors/mod.ts";
import { nowIso } from "../platform/clock.ts";
import type { EntityRecord } from "../store/mod.ts";
import { entitiesNamed } from "../entities/lookup.ts";
import { nameKey } from "../entities/names.ts";
import { relationType } from "../entities/named.ts";
import { checkReason } from "./lifecycle.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";

/** The one entity `name` stands for; several (one per workspace) need `workspace`. */
async function oneEntity(
  ctx: ServiceContext,
  name: string,
  options: { field: string; workspace?: string },
): Promise<EntityRecord> {
  let found = await entitiesNamed(ctx, name, options.workspace);
  // A named workspace means its own entities, not the default pool's that its reads include.
  if (options.workspace !== undefined) {
    const own = canonicalWorkspace(options.workspace);
    found = found.filter((entity) => entity.workspace === own);
  }
  if (found.length === 0) {
    throw new MemaError("not_found", `no entity is named "${name}"`, {
      field: options.field,
      hint: 'memory_review view "entities" lists them',
    });
  }
  if (found.length > 1) {
    throw new MemaError(
      "invalid_input",
      `"${name}" names ${found.length} entities (workspaces ${
        found.map((e) => e.workspace).join(", ")
      })`,
      { field: options.field, hint: "pass workspace to say which" },
    );
  }
  return found[0];
}

/** What a merge did. */
export interface EntityMergeResult {
  entity: string;
  kind: string;
  workspace: string;
  aliases: string[];
}

/** Folds entity `from` into `into` (same workspace): names, facts and relations move. */
export async function mergeEntities(
  ctx: ServiceContext,
  input: { from: string; into: string; workspace?: string; reason?: string; authorized?: boolean },
): Promise<EntityMergeResult> {
  const reason = checkReason(input.reason);
  return await ctx.store.write(async () => {
    const from = await oneEntity(ctx, input.from, { field: "from", workspace: input.workspace });
    const into = await oneEntity(ctx, input.into, { field: "into", workspace: input.workspace });
    if (from.id === into.id) {
      throw new MemaError("invalid_input", `"${input.from}" and "${input.into}" are one entity`, {
        field: "from",
      });
    }
    if (from.workspace !== into.workspace) {
      throw new MemaError(
        "invalid_input",
        `"${from.name}" is in workspace ${from.workspace}, "${into.name}" in ${into.workspace}`,
        { field: "into", hint: "entities merge within one workspace" },
      );
    }
    requireAuthorization(input.authorized, {
      action: "merge_entities",
      impact:
        `Entity "${from.name}" folds into "${into.name}" (workspace ${into.workspace}): its names, facts and relations become the latter's. Reason: ${reason}.`,
    });
    await ctx.store.mergeEntities(from.id, into.id);
    const after = (await ctx.store.getEntities([into.id])).get(into.id)!;
    const aliases = (await ctx.store.entityAliases([into.id])).get(into.id) ?? [];
    await ctx.store.appendAudit({
      at: nowIso(),
      action: "merge_entities",
      memoryId: null,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason,
      detail: { from: from.name, from_id: from.id, into: into.name, into_id: into.id },
    });
    return { entity: after.name, kind: after.kind, workspace: after.workspace, aliases };
  });
}

/** What a split did. */
export interface EntitySplitResult {
  /** The entity left, without the name (absent when nothing else named it). */
  entity?: { name: string; aliases: string[] };
  split: { name: string; kind: string; aliases: string[] };
}

/**
 * Takes the name `alias` (with the facts that use it) out of the entity it stands for into a
 * new entity of its own, of `kind` (default the entity's).
 */
export async function splitEntity(
  ctx: ServiceContext,
  input: {
    entity: string;
    alias: string;
    kind?: string;
    workspace?: string;
    reason?: string;
    authorized?: boolean;
  },
): Promise<EntitySplitResult> {
  const reason = checkReason(input.reason);
  return await ctx.store.write(async () => {
    const entity = await oneEntity(ctx, input.entity, {
      field: "entity",
      workspace: input.workspace,
    });
    const aliases = (await ctx.store.entityAliases([entity.id])).get(entity.id) ?? [];
    const key = nameKey(input.alias);
    const words = aliases.find((alias) => nameKey(alias) === key);
    if (words === undefined) {
      throw new MemaError(
        "invalid_input",
        `"${input.alias}" is not a name of "${entity.name}" (its names: ${aliases.join(", ")})`,
        { field: "alias" },
      );
    }
    if (aliases.every((alias) => nameKey(alias) === key)) {
      throw new MemaError(
        "invalid_input",
        `"${input.alias}" is the only name of "${entity.name}"`,
        {
          field: "alias",
          hint: "a split takes one of several names out",
        },
      );
    }
    const kind = input.kind === undefined ? entity.kind : relationType(input.kind);
    requireAuthorization(input.authorized, {
      action: "split_entity",
      impact:
        `The name "${words}" leaves entity "${entity.name}" with the facts that use it, as an entity of its own (${kind}). Reason: ${reason}.`,
    });
    const id = await ctx.store.splitEntity(entity.id, { key, name: words, kind, at: nowIso() });
    const after = await ctx.store.getEntities([entity.id, id]);
    const names = await ctx.store.entityAliases([entity.id, id]);
    await ctx.store.appendAudit({
      at: nowIso(),
      action: "split_entity",
      memoryId: null,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason,
      detail: { entity: entity.name, entity_id: entity.id, alias: words, new_entity_id: id },
    });
    const left = after.get(entity.id);
    const split = after.get(id)!;
    return {
      ...(left ? { entity: { name: left.name, aliases: names.get(entity.id) ?? [] } } : {}),
      split: { name: split.name, kind: split.kind, aliases: names.get(id) ?? [] },
    };
  });
}
