/**
 * The entity graph's rows as records, the same on both backends: SQLite and PostgreSQL
 * select the same columns (src/store/entities_sql.ts, src/store/postgres/entities_room.ts), and
 * only the driver's value types differ (PostgreSQL gives bigint counts as strings), which the
 * `Number`/`String` reads here even out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entityFromRow, mentionsByMemory } from "./entity_rows.ts";
 *
 * const entity = entityFromRow({
 *   id: "7", workspace_canonical: "ops", name: "Alice", kind: "person", created_at: "2025-01-01",
 * });
 * assert.equal(entity.id, 7);
 * const mentions = mentionsByMemory([{ memory_id: 3, entity_id: 7, words: "Alice", stated: 0 }]);
 * assert.deepEqual(mentions.get(3), [{ entityId: 7, words: "Alice", stated: false }]);
 * ```
 * @module
 */
import type {
  EntityRecord,
  EntitySummary,
  MentionRecord,
  RelationOrigin,
  RelationRecord,
} from "./entities_sql.ts";

type Row = Record<string, unknown>;

/** An `entities` row. */
export function entityFromRow(row: Row): EntityRecord {
  return {
    id: Number(row.id),
    workspace: String(row.workspace_canonical),
    name: String(row.name),
    kind: String(row.kind),
    createdAt: String(row.created_at),
  };
}

/** An `entities` row with its `mentions` and `relations` counts (a listing's row). */
export function entitySummaryFromRow(row: Row): EntitySummary {
  return {
    ...entityFromRow(row),
    mentions: Number(row.mentions),
    relations: Number(row.relations),
  };
}

/** An `entity_relations` row. */
export function relationFromRow(row: Row): RelationRecord {
  return {
    id: Number(row.id),
    workspace: String(row.workspace_canonical),
    fromId: Number(row.from_id),
    type: String(row.type),
    toId: Number(row.to_id),
    memoryId: Number(row.memory_id),
    origin: row.origin as RelationOrigin,
  };
}

/** `entity_mentions` rows (memory_id, entity_id, words, stated) grouped by memory, in order. */
export function mentionsByMemory(rows: readonly Row[]): Map<number, MentionRecord[]> {
  const out = new Map<number, MentionRecord[]>();
  for (const row of rows) {
    const list = out.get(Number(row.memory_id)) ?? [];
    list.push({
      entityId: Number(row.entity_id),
      words: String(row.words),
      stated: Number(row.stated) === 1,
    });
    out.set(Number(row.memory_id), list);
  }
  return out;
}
