/**
 * The memories, their history and export pages on PostgreSQL: {@linkcode MemoriesRepository},
 * {@linkcode HistoryRepository} and {@linkcode PortabilityRepository}, answering exactly as the SQLite rooms do
 * (tests/store/rooms_contract_test.ts runs the same checks on both).
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type {
  HistoryRepository,
  MemoriesRepository,
  PortabilityRepository,
} from "../repositories.ts";
import type { MemoryPageQuery } from "../portability_sql.ts";
import {
  type IndexedFields,
  indexManyMemoryTerms,
  indexMemoryTerms,
  termsRowOwed,
} from "./word_index_room.ts";
import { PG_BULK_ROWS } from "./constants.ts";
import { selectLibraryCounts } from "./library_counts.ts";
import { overviewFromParts } from "../library_counts_sql.ts";
import type {
  HistoryEntry,
  MemoryRecord,
  MemoryStatus,
  ProtectionLevel,
  SourceType,
} from "../types.ts";

type Row = Record<string, unknown>;

/** The `memories` columns every reader selects, in {@linkcode toMemoryRecord}'s terms. */
const MEMORY_COLUMNS = `id, subject, content, content_sha, tags, workspace, workspace_canonical,
  source_type, source_ref, event_time, ingest_time, confidence, protection_level, status, version,
  agent_id, client, metadata, superseded_by, follows, created_at, updated_at, valid_from, valid_to`;

/** A memory row's fields the word index reads. */
function indexedFields(row: Row): IndexedFields {
  return {
    subject: String(row.subject),
    content: String(row.content),
    tags: row.tags as string[],
    workspaceCanonical: String(row.workspace_canonical),
  };
}

const nullableNumber = (value: unknown) => value === null ? null : Number(value);
const nullableString = (value: unknown) => value === null ? null : String(value);

/** A `memories` row as a record (frozen, as the SQLite store's cached records are). */
export function toMemoryRecord(row: Row): MemoryRecord {
  return Object.freeze({
    id: Number(row.id),
    subject: String(row.subject),
    content: String(row.content),
    contentSha: String(row.content_sha),
    tags: row.tags as string[],
    workspace: String(row.workspace),
    workspaceCanonical: String(row.workspace_canonical),
    sourceType: row.source_type as SourceType,
    sourceRef: nullableString(row.source_ref),
    eventTime: nullableString(row.event_time),
    ingestTime: String(row.ingest_time),
    validFrom: nullableString(row.valid_from),
    validTo: nullableString(row.valid_to),
    confidence: Number(row.confidence),
    protectionLevel: row.protection_level as ProtectionLevel,
    status: row.status as MemoryStatus,
    version: Number(row.version),
    agentId: String(row.agent_id),
    client: String(row.client),
    metadata: row.metadata as Record<string, unknown>,
    supersededBy: nullableNumber(row.superseded_by),
    follows: nullableNumber(row.follows),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  });
}

function toHistoryEntry(row: Row): HistoryEntry {
  return {
    memoryId: Number(row.memory_id),
    version: Number(row.version),
    subject: String(row.subject),
    content: String(row.content),
    contentSha: String(row.content_sha),
    tags: row.tags as string[],
    status: row.status as MemoryStatus,
    changedAt: String(row.changed_at),
    changedBy: String(row.changed_by),
    changedByClient: String(row.changed_by_client),
    reason: nullableString(row.reason),
    validFrom: nullableString(row.valid_from),
    validTo: nullableString(row.valid_to),
  };
}

/**
 * Refreshes the planner's statistics of `memories` when a bulk insert of `added` rows at least
 * doubled what they say the table holds (-1: never analyzed). A bulk load into a new library
 * outruns autovacuum's first analyze (it looks once a minute), and the cached plan of the next
 * calls' duplicate lookup (`findActiveByContents`) stayed the one made for an empty table, a
 * nested loop scanning `memories` once per text: 945 ms a call during bench:team's 10,000-memory
 * preload against 5 ms once analyzed (pg_stat_statements, docs/POSTGRES.md). `ANALYZE` reads a
 * bounded sample and invalidates the cached plans; it runs only while the load outgrows the table
 * (a 500-memory batch: twice at the start of a preload, never on a library of thousands).
 */
async function analyzeWhenOutgrown(core: PgCore<unknown>, added: number): Promise<void> {
  if (added === 0) return;
  const sql = core.q();
  const [row] = await sql`SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass`;
  if (Number(row.reltuples) < added) await sql`ANALYZE memories`;
}

/** The memories room over `core`'s pool. */
export function pgMemories(core: PgCore<unknown>): MemoriesRepository {
  return {
    async insertMemory(memory) {
      const terms = await termsRowOwed(core, memory);
      // One statement for the memory and its index row (the row needs the new id).
      const [row] = await core.q()`
        WITH inserted AS (
        INSERT INTO memories (subject, content, content_sha, tags, workspace, workspace_canonical,
          source_type, source_ref, event_time, ingest_time, confidence, protection_level, status,
          version, agent_id, client, metadata, follows, created_at, updated_at, valid_from,
          valid_to)
        VALUES (${memory.subject}, ${memory.content}, ${memory.contentSha},
          ${JSON.stringify(memory.tags)}::text::jsonb, ${memory.workspace},
          ${memory.workspaceCanonical}, ${memory.sourceType}, ${memory.sourceRef},
          ${memory.eventTime}, ${memory.ingestTime}, ${memory.confidence},
          ${memory.protectionLevel}, ${memory.status}, 1, ${memory.agentId}, ${memory.client},
          ${JSON.stringify(memory.metadata)}::text::json, ${memory.follows},
          ${memory.createdAt}, ${memory.updatedAt}, ${memory.validFrom}, ${memory.validTo})
        RETURNING id
        ), indexed AS (
          INSERT INTO memory_terms (memory_id, subject, tags, content, scope, size, words,
            counts)
          SELECT inserted.id, ${terms.subject}::text[], ${terms.tags}::text[],
            ${terms.content}::text[], ${terms.scope}, ${terms.size},
            array_to_tsvector(${terms.words}::text[]), ${terms.counts}::text::jsonb
          FROM inserted
        )
        SELECT id FROM inserted`;
      return Number(row.id);
    },
    async insertMemories(list) {
      const ids: number[] = [];
      for (let at = 0; at < list.length; at += PG_BULK_ROWS) {
        const chunk = list.slice(at, at + PG_BULK_ROWS);
        const rows = chunk.map((memory, ord) => ({
          ord,
          subject: memory.subject,
          content: memory.content,
          content_sha: memory.contentSha,
          tags: memory.tags,
          workspace: memory.workspace,
          workspace_canonical: memory.workspaceCanonical,
          source_type: memory.sourceType,
          source_ref: memory.sourceRef,
          event_time: memory.eventTime,
          ingest_time: memory.ingestTime,
          confidence: memory.confidence,
          protection_level: memory.protectionLevel,
          status: memory.status,
          agent_id: memory.agentId,
          client: memory.client,
          // Its text, as the one-row insert stores it (a json column keeps the text).
          metadata: JSON.stringify(memory.metadata),
          follows: memory.follows,
          created_at: memory.createdAt,
          updated_at: memory.updatedAt,
          valid_from: memory.validFrom,
          valid_to: memory.validTo,
        }));
        // Identity values are drawn in the insert's order, so the ids sorted are the rows' ids.
        const inserted = await core.q()`
          INSERT INTO memories (subject, content, content_sha, tags, workspace,
            workspace_canonical, source_type, source_ref, event_time, ingest_time, confidence,
            protection_level, status, version, agent_id, client, metadata, follows, created_at,
            updated_at, valid_from, valid_to)
          SELECT subject, content, content_sha, tags, workspace, workspace_canonical,
            source_type, source_ref, event_time, ingest_time, confidence, protection_level,
            status, 1, agent_id, client, metadata::json, follows, created_at, updated_at,
            valid_from, valid_to
          FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS r(ord int,
            subject text, content text, content_sha text, tags jsonb, workspace text,
            workspace_canonical text, source_type text, source_ref text, event_time text,
            ingest_time text, confidence float8, protection_level text, status text,
            agent_id text, client text, metadata text, follows bigint, created_at text,
            updated_at text, valid_from text, valid_to text)
          ORDER BY ord
          RETURNING id`;
        const chunkIds = inserted.map((row) => Number(row.id)).sort((a, b) => a - b);
        await indexManyMemoryTerms(
          core,
          chunk.map((memory, i) => ({ id: chunkIds[i], fields: memory })),
        );
        ids.push(...chunkIds);
      }
      await analyzeWhenOutgrown(core, ids.length);
      return ids;
    },
    async getMemory(id) {
      const sql = core.q();
      const [row] = await sql`SELECT ${sql.unsafe(MEMORY_COLUMNS)} FROM memories WHERE id = ${id}`;
      return row ? toMemoryRecord(row) : undefined;
    },
    async getMemories(ids) {
      const found = new Map<number, MemoryRecord>();
      if (ids.length === 0) return found;
      const sql = core.q();
      const rows = await sql`SELECT ${sql.unsafe(MEMORY_COLUMNS)} FROM memories
        WHERE id = ANY(${ids as number[]}::bigint[])`;
      for (const row of rows) {
        const record = toMemoryRecord(row);
        found.set(record.id, record);
      }
      return found;
    },
    async contentsOf(ids) {
      const found = new Map<number, string>();
      if (ids.length === 0) return found;
      const rows = await core.q()`SELECT id, content FROM memories
        WHERE id = ANY(${ids as number[]}::bigint[])`;
      for (const row of rows) found.set(Number(row.id), String(row.content));
      return found;
    },
    async findActiveByContent(workspaceCanonical, contentSha) {
      const sql = core.q();
      const [row] = await sql`SELECT ${sql.unsafe(MEMORY_COLUMNS)} FROM memories
        WHERE workspace_canonical = ${workspaceCanonical} AND content_sha = ${contentSha}
          AND status = 'active'`;
      return row ? toMemoryRecord(row) : undefined;
    },
    async findActiveByContents(texts) {
      if (texts.length === 0) return [];
      const sql = core.q();
      const rows = await sql`SELECT u.n, ${sql.unsafe(MEMORY_COLUMNS)}
        FROM unnest(${texts.map((t) => t.workspaceCanonical)}::text[],
          ${texts.map((t) => t.contentSha)}::text[]) WITH ORDINALITY AS u(ws, sha, n)
        JOIN memories m ON m.workspace_canonical = u.ws AND m.content_sha = u.sha
          AND m.status = 'active'`;
      const found: (MemoryRecord | undefined)[] = texts.map(() => undefined);
      for (const row of rows) found[Number(row.n) - 1] = toMemoryRecord(row);
      return found;
    },
    async changeMemory(id, change) {
      const sql = core.q();
      const indexed = change.subject !== undefined || change.content !== undefined ||
        change.tags !== undefined;
      const [before] = indexed
        ? await sql`SELECT subject, content, tags, workspace_canonical FROM memories
          WHERE id = ${id}`
        : [];
      const sets = [sql`updated_at = ${change.updatedAt}`];
      if (change.subject !== undefined) sets.push(sql`subject = ${change.subject}`);
      if (change.content !== undefined) sets.push(sql`content = ${change.content}`);
      if (change.contentSha !== undefined) sets.push(sql`content_sha = ${change.contentSha}`);
      if (change.tags !== undefined) {
        sets.push(sql`tags = ${JSON.stringify(change.tags)}::text::jsonb`);
      }
      if (change.version !== undefined) sets.push(sql`version = ${change.version}`);
      if (change.validFrom !== undefined) sets.push(sql`valid_from = ${change.validFrom}`);
      if (change.validTo !== undefined) sets.push(sql`valid_to = ${change.validTo}`);
      const list = sets.reduce((all, set) => sql`${all}, ${set}`);
      const [after] = await sql`UPDATE memories SET ${list} WHERE id = ${id}
        RETURNING subject, content, tags, workspace_canonical`;
      if (before && after) {
        await indexMemoryTerms(core, id, indexedFields(after), indexedFields(before));
      }
    },
    async setStatus(id, change) {
      await core.q()`UPDATE memories SET status = ${change.status},
        superseded_by = ${change.supersededBy}, updated_at = ${change.now} WHERE id = ${id}`;
    },
    async setTrust(id, change) {
      await core.q()`UPDATE memories SET source_type = ${change.sourceType},
        protection_level = ${change.protectionLevel}, updated_at = ${change.now}
        WHERE id = ${id}`;
    },
    async setMetadata(id, metadata) {
      await core.q()`UPDATE memories SET metadata = ${JSON.stringify(metadata)}::text::json
        WHERE id = ${id}`;
    },
    async countByStatus(workspace) {
      const counts: Record<string, number> = {};
      const parts = workspace === undefined
        ? await selectLibraryCounts(core.q(), "memories")
        : (await selectLibraryCounts(core.q(), "workspaces")).filter((p) => p.kind === workspace);
      for (const part of parts) counts[part.status] = part.n;
      return counts;
    },
    async overviewCounts(workspace) {
      const sql = core.q();
      return overviewFromParts({
        workspaces: await selectLibraryCounts(sql, "workspaces"),
        sources: await selectLibraryCounts(sql, "sources"),
        protections: await selectLibraryCounts(sql, "protections"),
      }, workspace);
    },
    async supersededBy(memoryId) {
      const rows = await core.q()`SELECT id FROM memories WHERE superseded_by = ${memoryId}
        ORDER BY id`;
      return rows.map((row) => Number(row.id));
    },
  };
}

const HISTORY_COLUMNS = `memory_id, version, subject, content, content_sha, tags, status,
  changed_at, changed_by, changed_by_client, reason, valid_from, valid_to`;

/** The history room over `core`'s pool. */
export function pgHistory(core: PgCore<unknown>): HistoryRepository {
  return {
    async appendHistory(entry) {
      await core.q()`
        INSERT INTO memory_history (memory_id, version, subject, content, content_sha, tags,
          status, changed_at, changed_by, changed_by_client, reason, valid_from, valid_to)
        VALUES (${entry.memoryId}, ${entry.version}, ${entry.subject}, ${entry.content},
          ${entry.contentSha}, ${JSON.stringify(entry.tags)}::text::jsonb, ${entry.status},
          ${entry.changedAt}, ${entry.changedBy}, ${entry.changedByClient}, ${entry.reason},
          ${entry.validFrom}, ${entry.validTo})`;
    },
    async listHistory(memoryId) {
      const sql = core.q();
      const rows = await sql`SELECT ${sql.unsafe(HISTORY_COLUMNS)} FROM memory_history
        WHERE memory_id = ${memoryId} ORDER BY version`;
      return rows.map(toHistoryEntry);
    },
    async countHistory() {
      const parts = await selectLibraryCounts(core.q(), "history");
      return parts.reduce((sum, part) => sum + part.n, 0);
    },
    async deleteHistory(memoryId, versions) {
      if (versions.length === 0) return [];
      const rows = await core.q()`DELETE FROM memory_history
        WHERE memory_id = ${memoryId} AND version = ANY(${versions as number[]}::int[])
        RETURNING version`;
      const removed = new Set(rows.map((row) => Number(row.version)));
      // In the order asked, each once, as the SQLite room answers.
      return versions.filter((version) => removed.delete(version));
    },
    async historyOf(memoryIds) {
      const out = new Map<number, HistoryEntry[]>();
      if (memoryIds.length === 0) return out;
      const sql = core.q();
      const rows = await sql`SELECT ${sql.unsafe(HISTORY_COLUMNS)} FROM memory_history
        WHERE memory_id = ANY(${memoryIds as number[]}::bigint[]) ORDER BY memory_id, version`;
      for (const row of rows) {
        const entry = toHistoryEntry(row);
        const list = out.get(entry.memoryId) ?? [];
        list.push(entry);
        out.set(entry.memoryId, list);
      }
      return out;
    },
  };
}

/** The export and import reads over `core`'s pool. */
export function pgPortability(core: PgCore<unknown>): PortabilityRepository {
  const pageWhere = (sql: PgQuery, query: Omit<MemoryPageQuery, "limit" | "afterId">) =>
    query.workspaces === undefined
      ? sql`status = ANY(${query.statuses as string[]}::text[])`
      : sql`status = ANY(${query.statuses as string[]}::text[])
        AND workspace_canonical = ANY(${query.workspaces as string[]}::text[])`;
  return {
    async memoryPage(query) {
      const sql = core.q();
      const rows = await sql`SELECT ${sql.unsafe(MEMORY_COLUMNS)} FROM memories
        WHERE id > ${query.afterId} AND ${pageWhere(sql, query)} ORDER BY id LIMIT ${query.limit}`;
      return rows.map(toMemoryRecord);
    },
    async countMemories(query) {
      const sql = core.q();
      const [row] = await sql`SELECT count(*) AS n FROM memories WHERE ${pageWhere(sql, query)}`;
      return Number(row.n);
    },
    async findActiveBySourceRef(workspaceCanonical, sourceRef) {
      const sql = core.q();
      const [row] = await sql`SELECT ${sql.unsafe(MEMORY_COLUMNS)} FROM memories
        WHERE workspace_canonical = ${workspaceCanonical} AND source_ref = ${sourceRef}
          AND status = 'active' ORDER BY id DESC LIMIT 1`;
      return row ? toMemoryRecord(row) : undefined;
    },
  };
}
