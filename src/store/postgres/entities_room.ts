/**
 * The entity graph on PostgreSQL: {@linkcode EntitiesRepository}, answering exactly as the
 * SQLite room does (src/store/entities_sql.ts documents each operation and the rule that
 * aliases follow mentions).
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { EntitiesRepository } from "../repositories.ts";
import {
  entityFromRow,
  entitySummaryFromRow,
  mentionsByMemory,
  relationFromRow,
} from "../entity_rows.ts";
import type { EntityRecord, MemoryGraph } from "../entities_sql.ts";

type Row = Record<string, unknown>;

const ids = (list: readonly number[]) => list as number[];

async function dropGraphRows(sql: PgQuery, memoryIds: number[]): Promise<number[]> {
  const touched = new Set<number>();
  // Sent together: a unit's one connection runs them in order, in one round trip.
  const [mentions, relations] = await Promise.all([
    sql`DELETE FROM entity_mentions WHERE memory_id = ANY(${memoryIds}::bigint[])
      RETURNING entity_id`,
    sql`DELETE FROM entity_relations WHERE memory_id = ANY(${memoryIds}::bigint[])
      RETURNING from_id, to_id`,
  ]);
  for (const row of mentions) touched.add(Number(row.entity_id));
  for (const row of relations) {
    touched.add(Number(row.from_id));
    touched.add(Number(row.to_id));
  }
  return [...touched];
}

async function pruneEntities(sql: PgQuery, touched: readonly number[]): Promise<number[]> {
  if (touched.length === 0) return [];
  // Units that write beside each other (a retire or an update beside a remember) must not drop
  // an entity another unit is linking to: such a unit holds its entities' rows (`FOR KEY SHARE`,
  // entitiesByKeys and every foreign key check), so those are skipped here and stay, being in
  // use. The rest are held until this unit ends: a unit looking them up waits, and finds them
  // gone or kept. Each statement below sees every commit before it (READ COMMITTED).
  const list = (await sql`SELECT id FROM entities WHERE id = ANY(${ids(touched)}::bigint[])
    ORDER BY id FOR UPDATE SKIP LOCKED`).map((row) => Number(row.id));
  if (list.length === 0) return [];
  await sql`DELETE FROM entity_aliases a WHERE a.entity_id = ANY(${ids(list)}::bigint[])
    AND NOT EXISTS (SELECT 1 FROM entity_mentions m
      WHERE m.entity_id = a.entity_id AND m.word_key = a.alias_key)`;
  const orphans = (await sql`SELECT id FROM entities e WHERE id = ANY(${ids(list)}::bigint[])
    AND NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id)`).map((row) =>
    Number(row.id)
  );
  if (orphans.length > 0) {
    await sql`DELETE FROM entity_relations WHERE from_id = ANY(${orphans}::bigint[])
      OR to_id = ANY(${orphans}::bigint[])`;
    await sql`DELETE FROM entity_aliases WHERE entity_id = ANY(${orphans}::bigint[])`;
    await sql`DELETE FROM entities WHERE id = ANY(${orphans}::bigint[])`;
  }
  await sql`UPDATE entities e SET name = (SELECT m.words FROM entity_mentions m
      WHERE m.entity_id = e.id GROUP BY m.words
      ORDER BY count(*) DESC, m.words COLLATE "C" LIMIT 1)
    WHERE e.id = ANY(${ids(list)}::bigint[])
      AND NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id AND m.words = e.name)
      AND EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id)`;
  return orphans;
}

/**
 * Replaces the mentions and relations of every memory of `list`: one statement per table for
 * all of them (arrays unnested), sent together; resolves with the entities that went.
 */
async function replaceGraphs(
  sql: PgQuery,
  list: readonly { memory: { id: number; workspace: string }; graph: MemoryGraph }[],
): Promise<number[]> {
  if (list.length === 0) return [];
  const touched = await dropGraphRows(sql, list.map((item) => item.memory.id));
  // An upsert may not touch a row twice, so repeated mentions of a memory are folded first.
  const mentions = new Map<
    string,
    {
      memoryId: number;
      workspace: string;
      entityId: number;
      words: string;
      key: string;
      stated: number;
    }
  >();
  for (const { memory, graph } of list) {
    for (const item of graph.mentions) {
      const id = JSON.stringify([memory.id, item.entityId, item.words]);
      const stated = Math.max(mentions.get(id)?.stated ?? 0, item.stated ? 1 : 0);
      mentions.set(id, { ...item, memoryId: memory.id, workspace: memory.workspace, stated });
    }
  }
  const rows = [...mentions.values()];
  const relations = list.flatMap(({ memory, graph }) =>
    graph.relations.map((relation) => ({ ...relation, memory }))
  );
  // Sent together (one round trip in a unit): each insert reads nothing another writes.
  const inserts = [];
  if (rows.length > 0) {
    inserts.push(sql`INSERT INTO entity_mentions (entity_id, memory_id, words, word_key, stated)
      SELECT e, m, w, k, s FROM unnest(
        ${rows.map((r) => r.entityId)}::bigint[], ${rows.map((r) => r.memoryId)}::bigint[],
        ${rows.map((r) => r.words)}::text[], ${rows.map((r) => r.key)}::text[],
        ${rows.map((r) => r.stated)}::smallint[]
      ) AS t(e, m, w, k, s)
      ON CONFLICT (entity_id, memory_id, words)
      DO UPDATE SET stated = greatest(entity_mentions.stated, excluded.stated)`);
    inserts.push(sql`INSERT INTO entity_aliases (workspace_canonical, alias_key, entity_id)
      SELECT ws, k, e FROM unnest(
        ${rows.map((r) => r.workspace)}::text[], ${rows.map((r) => r.key)}::text[],
        ${rows.map((r) => r.entityId)}::bigint[]
      ) WITH ORDINALITY AS t(ws, k, e, n)
      -- Key order: two units adding the same aliases meet them in one order, never in a
      -- circle (a deadlock); of one key's rows the first still wins.
      ORDER BY ws COLLATE "C", k COLLATE "C", n
      ON CONFLICT DO NOTHING`);
  }
  if (relations.length > 0) {
    inserts.push(sql`INSERT INTO entity_relations
        (workspace_canonical, from_id, type, to_id, memory_id, origin)
      SELECT ws, f, ty, t2, m, o FROM unnest(
        ${relations.map((r) => r.memory.workspace)}::text[],
        ${relations.map((r) => r.fromId)}::bigint[], ${relations.map((r) => r.type)}::text[],
        ${relations.map((r) => r.toId)}::bigint[], ${relations.map((r) => r.memory.id)}::bigint[],
        ${relations.map((r) => r.origin)}::text[]
      ) AS t(ws, f, ty, t2, m, o)
      ON CONFLICT DO NOTHING`);
  }
  await Promise.all(inserts);
  return await pruneEntities(sql, touched);
}

/** The entities room over `core`'s pool. */
export function pgEntities(core: PgCore<unknown>): EntitiesRepository {
  const getEntities = async (list: readonly number[]) => {
    const rows = await core.q()`SELECT * FROM entities WHERE id = ANY(${ids(list)}::bigint[])`;
    return new Map(rows.map((row) => [Number(row.id), entityFromRow(row)]));
  };
  const insertEntity = async (
    entity: { workspace: string; name: string; kind: string; at: string },
  ) => {
    const [row] = await core.q()`INSERT INTO entities (workspace_canonical, name, kind, created_at)
      VALUES (${entity.workspace}, ${entity.name}, ${entity.kind}, ${entity.at}) RETURNING id`;
    return Number(row.id);
  };
  return {
    async entitiesByKeys(workspace, keys) {
      const found = new Map<string, EntityRecord>();
      if (keys.length === 0) return found;
      const sql = core.q();
      // A write unit links to what it finds: it holds the rows so that a unit pruning entities
      // beside it keeps them (pruneEntities); a unit pruning one already waits it out here.
      const hold = core.inWriteUnit() ? sql`FOR KEY SHARE OF e` : sql``;
      const rows = await sql`SELECT a.alias_key, e.* FROM entity_aliases a
        JOIN entities e ON e.id = a.entity_id
        WHERE a.workspace_canonical = ${workspace} AND a.alias_key = ANY(${keys as string[]})
        ${hold}`;
      for (const row of rows) found.set(String(row.alias_key), entityFromRow(row));
      return found;
    },
    async entitiesNamed(keys, workspaces) {
      if (keys.length === 0) return [];
      const sql = core.q();
      const scope = workspaces === undefined
        ? sql`TRUE`
        : sql`a.workspace_canonical = ANY(${workspaces as string[]})`;
      const rows = await sql`SELECT DISTINCT e.* FROM entity_aliases a
        JOIN entities e ON e.id = a.entity_id
        WHERE a.alias_key = ANY(${keys as string[]}) AND ${scope} ORDER BY e.id`;
      return rows.map(entityFromRow);
    },
    insertEntity,
    async insertEntities(list) {
      if (list.length === 0) return [];
      const rows = await core.q()`INSERT INTO entities (workspace_canonical, name, kind, created_at)
        SELECT w, n, k, t FROM unnest(${list.map((e) => e.workspace)}::text[],
          ${list.map((e) => e.name)}::text[], ${list.map((e) => e.kind)}::text[],
          ${list.map((e) => e.at)}::text[]) WITH ORDINALITY AS u(w, n, k, t, o)
        ORDER BY o RETURNING id`;
      // Identity values are drawn in the insert's order, so the ids sorted are the rows' ids.
      return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
    },
    getEntities,
    async entityAliases(list) {
      const rows = await core.q()`SELECT entity_id, words, count(*) AS n FROM entity_mentions
        WHERE entity_id = ANY(${ids(list)}::bigint[])
        GROUP BY entity_id, words ORDER BY entity_id, n DESC, words COLLATE "C"`;
      const out = new Map<number, string[]>();
      for (const row of rows) {
        const aliases = out.get(Number(row.entity_id)) ?? [];
        aliases.push(String(row.words));
        out.set(Number(row.entity_id), aliases);
      }
      return out;
    },
    async replaceMemoryGraph(memory, graph) {
      return await replaceGraphs(core.q(), [{ memory, graph }]);
    },
    async replaceMemoryGraphs(list) {
      return await replaceGraphs(core.q(), list);
    },
    async dropMemoryGraph(memoryId) {
      const sql = core.q();
      return await pruneEntities(sql, await dropGraphRows(sql, [memoryId]));
    },
    async entityMemoryIds(list, limit) {
      const rows = await core.q()`SELECT DISTINCT memory_id FROM entity_mentions
        WHERE entity_id = ANY(${ids(list)}::bigint[]) ORDER BY memory_id DESC LIMIT ${limit}`;
      return rows.map((row) => Number(row.memory_id));
    },
    async memoryMentions(memoryIds) {
      const rows = await core.q()`SELECT memory_id, entity_id, words, stated FROM entity_mentions
        WHERE memory_id = ANY(${ids(memoryIds)}::bigint[])
        ORDER BY memory_id, entity_id, words COLLATE "C"`;
      return mentionsByMemory(rows);
    },
    async relationsOf(list, limit) {
      const rows = await core.q()`SELECT * FROM entity_relations
        WHERE from_id = ANY(${ids(list)}::bigint[]) OR to_id = ANY(${ids(list)}::bigint[])
        ORDER BY id LIMIT ${limit}`;
      return rows.map(relationFromRow);
    },
    async relationPage(afterId, limit) {
      const rows = await core.q()`SELECT * FROM entity_relations WHERE id > ${afterId}
        ORDER BY id LIMIT ${limit}`;
      return rows.map(relationFromRow);
    },
    async entityPage(query) {
      const sql = core.q();
      const within = query.workspaces === undefined
        ? sql`TRUE`
        : sql`e.workspace_canonical = ANY(${query.workspaces as string[]})`;
      const scope = sql`${within}
        AND NOT (e.workspace_canonical = ANY(${(query.excludeWorkspaces ?? []) as string[]}))`;
      const kinds: Record<string, number> = {};
      for (
        const row of await sql`SELECT e.kind, count(*) AS n FROM entities e WHERE ${scope}
          GROUP BY e.kind`
      ) kinds[String(row.kind)] = Number(row.n);
      const ofKind = query.kind === undefined ? sql`TRUE` : sql`e.kind = ${query.kind}`;
      const [count] = await sql`SELECT count(*) AS n FROM entities e WHERE ${scope} AND ${ofKind}`;
      const rows = await sql`SELECT p.*,
          (SELECT count(DISTINCT memory_id) FROM entity_mentions m WHERE m.entity_id = p.id)
            AS mentions,
          (SELECT count(*) FROM entity_relations r WHERE r.from_id = p.id OR r.to_id = p.id)
            AS relations
        FROM (SELECT e.* FROM entities e WHERE ${scope} AND ${ofKind}
          ORDER BY e.id DESC LIMIT ${query.limit} OFFSET ${query.offset}) p
        ORDER BY p.id DESC`;
      return {
        rows: rows.map(entitySummaryFromRow),
        total: Number(count.n),
        kinds,
      };
    },
    async mergeEntities(fromId, intoId) {
      const sql = core.q();
      await sql`INSERT INTO entity_mentions (entity_id, memory_id, words, word_key, stated)
        SELECT ${intoId}, memory_id, words, word_key, stated FROM entity_mentions
        WHERE entity_id = ${fromId} ON CONFLICT DO NOTHING`;
      await sql`DELETE FROM entity_mentions WHERE entity_id = ${fromId}`;
      await sql`UPDATE entity_aliases SET entity_id = ${intoId} WHERE entity_id = ${fromId}`;
      await sql`INSERT INTO entity_relations
          (workspace_canonical, from_id, type, to_id, memory_id, origin)
        SELECT workspace_canonical,
          CASE WHEN from_id = ${fromId} THEN ${intoId}::bigint ELSE from_id END, type,
          CASE WHEN to_id = ${fromId} THEN ${intoId}::bigint ELSE to_id END, memory_id, origin
        FROM entity_relations WHERE from_id = ${fromId} OR to_id = ${fromId}
        ON CONFLICT DO NOTHING`;
      await sql`DELETE FROM entity_relations WHERE from_id = ${fromId} OR to_id = ${fromId}`;
      await sql`DELETE FROM entity_relations WHERE from_id = to_id AND from_id = ${intoId}`;
      await sql`DELETE FROM entities WHERE id = ${fromId}`;
      await pruneEntities(sql, [intoId]);
    },
    async splitEntity(entityId, split) {
      const sql = core.q();
      const entity = (await getEntities([entityId])).get(entityId)!;
      const newId = await insertEntity({ ...split, workspace: entity.workspace });
      const memories = (await sql`SELECT DISTINCT memory_id FROM entity_mentions
        WHERE entity_id = ${entityId} AND word_key = ${split.key}`).map((row) =>
        Number(row.memory_id)
      );
      await sql`UPDATE entity_mentions SET entity_id = ${newId}
        WHERE entity_id = ${entityId} AND word_key = ${split.key}`;
      await sql`UPDATE entity_aliases SET entity_id = ${newId}
        WHERE entity_id = ${entityId} AND alias_key = ${split.key}`;
      await sql`UPDATE entity_relations r SET from_id = ${newId} WHERE from_id = ${entityId}
        AND memory_id = ANY(${memories}::bigint[])
        AND NOT EXISTS (SELECT 1 FROM entity_mentions m
          WHERE m.entity_id = ${entityId} AND m.memory_id = r.memory_id)`;
      await sql`UPDATE entity_relations r SET to_id = ${newId} WHERE to_id = ${entityId}
        AND memory_id = ANY(${memories}::bigint[])
        AND NOT EXISTS (SELECT 1 FROM entity_mentions m
          WHERE m.entity_id = ${entityId} AND m.memory_id = r.memory_id)`;
      await pruneEntities(sql, [entityId, newId]);
      return newId;
    },
  };
}
