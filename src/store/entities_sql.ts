/**
 * SQL of the entity graph (issue 35): entities of a workspace, the words each memory names
 * them by (mentions), the aliases those words make, and typed relations read from or stated
 * with a memory.
 *
 * Aliases are derived from mentions: an alias row exists while some mention of its entity
 * was written with words of that key. So a memory that goes (purge, retire) takes with it the
 * names only it used, and an entity no memory mentions any more is deleted: the graph never
 * keeps a purged memory's words. Relations belong to one memory and go with it.
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import {
  entityFromRow,
  entitySummaryFromRow,
  mentionsByMemory,
  relationFromRow,
} from "./entity_rows.ts";
import { insertRows } from "./multi_row_insert.ts";

type Row = Record<string, unknown>;

/** One entity: a name in one workspace, with its kind. */
export interface EntityRecord {
  id: number;
  workspace: string;
  /** The name shown: the words most of its mentions use. */
  name: string;
  kind: string;
  createdAt: string;
}

/** An entity of a listing, with what holds it. */
export interface EntitySummary extends EntityRecord {
  /** Memories that mention it. */
  mentions: number;
  /** Relations it is an end of. */
  relations: number;
}

/** Where a relation came from: the caller stated it, or the text's wording said it. */
export type RelationOrigin = "stated" | "read";

/** A typed, directed relation between two entities, from one memory. */
export interface RelationRecord {
  id: number;
  workspace: string;
  fromId: number;
  type: string;
  toId: number;
  memoryId: number;
  origin: RelationOrigin;
}

/** One memory's part of the graph: the entities it names (by which words) and its relations. */
export interface MemoryGraph {
  /** `stated`: the caller named it (kept when the text is read again without the names). */
  mentions: { entityId: number; words: string; key: string; stated?: boolean }[];
  relations: { fromId: number; type: string; toId: number; origin: RelationOrigin }[];
}

/** A page of entities (`workspaces`: the scope; undefined spans the library). */
export interface EntityListQuery {
  workspaces?: readonly string[];
  excludeWorkspaces?: readonly string[];
  kind?: string;
  offset: number;
  limit: number;
}

/** A page of entities with the total and the count of each kind in scope. */
export interface EntityPage {
  rows: EntitySummary[];
  total: number;
  kinds: Record<string, number>;
}

/** The tables, created by schema generation 15. */
export const ENTITY_TABLES = `
CREATE TABLE entities (
  id INTEGER PRIMARY KEY,
  workspace_canonical TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX entities_workspace ON entities(workspace_canonical, id);
CREATE TABLE entity_aliases (
  workspace_canonical TEXT NOT NULL,
  alias_key TEXT NOT NULL,
  entity_id INTEGER NOT NULL REFERENCES entities(id),
  PRIMARY KEY (workspace_canonical, alias_key)
);
CREATE INDEX entity_aliases_entity ON entity_aliases(entity_id);
CREATE TABLE entity_mentions (
  entity_id INTEGER NOT NULL REFERENCES entities(id),
  memory_id INTEGER NOT NULL REFERENCES memories(id),
  words TEXT NOT NULL,
  word_key TEXT NOT NULL,
  stated INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (entity_id, memory_id, words)
);
CREATE INDEX entity_mentions_memory ON entity_mentions(memory_id);
CREATE TABLE entity_relations (
  id INTEGER PRIMARY KEY,
  workspace_canonical TEXT NOT NULL,
  from_id INTEGER NOT NULL REFERENCES entities(id),
  type TEXT NOT NULL,
  to_id INTEGER NOT NULL REFERENCES entities(id),
  memory_id INTEGER NOT NULL REFERENCES memories(id),
  origin TEXT NOT NULL CHECK (origin IN ('stated', 'read')),
  UNIQUE (from_id, type, to_id, memory_id)
);
CREATE INDEX entity_relations_to ON entity_relations(to_id);
CREATE INDEX entity_relations_memory ON entity_relations(memory_id);
`;

/** The entities of `workspace` whose aliases have these keys, by key. */
export function selectEntitiesByKeys(
  db: DatabaseSync,
  workspace: string,
  keys: readonly string[],
): Map<string, EntityRecord> {
  const found = new Map<string, EntityRecord>();
  if (keys.length === 0) return found;
  const rows = db.prepare(
    `SELECT a.alias_key AS alias_key, e.* FROM entity_aliases a
       JOIN entities e ON e.id = a.entity_id
     WHERE a.workspace_canonical = ? AND a.alias_key IN (SELECT value FROM json_each(?))`,
  ).all(workspace, JSON.stringify(keys)) as Row[];
  for (const row of rows) found.set(String(row.alias_key), entityFromRow(row));
  return found;
}

/** Entities with these alias keys in any of `workspaces` (every workspace when undefined). */
export function selectEntitiesNamed(
  db: DatabaseSync,
  keys: readonly string[],
  workspaces?: readonly string[],
): EntityRecord[] {
  if (keys.length === 0) return [];
  const rows = db.prepare(
    `SELECT DISTINCT e.* FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
     WHERE a.alias_key IN (SELECT value FROM json_each(?))
       AND (? IS NULL OR a.workspace_canonical IN (SELECT value FROM json_each(?)))
     ORDER BY e.id`,
  ).all(
    JSON.stringify(keys),
    workspaces === undefined ? null : 1,
    JSON.stringify(workspaces ?? []),
  ) as Row[];
  return rows.map(entityFromRow);
}

/** Inserts an entity; resolves with its id. */
export function insertEntity(
  db: DatabaseSync,
  entity: { workspace: string; name: string; kind: string; at: string },
): number {
  const result = db.prepare(
    "INSERT INTO entities (workspace_canonical, name, kind, created_at) VALUES (?, ?, ?, ?)",
  ).run(entity.workspace, entity.name, entity.kind, entity.at);
  return Number(result.lastInsertRowid);
}

/** The entities of `ids` that exist. */
export function selectEntities(
  db: DatabaseSync,
  ids: readonly number[],
): Map<number, EntityRecord> {
  const rows = db.prepare(
    "SELECT * FROM entities WHERE id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as Row[];
  return new Map(rows.map((row) => [Number(row.id), entityFromRow(row)]));
}

/** Each entity's aliases (the distinct words its mentions use), most used first. */
export function selectAliases(db: DatabaseSync, ids: readonly number[]): Map<number, string[]> {
  const rows = db.prepare(
    `SELECT entity_id, words, count(*) AS n FROM entity_mentions
     WHERE entity_id IN (SELECT value FROM json_each(?))
     GROUP BY entity_id, words ORDER BY entity_id, n DESC, words`,
  ).all(JSON.stringify(ids)) as Row[];
  const out = new Map<number, string[]>();
  for (const row of rows) {
    const list = out.get(Number(row.entity_id)) ?? [];
    list.push(String(row.words));
    out.set(Number(row.entity_id), list);
  }
  return out;
}

/**
 * Replaces a memory's mentions and relations with `graph` (its alias rows follow), then
 * prunes the entities it stopped naming. Resolves with the ids of entities deleted.
 */
export function replaceMemoryGraph(
  db: DatabaseSync,
  memory: { id: number; workspace: string },
  graph: MemoryGraph,
): number[] {
  const touched = dropGraphRows(db, memory.id);
  const mention = db.prepare(
    `INSERT INTO entity_mentions (entity_id, memory_id, words, word_key, stated)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (entity_id, memory_id, words) DO UPDATE SET stated = max(stated, excluded.stated)`,
  );
  const alias = db.prepare(
    `INSERT INTO entity_aliases (workspace_canonical, alias_key, entity_id) VALUES (?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  for (const item of graph.mentions) {
    mention.run(item.entityId, memory.id, item.words, item.key, item.stated ? 1 : 0);
    alias.run(memory.workspace, item.key, item.entityId);
  }
  const relation = db.prepare(
    `INSERT INTO entity_relations (workspace_canonical, from_id, type, to_id, memory_id, origin)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  for (const item of graph.relations) {
    relation.run(memory.workspace, item.fromId, item.type, item.toId, memory.id, item.origin);
  }
  return pruneEntities(db, touched);
}

/**
 * {@linkcode replaceMemoryGraph} for many memories, in order, with the same rows as one after
 * the other. When none of them has a part of the graph yet (a bulk import's new memories),
 * nothing is dropped or pruned and each table's rows go in a few multi-row inserts
 * (multi_row_insert.ts); otherwise memory by memory.
 */
export function replaceMemoryGraphs(
  db: DatabaseSync,
  list: readonly { memory: { id: number; workspace: string }; graph: MemoryGraph }[],
): number[] {
  if (list.length === 0) return [];
  const memoryIds = list.map((item) => item.memory.id);
  const ids = JSON.stringify(memoryIds);
  // A memory listed twice replaces its own rows: one by one too.
  const held = new Set(memoryIds).size < list.length || db.prepare(
        `SELECT 1 FROM entity_mentions WHERE memory_id IN (SELECT value FROM json_each(?))
     UNION ALL
     SELECT 1 FROM entity_relations WHERE memory_id IN (SELECT value FROM json_each(?)) LIMIT 1`,
      ).get(ids, ids) !== undefined;
  if (held) {
    return list.flatMap(({ memory, graph }) => replaceMemoryGraph(db, memory, graph));
  }
  const mentions: SQLInputValue[][] = [];
  const aliases: SQLInputValue[][] = [];
  const relations: SQLInputValue[][] = [];
  for (const { memory, graph } of list) {
    for (const item of graph.mentions) {
      mentions.push([item.entityId, memory.id, item.words, item.key, item.stated ? 1 : 0]);
      aliases.push([memory.workspace, item.key, item.entityId]);
    }
    for (const item of graph.relations) {
      relations.push([memory.workspace, item.fromId, item.type, item.toId, memory.id, item.origin]);
    }
  }
  insertRows(db, {
    into: "INSERT INTO entity_mentions (entity_id, memory_id, words, word_key, stated)",
    columns: 5,
    tail:
      "ON CONFLICT (entity_id, memory_id, words) DO UPDATE SET stated = max(stated, excluded.stated)",
  }, mentions);
  insertRows(db, {
    into: "INSERT INTO entity_aliases (workspace_canonical, alias_key, entity_id)",
    columns: 3,
    tail: "ON CONFLICT DO NOTHING",
  }, aliases);
  insertRows(db, {
    into:
      "INSERT INTO entity_relations (workspace_canonical, from_id, type, to_id, memory_id, origin)",
    columns: 6,
    tail: "ON CONFLICT DO NOTHING",
  }, relations);
  return [];
}

/** Deletes a memory's mentions and relations; resolves with the entities they touched. */
function dropGraphRows(db: DatabaseSync, memoryId: number): number[] {
  const touched = new Set<number>();
  for (
    const row of db.prepare("DELETE FROM entity_mentions WHERE memory_id = ? RETURNING entity_id")
      .all(memoryId) as Row[]
  ) touched.add(Number(row.entity_id));
  for (
    const row of db.prepare(
      "DELETE FROM entity_relations WHERE memory_id = ? RETURNING from_id, to_id",
    ).all(memoryId) as Row[]
  ) {
    touched.add(Number(row.from_id));
    touched.add(Number(row.to_id));
  }
  return [...touched];
}

/** Deletes a memory's part of the graph and prunes; resolves with the entities deleted. */
export function dropMemoryGraph(db: DatabaseSync, memoryId: number): number[] {
  return pruneEntities(db, dropGraphRows(db, memoryId));
}

/**
 * Keeps `ids` true to their mentions: aliases no mention uses go, an entity no memory
 * mentions goes (its relations went with their memories), and one whose shown name no
 * mention uses any more takes its most used words.
 */
export function pruneEntities(db: DatabaseSync, ids: readonly number[]): number[] {
  if (ids.length === 0) return [];
  const list = JSON.stringify(ids);
  db.prepare(
    `DELETE FROM entity_aliases WHERE entity_id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM entity_mentions m
         WHERE m.entity_id = entity_aliases.entity_id AND m.word_key = entity_aliases.alias_key)`,
  ).run(list);
  const orphans = (db.prepare(
    `SELECT id FROM entities WHERE id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = entities.id)`,
  ).all(list) as Row[]).map((row) => Number(row.id));
  if (orphans.length > 0) {
    const gone = JSON.stringify(orphans);
    db.prepare(
      `DELETE FROM entity_relations WHERE from_id IN (SELECT value FROM json_each(?))
         OR to_id IN (SELECT value FROM json_each(?))`,
    ).run(gone, gone);
    db.prepare("DELETE FROM entity_aliases WHERE entity_id IN (SELECT value FROM json_each(?))")
      .run(gone);
    db.prepare("DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))").run(gone);
  }
  db.prepare(
    `UPDATE entities SET name = (SELECT m.words FROM entity_mentions m
         WHERE m.entity_id = entities.id GROUP BY m.words ORDER BY count(*) DESC, m.words LIMIT 1)
     WHERE id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM entity_mentions m
         WHERE m.entity_id = entities.id AND m.words = entities.name)
       AND EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = entities.id)`,
  ).run(list);
  return orphans;
}

/** Ids of the memories that mention an entity, newest first. */
export function selectEntityMemoryIds(
  db: DatabaseSync,
  entityIds: readonly number[],
  limit: number,
): number[] {
  const rows = db.prepare(
    `SELECT DISTINCT memory_id FROM entity_mentions
     WHERE entity_id IN (SELECT value FROM json_each(?)) ORDER BY memory_id DESC LIMIT ?`,
  ).all(JSON.stringify(entityIds), limit) as Row[];
  return rows.map((row) => Number(row.memory_id));
}

/** One memory's mention of an entity. */
export interface MentionRecord {
  entityId: number;
  words: string;
  stated: boolean;
}

/** The entities each memory mentions, with their words. */
export function selectMemoryMentions(
  db: DatabaseSync,
  memoryIds: readonly number[],
): Map<number, MentionRecord[]> {
  const rows = db.prepare(
    `SELECT memory_id, entity_id, words, stated FROM entity_mentions
     WHERE memory_id IN (SELECT value FROM json_each(?)) ORDER BY memory_id, entity_id, words`,
  ).all(JSON.stringify(memoryIds)) as Row[];
  return mentionsByMemory(rows);
}

/** Relations with an end among `entityIds`, oldest first, at most `limit`. */
export function selectRelationsOf(
  db: DatabaseSync,
  entityIds: readonly number[],
  limit: number,
): RelationRecord[] {
  const list = JSON.stringify(entityIds);
  const rows = db.prepare(
    `SELECT * FROM entity_relations
     WHERE from_id IN (SELECT value FROM json_each(?)) OR to_id IN (SELECT value FROM json_each(?))
     ORDER BY id LIMIT ?`,
  ).all(list, list, limit) as Row[];
  return rows.map(relationFromRow);
}

/** Every relation, in id order, after `afterId` (export). */
export function selectRelationPage(
  db: DatabaseSync,
  afterId: number,
  limit: number,
): RelationRecord[] {
  const rows = db.prepare("SELECT * FROM entity_relations WHERE id > ? ORDER BY id LIMIT ?")
    .all(afterId, limit) as Row[];
  return rows.map(relationFromRow);
}

/** A page of entities in scope, newest first, with the kinds' counts. */
export function selectEntityPage(db: DatabaseSync, query: EntityListQuery): EntityPage {
  const scope = `(? IS NULL OR e.workspace_canonical IN (SELECT value FROM json_each(?)))
    AND e.workspace_canonical NOT IN (SELECT value FROM json_each(?))`;
  const scopeArgs = [
    query.workspaces === undefined ? null : 1,
    JSON.stringify(query.workspaces ?? []),
    JSON.stringify(query.excludeWorkspaces ?? []),
  ];
  const kinds: Record<string, number> = {};
  for (
    const row of db.prepare(
      `SELECT e.kind AS kind, count(*) AS n FROM entities e WHERE ${scope} GROUP BY e.kind`,
    ).all(...scopeArgs) as Row[]
  ) kinds[String(row.kind)] = Number(row.n);
  const kindArgs = [query.kind ?? null, query.kind ?? null];
  const total = Number(
    (db.prepare(
      `SELECT count(*) AS n FROM entities e WHERE ${scope} AND (? IS NULL OR e.kind = ?)`,
    ).get(...scopeArgs, ...kindArgs) as Row).n,
  );
  // Newest first, counted for the page only: ordering by counts would count every entity.
  const rows = db.prepare(
    `SELECT p.*,
       (SELECT count(DISTINCT memory_id) FROM entity_mentions m WHERE m.entity_id = p.id)
         AS mentions,
       (SELECT count(*) FROM entity_relations r WHERE r.from_id = p.id OR r.to_id = p.id)
         AS relations
     FROM (SELECT e.* FROM entities e WHERE ${scope} AND (? IS NULL OR e.kind = ?)
       ORDER BY e.id DESC LIMIT ? OFFSET ?) p
     ORDER BY p.id DESC`,
  ).all(...scopeArgs, ...kindArgs, query.limit, query.offset) as Row[];
  return {
    rows: rows.map(entitySummaryFromRow),
    total,
    kinds,
  };
}

/**
 * Folds entity `fromId` into `intoId` (same workspace): its mentions, aliases and relations
 * move, then it is deleted. A relation of the one to the other becomes a loop and is dropped.
 */
export function mergeEntities(db: DatabaseSync, fromId: number, intoId: number): void {
  db.prepare(
    `INSERT INTO entity_mentions (entity_id, memory_id, words, word_key, stated)
       SELECT ?, memory_id, words, word_key, stated FROM entity_mentions WHERE entity_id = ?
     ON CONFLICT DO NOTHING`,
  ).run(intoId, fromId);
  db.prepare("DELETE FROM entity_mentions WHERE entity_id = ?").run(fromId);
  db.prepare("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?").run(intoId, fromId);
  db.prepare(
    `INSERT INTO entity_relations (workspace_canonical, from_id, type, to_id, memory_id, origin)
       SELECT workspace_canonical,
         CASE WHEN from_id = ? THEN ? ELSE from_id END, type,
         CASE WHEN to_id = ? THEN ? ELSE to_id END, memory_id, origin
       FROM entity_relations WHERE from_id = ? OR to_id = ?
     ON CONFLICT DO NOTHING`,
  ).run(fromId, intoId, fromId, intoId, fromId, fromId);
  db.prepare("DELETE FROM entity_relations WHERE from_id = ? OR to_id = ?").run(fromId, fromId);
  db.prepare("DELETE FROM entity_relations WHERE from_id = to_id AND from_id = ?").run(intoId);
  db.prepare("DELETE FROM entities WHERE id = ?").run(fromId);
  pruneEntities(db, [intoId]);
}

/**
 * Splits the mentions of `entityId` written with words of `key` into a new entity (same
 * workspace), with the relations of the memories those mentions came from. Resolves with the
 * new entity's id.
 */
export function splitEntity(
  db: DatabaseSync,
  entityId: number,
  split: { key: string; name: string; kind: string; at: string },
): number {
  const entity = selectEntities(db, [entityId]).get(entityId)!;
  const newId = insertEntity(db, { ...split, workspace: entity.workspace });
  const memories = (db.prepare(
    "SELECT DISTINCT memory_id FROM entity_mentions WHERE entity_id = ? AND word_key = ?",
  ).all(entityId, split.key) as Row[]).map((row) => Number(row.memory_id));
  db.prepare("UPDATE entity_mentions SET entity_id = ? WHERE entity_id = ? AND word_key = ?")
    .run(newId, entityId, split.key);
  db.prepare("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ? AND alias_key = ?")
    .run(newId, entityId, split.key);
  const list = JSON.stringify(memories);
  db.prepare(
    `UPDATE entity_relations SET from_id = ? WHERE from_id = ?
       AND memory_id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM entity_mentions m
         WHERE m.entity_id = ? AND m.memory_id = entity_relations.memory_id)`,
  ).run(newId, entityId, list, entityId);
  db.prepare(
    `UPDATE entity_relations SET to_id = ? WHERE to_id = ?
       AND memory_id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM entity_mentions m
         WHERE m.entity_id = ? AND m.memory_id = entity_relations.memory_id)`,
  ).run(newId, entityId, list, entityId);
  pruneEntities(db, [entityId, newId]);
  return newId;
}
