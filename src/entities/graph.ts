/**
 * A memory's part of the entity graph, written with the memory (issue 35): the write path
 * announces "memory written" and {@linkcode subscribeEntityGraph} reads the fact's names and
 * relations (extract.ts, relations.ts), adds what the caller named, folds the names into the
 * workspace's entities (names.ts: the text's own aliases, the library's, the built-in table)
 * and replaces the memory's mentions and relations in the same unit of work.
 *
 * Cost: one pass of regular expressions over at most `ENTITY_TEXT_MAX_CHARS` and one alias
 * lookup for every name at once, so it runs inline (bench/entities.ts measures it per write).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { indexMemoryGraph } from "./graph.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const at = "2026-01-01T00:00:00.000Z";
 * const id = await store.write(async (tx) =>
 *   await tx.insertMemory({
 *     subject: "db", content: "The Payments API depends on Postgres.", contentSha: "x", tags: [],
 *     workspace: "w", workspaceCanonical: "w", sourceType: "agent_generated", sourceRef: null,
 *     eventTime: null, ingestTime: at, confidence: 0.5, protectionLevel: "normal",
 *     status: "active", agentId: "a", client: "c", metadata: {}, follows: null,
 *     createdAt: at, updatedAt: at, validFrom: null, validTo: null,
 *   })
 * );
 * await store.write(async () => await indexMemoryGraph(store, { memoryId: id, version: 1 }));
 * const [postgres] = await store.entitiesNamed(["postgres"]);
 * assert.equal(postgres.name, "Postgres");
 * const [relation] = await store.relationsOf([postgres.id], 10);
 * assert.equal(relation.type, "depends_on");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { MemoryEvents, MemoryWritten, NamedGraph } from "../core/memory_events.ts";
import type { StoreRepositories } from "../store/repositories.ts";
import type { MemoryRecord } from "../store/types.ts";
import type { MemoryGraph, RelationOrigin } from "../store/entities_sql.ts";
import { nowIso } from "../platform/clock.ts";
import { ENTITY_MENTIONS_MAX, ENTITY_RELATIONS_MAX } from "./constants.ts";
import type { EntityKind } from "./extract.ts";
import { aliasKeys, nameKey } from "./names.ts";
import { graphText, readTextGraph, type TextGraph } from "./text_graph.ts";

/** Reads the entity graph of every written memory, in the write's unit of work. */
export function subscribeEntityGraph(events: MemoryEvents): void {
  events.onWritten(
    (store, fact) => indexMemoryGraph(store, fact),
    { batched: (store, facts) => indexMemoryGraphs(store, facts) },
  );
}

/** How much a kind says: a caller's word first, a bare capitalized "name" last. */
function kindWeight(kind: string): number {
  if (kind === "name") return 0;
  if (kind === "person" || kind === "product") return 1;
  return 2;
}

/** Names of one memory that are one entity, and what they say about it. */
interface Cluster {
  words: string[];
  kind: string;
  /** The kind came from the caller. */
  named: boolean;
}

/** A tiny union-find over the names of one memory. */
class NameClusters {
  readonly #parent = new Map<string, string>();
  readonly #info = new Map<string, Cluster>();

  add(words: string, kind: string, named = false): void {
    const key = nameKey(words);
    if (key === "") return;
    if (!this.#parent.has(key)) {
      this.#parent.set(key, key);
      this.#info.set(key, { words: [], kind, named });
    }
    const root = this.root(key);
    const info = this.#info.get(root)!;
    if (!info.words.includes(words)) info.words.push(words);
    if (named && !info.named) [info.kind, info.named] = [kind, true];
    else if (!info.named && kindWeight(kind) > kindWeight(info.kind)) info.kind = kind;
  }

  root(key: string): string {
    let at = key;
    while (this.#parent.get(at) !== at) at = this.#parent.get(at)!;
    this.#parent.set(key, at);
    return at;
  }

  has(key: string): boolean {
    return this.#parent.has(key);
  }

  join(a: string, b: string): void {
    if (!this.has(a) || !this.has(b)) return;
    const [ra, rb] = [this.root(a), this.root(b)];
    if (ra === rb) return;
    this.#parent.set(rb, ra);
    const [ia, ib] = [this.#info.get(ra)!, this.#info.get(rb)!];
    for (const words of ib.words) if (!ia.words.includes(words)) ia.words.push(words);
    if (ib.named && !ia.named) [ia.kind, ia.named] = [ib.kind, true];
    else if (!ia.named && kindWeight(ib.kind) > kindWeight(ia.kind)) ia.kind = ib.kind;
    this.#info.delete(rb);
  }

  clusters(): [string, Cluster][] {
    return [...this.#info.entries()];
  }

  keys(): string[] {
    return [...this.#parent.keys()];
  }
}

/** One memory's names, read from its text and the caller's words, before they meet the library. */
interface GraphReading {
  memory: MemoryRecord;
  named: NamedGraph;
  clusters: Cluster[];
  /** Every key the library is asked for (each spelling and the built-in table's). */
  lookup: string[];
  read: TextGraph["relations"];
  mentions: TextGraph["mentions"];
}

/** One memory's names; `prepared` is used when it was read from this very text. */
function readGraph(memory: MemoryRecord, named: NamedGraph, prepared?: TextGraph): GraphReading {
  const { mentions, aliases, relations: read, phrases } =
    prepared !== undefined && prepared.text === graphText(memory.subject, memory.content)
      ? prepared
      : readTextGraph(memory.subject, memory.content);
  const clusters = new NameClusters();
  for (const entity of named.entities) {
    clusters.add(entity.name, entity.kind ?? "name", entity.kind !== undefined);
  }
  for (const relation of named.relations) {
    clusters.add(relation.from, "name");
    clusters.add(relation.to, "name");
  }
  for (const mention of [...mentions, ...phrases]) clusters.add(mention.words, mention.kind);
  for (const [a, b] of aliases) clusters.join(nameKey(a), nameKey(b));
  // The built-in table joins two spellings the same text uses ("Postgres … PG").
  for (const key of clusters.keys()) {
    for (const other of aliasKeys(key).slice(1)) if (clusters.has(other)) clusters.join(key, other);
  }
  return {
    memory,
    named,
    clusters: clusters.clusters().slice(0, ENTITY_MENTIONS_MAX).map(([, cluster]) => cluster),
    lookup: [...new Set(clusters.keys().flatMap((key) => aliasKeys(key)))],
    read,
    mentions,
  };
}

/** The entity a cluster names in `found` (alias key → entity id): its own spellings first. */
function existingEntity(found: Map<string, number>, cluster: Cluster): number | undefined {
  const keys = cluster.words.map(nameKey);
  // Its own spellings first, then the built-in table's: the library decides.
  return keys.map((key) => found.get(key)).find((id) => id !== undefined) ??
    keys.flatMap((key) => aliasKeys(key).slice(1)).map((key) => found.get(key))
      .find((id) => id !== undefined);
}

/**
 * Replaces the memory's part of the graph with what its text and the caller's names say.
 * A memory that is not active has no part (its mentions and relations go).
 */
export async function indexMemoryGraph(
  store: StoreRepositories,
  fact: MemoryWritten,
): Promise<void> {
  await indexMemoryGraphs(store, [fact]);
}

/**
 * {@linkcode indexMemoryGraph} for many memories, in order, as if one after the other (a name
 * the first creates is the later ones' entity), in a fixed number of statements: one read of
 * the memories, one lookup of names per workspace, one insert of the new entities, one
 * replacement of every memory's mentions and relations.
 */
export async function indexMemoryGraphs(
  store: StoreRepositories,
  facts: readonly MemoryWritten[],
): Promise<void> {
  const records = await store.getMemories(facts.map((fact) => fact.memoryId));
  const readings: GraphReading[] = [];
  for (const fact of facts) {
    const memory = records.get(fact.memoryId);
    if (memory === undefined) continue;
    if (memory.status !== "active") {
      await store.dropMemoryGraph(memory.id);
      continue;
    }
    // Read again without the caller's names (an edit): the names stated before still hold.
    readings.push(
      readGraph(memory, fact.named ?? await statedBefore(store, memory.id), fact.reading),
    );
  }
  if (readings.length === 0) return;
  const workspaces = [...new Set(readings.map((r) => r.memory.workspaceCanonical))];
  const found = new Map<string, Map<string, number>>();
  const lookUp = async (workspace: string) => {
    const keys = [
      ...new Set(
        readings.filter((r) => r.memory.workspaceCanonical === workspace).flatMap((r) => r.lookup),
      ),
    ];
    const entities = await store.entitiesByKeys(workspace, keys);
    found.set(workspace, new Map([...entities].map(([key, entity]) => [key, entity.id])));
  };
  for (const workspace of workspaces) await lookUp(workspace);
  // A concurrent write unit may be creating one of the names not found right now: wait for it
  // and look again, so that one name never becomes two entities.
  const unknown = readings.flatMap((r) =>
    r.clusters.filter((cluster) =>
      existingEntity(found.get(r.memory.workspaceCanonical)!, cluster) === undefined
    ).flatMap((cluster) =>
      cluster.words.flatMap((words) => aliasKeys(nameKey(words)))
        .map((key) => JSON.stringify(["entity", r.memory.workspaceCanonical, key]))
    )
  );
  if (unknown.length > 0 && await store.claimKeys([...new Set(unknown)])) {
    for (const workspace of workspaces) await lookUp(workspace);
  }
  // New entities get a placeholder id (-1, -2, …) until they are inserted, all at once.
  const created: { workspace: string; name: string; kind: string; at: string }[] = [];
  const at = nowIso();
  const graphs = readings.map((reading) => {
    const workspace = reading.memory.workspaceCanonical;
    const known = found.get(workspace)!;
    const { named } = reading;
    const statedKeys = new Set([
      ...named.entities.map((e) => nameKey(e.name)),
      ...named.relations.flatMap((r) => [nameKey(r.from), nameKey(r.to)]),
    ]);
    const entityOf = new Map<string, number>();
    const graph: MemoryGraph = { mentions: [], relations: [] };
    for (const cluster of reading.clusters) {
      let id = existingEntity(known, cluster);
      if (id === undefined) {
        created.push({ workspace, name: cluster.words[0], kind: cluster.kind, at });
        id = -created.length;
      }
      for (const words of cluster.words) {
        const key = nameKey(words);
        entityOf.set(key, id);
        graph.mentions.push({ entityId: id, words, key, stated: statedKeys.has(key) });
      }
    }
    // The aliases this memory adds name its entities for the memories after it (an alias
    // already held keeps its entity, as the insert does).
    for (const mention of graph.mentions) {
      if (!known.has(mention.key)) known.set(mention.key, mention.entityId);
    }
    const relate = (from: string, type: string, to: string, origin: RelationOrigin) => {
      const [fromId, toId] = [entityOf.get(nameKey(from)), entityOf.get(nameKey(to))];
      if (fromId === undefined || toId === undefined || fromId === toId) return;
      if (graph.relations.length >= ENTITY_RELATIONS_MAX) return;
      graph.relations.push({ fromId, type, toId, origin });
    };
    for (const relation of named.relations) {
      relate(relation.from, relation.type, relation.to, "stated");
    }
    for (const relation of reading.read) {
      relate(relation.from.words, relation.type, relation.to.words, "read");
    }
    for (const mention of reading.mentions) {
      if (mention.versionOf !== undefined) {
        relate(mention.words, "version_of", mention.versionOf, "read");
      }
    }
    return { memory: { id: reading.memory.id, workspace }, graph };
  });
  const ids = await store.insertEntities(created);
  const real = (id: number) => id < 0 ? ids[-id - 1] : id;
  await store.replaceMemoryGraphs(graphs.map(({ memory, graph }) => ({
    memory,
    graph: {
      mentions: graph.mentions.map((m) => ({ ...m, entityId: real(m.entityId) })),
      relations: graph.relations.map((r) => ({ ...r, fromId: real(r.fromId), toId: real(r.toId) })),
    },
  })));
}

/** The entities and relations the caller named for a memory before, from its graph. */
async function statedBefore(store: StoreRepositories, memoryId: number): Promise<NamedGraph> {
  const mentions = ((await store.memoryMentions([memoryId])).get(memoryId) ?? [])
    .filter((mention) => mention.stated);
  if (mentions.length === 0) return { entities: [], relations: [] };
  const ids = [...new Set(mentions.map((mention) => mention.entityId))];
  const entities = await store.getEntities(ids);
  const wordsOf = new Map(mentions.map((mention) => [mention.entityId, mention.words]));
  const relations = (await store.relationsOf(ids, ENTITY_RELATIONS_MAX * 4)).filter((relation) =>
    relation.memoryId === memoryId && relation.origin === "stated"
  );
  return {
    entities: mentions.map((mention) => ({
      name: mention.words,
      kind: entities.get(mention.entityId)?.kind,
    })),
    relations: relations.flatMap((relation) => {
      const [from, to] = [wordsOf.get(relation.fromId), wordsOf.get(relation.toId)];
      return from === undefined || to === undefined ? [] : [{ from, type: relation.type, to }];
    }),
  };
}

/** The kinds extraction gives, for documentation and the views' filters. */
export const ENTITY_KINDS: readonly EntityKind[] = [
  "person",
  "team",
  "service",
  "project",
  "product",
  "organization",
  "name",
  "package",
  "path",
  "host",
  "url",
  "email",
  "env",
  "ticket",
  "version",
];
