/**
 * The entity views of `memory_review` (issue 35): `entities`, a page of the entities a caller
 * may see with their counts and kinds, and `entity`, one entity with its aliases, facts and
 * relations walked breadth-first to `depth` (≤ 3) within a token budget the answer reports.
 * The reference server-memory's `read_graph` answers with the whole graph (50–80k tokens at
 * 150 entities, as its users report); this walk stops where the budget does and says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { entityView } from "./entities.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * await rememberMemory(ctx, {
 *   content: "The Billing API depends on Postgres.",
 *   subject: "billing",
 *   workspace: "infra",
 * });
 * const view = await entityView(ctx, { name: "postgres", depth: 1 });
 * assert.equal(view.entities[0].name, "Postgres");
 * assert.equal(view.relations[0].from, "Billing API");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import type { EntityRecord, RelationRecord } from "../store/mod.ts";
import { estimateTokens } from "../recall/size.ts";
import { canSeeWorkspace, readScope } from "../workspaces/access.ts";
import { entitiesNamed } from "../entities/lookup.ts";
import {
  ENTITY_PAGE_DEFAULT,
  ENTITY_PAGE_FACTS,
  ENTITY_VIEW_BUDGET_MAX,
  ENTITY_VIEW_BUDGET_TOKENS,
  ENTITY_VIEW_DEPTH_MAX,
  ENTITY_VIEW_FACT_CHARS,
  ENTITY_VIEW_FACTS_PER_ENTITY,
  ENTITY_VIEW_RELATIONS_PER_STEP,
} from "../entities/constants.ts";

/** One entity of a page. */
export interface EntityListItem {
  id: number;
  name: string;
  kind: string;
  workspace: string;
  memories: number;
  relations: number;
}

/** A page of entities. */
export interface EntitiesView {
  total: number;
  kinds: Record<string, number>;
  entities: EntityListItem[];
  nextOffset: number | null;
}

/** The entities the caller may see, newest first. */
export async function entitiesView(
  ctx: ServiceContext,
  input: { workspace?: string; kind?: string; offset?: number; limit?: number },
): Promise<EntitiesView> {
  const scope = readScope(ctx, input.workspace);
  const offset = input.offset ?? 0;
  const page = await ctx.store.read(async (tx) =>
    await tx.entityPage({
      workspaces: scope.workspaces,
      excludeWorkspaces: scope.excludeWorkspaces,
      kind: input.kind,
      offset,
      limit: input.limit ?? ENTITY_PAGE_DEFAULT,
    })
  );
  return {
    total: page.total,
    kinds: page.kinds,
    entities: page.rows.map((row) => ({
      id: row.id,
      name: row.name,
      kind: row.kind,
      workspace: row.workspace,
      memories: row.mentions,
      relations: row.relations,
    })),
    nextOffset: offset + page.rows.length < page.total ? offset + page.rows.length : null,
  };
}

/** One entity reached by the walk. */
export interface EntityNode {
  id: number;
  name: string;
  kind: string;
  workspace: string;
  aliases: string[];
  /** Steps from the entity asked for (0: itself). */
  depth: number;
  facts: { memory_id: number; subject: string; text: string }[];
  /** Facts about it left out (the per-entity cap or the budget). */
  facts_more: number;
}

/** A relation of the walk, by name. */
export interface EntityRelationItem {
  from: string;
  type: string;
  to: string;
  memory_id: number;
  origin: "stated" | "read";
}

/** The `entity` view. */
export interface EntityView {
  entities: EntityNode[];
  relations: EntityRelationItem[];
  /** Entities named in the same facts, with how many: a weak signal, kept apart from relations. */
  coMentioned: { name: string; memories: number }[];
  budgetTokens: number;
  usedTokens: number;
  /** The walk stopped at the budget before reaching `depth`. */
  truncated: boolean;
  depth: number;
}

/** Checks depth and budget; bad input changes nothing and says which field. */
function checkWalk(input: { depth?: number; budgetTokens?: number }): [number, number] {
  const depth = input.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 0 || depth > ENTITY_VIEW_DEPTH_MAX) {
    throw new MemaError("invalid_input", `depth must be 0 to ${ENTITY_VIEW_DEPTH_MAX}`, {
      field: "depth",
    });
  }
  const budget = input.budgetTokens ?? ENTITY_VIEW_BUDGET_TOKENS;
  if (!Number.isInteger(budget) || budget < 100 || budget > ENTITY_VIEW_BUDGET_MAX) {
    throw new MemaError("invalid_input", `budget_tokens must be 100 to ${ENTITY_VIEW_BUDGET_MAX}`, {
      field: "budget_tokens",
    });
  }
  return [depth, budget];
}

/**
 * One entity (every entity of that name or alias in scope) and what the library says about
 * it, walked breadth-first through its relations to `depth`, within `budgetTokens`.
 */
export async function entityView(
  ctx: ServiceContext,
  input: { name: string; depth?: number; budgetTokens?: number; workspace?: string },
): Promise<EntityView> {
  const [depth, budget] = checkWalk(input);
  return await ctx.store.read(async (tx) => {
    const start = await entitiesNamed(ctx, input.name, input.workspace);
    if (start.length === 0) {
      throw new MemaError("not_found", `no entity is named "${input.name}"`, {
        field: "name",
        hint: 'memory_review view "entities" lists them',
      });
    }
    let used = 0;
    let truncated = false;
    const spend = (value: unknown): boolean => {
      const cost = estimateTokens(JSON.stringify(value));
      if (used + cost > budget) {
        truncated = true;
        return false;
      }
      used += cost;
      return true;
    };
    const nodes: EntityNode[] = [];
    const relations: EntityRelationItem[] = [];
    const seenRelations = new Set<number>();
    const known = new Map<number, EntityRecord>(start.map((e) => [e.id, e]));
    let level = start.map((e) => e.id);
    const visited = new Set(level);
    for (let step = 0; step <= depth && level.length > 0 && !truncated; step++) {
      const aliases = await tx.entityAliases(level);
      const next: number[] = [];
      const stepRelations = step < depth || depth === 0
        ? await tx.relationsOf(level, ENTITY_VIEW_RELATIONS_PER_STEP)
        : [];
      const ends = await tx.getEntities([
        ...new Set(stepRelations.flatMap((r) => [r.fromId, r.toId])),
      ].filter((id) => !known.has(id)));
      for (const [id, entity] of ends) known.set(id, entity);
      for (const id of level) {
        const entity = known.get(id)!;
        const memoryIds = await tx.entityMemoryIds([id], ENTITY_VIEW_FACTS_PER_ENTITY + 1);
        const memories = await tx.getMemories(memoryIds.slice(0, ENTITY_VIEW_FACTS_PER_ENTITY));
        const node: EntityNode = {
          id,
          name: entity.name,
          kind: entity.kind,
          workspace: entity.workspace,
          aliases: (aliases.get(id) ?? []).filter((alias) => alias !== entity.name),
          depth: step,
          facts: [],
          facts_more: Math.max(0, memoryIds.length - ENTITY_VIEW_FACTS_PER_ENTITY),
        };
        if (!spend({ ...node, facts: undefined })) break;
        nodes.push(node);
        for (const memoryId of memoryIds.slice(0, ENTITY_VIEW_FACTS_PER_ENTITY)) {
          const memory = memories.get(memoryId);
          if (memory === undefined) continue;
          const fact = {
            memory_id: memory.id,
            subject: memory.subject,
            text: memory.content.length > ENTITY_VIEW_FACT_CHARS
              ? `${memory.content.slice(0, ENTITY_VIEW_FACT_CHARS)}…`
              : memory.content,
          };
          if (truncated || !spend(fact)) {
            node.facts_more++;
            continue;
          }
          node.facts.push(fact);
        }
        if (truncated) break;
      }
      for (const relation of stepRelations) {
        if (truncated || seenRelations.has(relation.id)) continue;
        const item = relationItem(relation, known);
        if (item === undefined || !spend(item)) continue;
        seenRelations.add(relation.id);
        relations.push(item);
        for (const end of [relation.fromId, relation.toId]) {
          if (!visited.has(end)) {
            visited.add(end);
            next.push(end);
          }
        }
      }
      level = step < depth ? next : [];
    }
    const coMentioned = truncated ? [] : await coMentions(ctx, start.map((e) => e.id), visited);
    for (const item of coMentioned) if (!spend(item)) coMentioned.length = 0;
    return {
      entities: nodes,
      relations,
      coMentioned,
      budgetTokens: budget,
      usedTokens: used,
      truncated,
      depth,
    };
  });
}

function relationItem(
  relation: RelationRecord,
  known: Map<number, EntityRecord>,
): EntityRelationItem | undefined {
  const [from, to] = [known.get(relation.fromId), known.get(relation.toId)];
  if (from === undefined || to === undefined) return undefined;
  return {
    from: from.name,
    type: relation.type,
    to: to.name,
    memory_id: relation.memoryId,
    origin: relation.origin,
  };
}

/** Entities named in the same facts as `ids` (not already walked), most shared first. */
async function coMentions(
  ctx: ServiceContext,
  ids: readonly number[],
  walked: ReadonlySet<number>,
): Promise<{ name: string; memories: number }[]> {
  const memoryIds = await ctx.store.entityMemoryIds(ids, ENTITY_VIEW_FACTS_PER_ENTITY * 5);
  const counts = new Map<number, number>();
  for (const mentions of (await ctx.store.memoryMentions(memoryIds)).values()) {
    for (const id of new Set(mentions.map((m) => m.entityId))) {
      if (!walked.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 10);
  const entities = await ctx.store.getEntities(top.map(([id]) => id));
  return top.flatMap(([id, memories]) => {
    const entity = entities.get(id);
    return entity === undefined ? [] : [{ name: entity.name, memories }];
  });
}

/** The console's entity page: one entity, its facts and its one-hop graph. */
export interface EntityPageView {
  entity: EntityRecord;
  aliases: string[];
  facts: { memoryId: number; subject: string; text: string }[];
  factsTotal: number;
  relations: {
    from: { id: number; name: string };
    type: string;
    to: { id: number; name: string };
    memoryId: number;
    origin: "stated" | "read";
  }[];
}

/** One entity by id, as the caller may see it (a hidden workspace reads as missing). */
export async function entityPageView(
  ctx: ServiceContext,
  entityId: number,
): Promise<EntityPageView> {
  return await ctx.store.read(async (tx) => {
    const entity = (await tx.getEntities([entityId])).get(entityId);
    if (entity === undefined || !canSeeWorkspace(ctx, entity.workspace)) {
      throw new MemaError("not_found", `entity ${entityId} does not exist`, { field: "entity" });
    }
    const aliases = (await tx.entityAliases([entityId])).get(entityId) ?? [];
    const ids = await tx.entityMemoryIds([entityId], ENTITY_PAGE_FACTS + 1);
    const memories = await tx.getMemories(ids.slice(0, ENTITY_PAGE_FACTS));
    const relations = await tx.relationsOf([entityId], ENTITY_VIEW_RELATIONS_PER_STEP);
    const ends = await tx.getEntities([...new Set(relations.flatMap((r) => [r.fromId, r.toId]))]);
    const named = (id: number) => ({ id, name: ends.get(id)?.name ?? "?" });
    return {
      entity,
      aliases: aliases.filter((alias) => alias !== entity.name),
      facts: [...memories.values()].sort((a, b) => b.id - a.id).map((memory) => ({
        memoryId: memory.id,
        subject: memory.subject,
        text: memory.content.length > ENTITY_VIEW_FACT_CHARS
          ? `${memory.content.slice(0, ENTITY_VIEW_FACT_CHARS)}…`
          : memory.content,
      })),
      factsTotal: ids.length,
      relations: relations.map((relation) => ({
        from: named(relation.fromId),
        type: relation.type,
        to: named(relation.toId),
        memoryId: relation.memoryId,
        origin: relation.origin,
      })),
    };
  });
}

/** The entities a memory names, for links from its page. */
export async function memoryEntities(
  ctx: ServiceContext,
  memoryId: number,
): Promise<{ id: number; name: string; kind: string }[]> {
  const mentions = (await ctx.store.memoryMentions([memoryId])).get(memoryId) ?? [];
  const entities = await ctx.store.getEntities([...new Set(mentions.map((m) => m.entityId))]);
  return [...entities.values()].filter((entity) => canSeeWorkspace(ctx, entity.workspace))
    .map((entity) => ({ id: entity.id, name: entity.name, kind: entity.kind }));
}
