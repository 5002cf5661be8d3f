/**
 * The entity graph on SQLite: {@linkcode EntitiesRepository} over entities_sql.ts.
 *
 * @module
 */
import * as entities from "./entities_sql.ts";
import type { EntitiesRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The entities room over `core`'s connection. */
export function sqliteEntities(core: SqliteCore): Sync<EntitiesRepository> {
  const db = core.connection.db;
  return {
    entitiesByKeys: (workspace, keys) => entities.selectEntitiesByKeys(db, workspace, keys),
    entitiesNamed: (keys, workspaces) => entities.selectEntitiesNamed(db, keys, workspaces),
    insertEntity: (entity) => entities.insertEntity(db, entity),
    insertEntities: (list) => list.map((entity) => entities.insertEntity(db, entity)),
    getEntities: (ids) => entities.selectEntities(db, ids),
    entityAliases: (ids) => entities.selectAliases(db, ids),
    replaceMemoryGraph: (memory, graph) => entities.replaceMemoryGraph(db, memory, graph),
    replaceMemoryGraphs: (list) => entities.replaceMemoryGraphs(db, list),
    dropMemoryGraph: (memoryId) => entities.dropMemoryGraph(db, memoryId),
    entityMemoryIds: (ids, limit) => entities.selectEntityMemoryIds(db, ids, limit),
    memoryMentions: (ids) => entities.selectMemoryMentions(db, ids),
    relationsOf: (ids, limit) => entities.selectRelationsOf(db, ids, limit),
    relationPage: (afterId, limit) => entities.selectRelationPage(db, afterId, limit),
    entityPage: (query) => entities.selectEntityPage(db, query),
    mergeEntities: (fromId, intoId) => entities.mergeEntities(db, fromId, intoId),
    splitEntity: (entityId, split) => entities.splitEntity(db, entityId, split),
  };
}
