/**
 * The MCP reference server-memory's knowledge graph file (issue 35), in and out. Its
 * `memory.jsonl` holds one JSON object a line: `{"type":"entity","name","entityType",
 * "observations":[...]}` and `{"type":"relation","from","to","relationType"}` (the server's
 * `saveGraph` writes them so, and its `loadGraph` skips lines it cannot read).
 *
 * Import: each observation becomes a memory `"<name>: <observation>"` (subject: the name) that
 * names its entity with the file's type; an entity without observations becomes `"<name>
 * (<type>)"`; each relation becomes a memory `"<from> <relationType> <to>"` stating it. The name
 * in the text keeps each fact self-contained for recall, and a second import of the same file
 * meets only duplicates (same text, same workspace): it stores nothing new.
 *
 * Export: every entity that has facts or relations, with its kind as `entityType` and, as
 * observations, the facts whose subject is its name (else that name it first), with the
 * `"<name>: "` an import put in front taken off again; every relation between them, once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseServerMemory } from "./server_memory.ts";
 *
 * const graph = parseServerMemory([
 *   '{"type":"entity","name":"Ana","entityType":"person","observations":["Leads search"]}',
 *   '{"type":"relation","from":"Ana","to":"Search","relationType":"leads"}',
 *   "not json",
 * ].join("\n"));
 * assert.equal(graph.entities[0].observations[0], "Leads search");
 * assert.equal(graph.relations[0].relationType, "leads");
 * assert.deepEqual(graph.skipped.map((s) => s.line), [3]);
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { rememberMemory } from "../memory/remember.ts";
import { canonicalWorkspace, DEFAULT_WORKSPACE } from "../core/workspace_names.ts";
import { nameKey } from "../entities/names.ts";
import type { EntityRecord, MemoryRecord, RelationRecord, Store } from "../store/mod.ts";
import { MemaError } from "../errors/mod.ts";

/** One entity of the file. */
export interface ServerMemoryEntity {
  name: string;
  entityType: string;
  observations: string[];
}

/** One relation of the file. */
export interface ServerMemoryRelation {
  from: string;
  to: string;
  relationType: string;
}

/** A parsed file, with the lines that could not be read. */
export interface ServerMemoryGraph {
  entities: ServerMemoryEntity[];
  relations: ServerMemoryRelation[];
  skipped: { line: number; reason: string }[];
}

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** Reads a server-memory JSONL file; a line it cannot read is skipped with its reason. */
export function parseServerMemory(text: string): ServerMemoryGraph {
  const graph: ServerMemoryGraph = { entities: [], relations: [], skipped: [] };
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(raw);
    } catch {
      graph.skipped.push({ line, reason: "not a JSON line" });
      return;
    }
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      graph.skipped.push({ line, reason: "not a JSON object" });
    } else if (item.type === "entity") {
      const observations = item.observations;
      if (
        !isText(item.name) || typeof item.entityType !== "string" ||
        !Array.isArray(observations) || !observations.every((o) => typeof o === "string")
      ) {
        graph.skipped.push({ line, reason: "an entity needs name, entityType and observations" });
        return;
      }
      graph.entities.push({
        name: item.name,
        entityType: item.entityType,
        observations: observations as string[],
      });
    } else if (item.type === "relation") {
      if (!isText(item.from) || !isText(item.to) || !isText(item.relationType)) {
        graph.skipped.push({ line, reason: "a relation needs from, to and relationType" });
        return;
      }
      graph.relations.push({ from: item.from, to: item.to, relationType: item.relationType });
    } else {
      graph.skipped.push({ line, reason: 'type must be "entity" or "relation"' });
    }
  });
  return graph;
}

/** What an import stored. */
export interface ServerMemoryImport {
  created: number;
  unchanged: number;
  skipped: { line: number; reason: string }[];
}

function placeholder(entity: { name: string; entityType: string }): string {
  return `${entity.name} (${entity.entityType})`;
}

/** Stores a parsed graph in `workspace` (default: the global pool), in one unit of work. */
export async function importServerMemory(
  ctx: ServiceContext,
  graph: ServerMemoryGraph,
  options: { workspace?: string } = {},
): Promise<ServerMemoryImport> {
  const workspace = options.workspace ?? DEFAULT_WORKSPACE;
  const kinds = new Map(graph.entities.map((e) => [e.name, e.entityType]));
  const named = (name: string) => {
    const kind = kinds.get(name)?.trim();
    return kind ? { name, kind } : name;
  };
  const report: ServerMemoryImport = { created: 0, unchanged: 0, skipped: [...graph.skipped] };
  const facts: { content: string; subject: string; extra: Record<string, unknown> }[] = [];
  for (const entity of graph.entities) {
    const texts = entity.observations.length > 0
      ? entity.observations.map((o) => `${entity.name}: ${o}`)
      : [placeholder(entity)];
    for (const content of texts) {
      facts.push({ content, subject: entity.name, extra: { entities: [named(entity.name)] } });
    }
  }
  for (const relation of graph.relations) {
    facts.push({
      content: `${relation.from} ${relation.relationType} ${relation.to}`,
      subject: relation.from,
      extra: {
        entities: [named(relation.from), named(relation.to)],
        relations: [{ from: relation.from, type: relation.relationType, to: relation.to }],
      },
    });
  }
  await ctx.store.write(async () => {
    for (const fact of facts) {
      try {
        const result = await ctx.store.withinUnit(() =>
          rememberMemory(ctx, {
            content: fact.content,
            subject: fact.subject,
            workspace,
            sourceType: "document_extracted",
            sourceRef: "server-memory",
            ...fact.extra,
          })
        );
        if (result.duplicateReplay) report.unchanged++;
        else report.created++;
      } catch (error) {
        if (!(error instanceof MemaError)) throw error;
        report.skipped.push({ line: 0, reason: `${fact.subject}: ${error.message}` });
      }
    }
  });
  return report;
}

/** The graph of the library (or one workspace) in server-memory's shape. */
export async function exportServerMemory(
  store: Store,
  options: { workspace?: string } = {},
): Promise<{ entities: ServerMemoryEntity[]; relations: ServerMemoryRelation[] }> {
  const workspaces = options.workspace === undefined
    ? undefined
    : [canonicalWorkspace(options.workspace)];
  return await store.read(async (tx) => {
    const observations = new Map<number, string[]>();
    const relations: RelationRecord[] = [];
    for (let afterId = 0;;) {
      const page = await tx.relationPage(afterId, 500);
      if (page.length === 0) break;
      afterId = page.at(-1)!.id;
      relations.push(
        ...page.filter((r) =>
          r.type !== "version_of" && (workspaces === undefined || workspaces.includes(r.workspace))
        ),
      );
    }
    const entityIds = new Set(relations.flatMap((r) => [r.fromId, r.toId]));
    const stated = new Map<number, RelationRecord[]>();
    for (const relation of relations) {
      if (relation.origin !== "stated") continue;
      stated.set(relation.memoryId, [...(stated.get(relation.memoryId) ?? []), relation]);
    }
    const known = new Map<number, EntityRecord>();
    for (let afterId = 0;;) {
      const memories = await tx.memoryPage({
        statuses: ["active"],
        workspaces,
        afterId,
        limit: 500,
      });
      if (memories.length === 0) break;
      afterId = memories.at(-1)!.id;
      const mentions = await tx.memoryMentions(memories.map((m) => m.id));
      const ids = [...new Set([...mentions.values()].flat().map((m) => m.entityId))];
      for (const [id, entity] of await tx.getEntities(ids.filter((id) => !known.has(id)))) {
        known.set(id, entity);
      }
      for (const memory of memories) {
        const list = mentions.get(memory.id) ?? [];
        if (list.length === 0) continue;
        const owner = list.find((m) => nameKey(m.words) === nameKey(memory.subject)) ??
          list.find((m) => m.stated) ?? list[0];
        const entity = known.get(owner.entityId);
        if (entity === undefined) continue;
        entityIds.add(entity.id);
        const text = observationOf(memory, entity, owner.words, stated.get(memory.id) ?? []);
        if (text === undefined) continue;
        observations.set(entity.id, [...(observations.get(entity.id) ?? []), text]);
      }
    }
    const missing = [...entityIds].filter((id) => !known.has(id));
    for (const [id, entity] of await tx.getEntities(missing)) known.set(id, entity);
    const entities = [...entityIds].flatMap((id) => {
      const entity = known.get(id);
      return entity === undefined ? [] : [{
        name: entity.name,
        entityType: entity.kind,
        observations: observations.get(id) ?? [],
      }];
    }).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const seen = new Set<string>();
    const out: ServerMemoryRelation[] = [];
    for (const relation of relations) {
      const [from, to] = [known.get(relation.fromId), known.get(relation.toId)];
      if (from === undefined || to === undefined) continue;
      const key = JSON.stringify([from.name, relation.type, to.name]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ from: from.name, to: to.name, relationType: relation.type });
    }
    return { entities, relations: out };
  });
}

/**
 * The observation a memory is for its entity: its text without the `"<name>: "` an import put
 * in front; nothing for the placeholder of an entity without observations, or for a memory
 * that only states its relations.
 */
function observationOf(
  memory: MemoryRecord,
  entity: EntityRecord,
  words: string,
  stated: readonly RelationRecord[],
): string | undefined {
  const content = memory.content;
  if (content === placeholder({ name: words, entityType: entity.kind })) return undefined;
  if (stated.length > 0 && /^\S.* \S+ \S.*$/u.test(content) && !content.includes(": ")) {
    return undefined;
  }
  for (const name of [words, entity.name]) {
    if (content.startsWith(`${name}: `)) return content.slice(name.length + 2);
  }
  return content;
}

/** The file's lines: entities first, then relations, as server-memory writes them. */
export function serverMemoryLines(
  graph: { entities: ServerMemoryEntity[]; relations: ServerMemoryRelation[] },
): string[] {
  return [
    ...graph.entities.map((e) =>
      JSON.stringify({
        type: "entity",
        name: e.name,
        entityType: e.entityType,
        observations: e.observations,
      })
    ),
    ...graph.relations.map((r) =>
      JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relationType })
    ),
  ];
}
