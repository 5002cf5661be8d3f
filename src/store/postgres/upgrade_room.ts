/**
 * Copying a SQLite library into PostgreSQL: {@linkcode UpgradeRepository}, the store's half of
 * `mema upgrade` and the coming `mema copy` (src/store/upgrade_sql.ts says what is copied and
 * what is derived and rebuilt). Columns are matched by name; a SQLite JSON text becomes `json` or
 * `jsonb`, a 0/1 flag a `boolean`, as the target column's type says. Foreign keys wait for the
 * commit (they are `DEFERRABLE`), and each identity sequence moves past the ids copied in.
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { UpgradeRepository } from "../repositories.ts";
import { fingerprintRows } from "../upgrade_sql.ts";
import { indexMemoriesInBulk, recountTerms } from "./word_index_room.ts";
import { PG_BULK_ROWS, PG_PARAMETERS_MAX } from "./constants.ts";

/** Tables rebuilt from the copied ones, never copied (as on SQLite), and the bookkeeping. */
const DERIVED_TABLES = new Set([
  "meta",
  "memory_rows",
  "memory_row_vectors",
  "vector_changes",
  "jobs",
  "memory_terms",
  "memory_terms_df",
  "memory_terms_size",
  "memory_postings",
  "schema_version",
  // Kept by triggers as the rows arrive (library_counts.ts): a copied count would count twice.
  "library_counts",
  "library_count_shards",
]);

/** Memories indexed per statement when the word index is rebuilt. */
const REBUILD_PAGE = 1_000;

/** Memories first, then their history, then the rest by name (as on SQLite). */
const COPY_FIRST = ["memories", "memory_history"];

/** The target's tables and each column's type, from the catalog. */
async function targetColumns(sql: PgQuery): Promise<Map<string, Map<string, string>>> {
  const rows = await sql`SELECT table_name, column_name, data_type FROM information_schema.columns
    WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`;
  const tables = new Map<string, Map<string, string>>();
  for (const row of rows) {
    const columns = tables.get(String(row.table_name)) ?? new Map<string, string>();
    columns.set(String(row.column_name), String(row.data_type));
    tables.set(String(row.table_name), columns);
  }
  return tables;
}

/** A SQLite value as the target column takes it. */
function convert(value: unknown, type: string): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (type === "boolean") return Number(value) !== 0;
  if (typeof value === "number" || typeof value === "string") return value;
  // SQLite's big integers, and anything else, as text the column parses.
  return String(value);
}

/** The upgrade room over `core`'s pool. */
export function pgUpgrade(core: PgCore<unknown>): UpgradeRepository {
  return {
    async tablesToCopyFrom(source, options = {}) {
      const schema = source.schema();
      const target = await targetColumns(core.q());
      const names = [...target.keys()].filter((table) =>
        (!DERIVED_TABLES.has(table) || (options.evidence === true && table === "memory_rows")) &&
        schema.has(table)
      ).sort((a, b) => {
        const [ia, ib] = [COPY_FIRST.indexOf(a), COPY_FIRST.indexOf(b)];
        const rank = (i: number) => i < 0 ? COPY_FIRST.length : i;
        return rank(ia) - rank(ib) || (a < b ? -1 : 1);
      });
      return names.map((table) => {
        const wanted = new Set(schema.get(table));
        return {
          table,
          columns: [...target.get(table)!.keys()].filter((column) => wanted.has(column)),
        };
      }).filter((entry) => entry.columns.length > 0);
    },
    async copyTableFrom(source, table, columns) {
      const sql = core.q();
      const types = (await targetColumns(sql)).get(table);
      if (types === undefined) throw new Error(`no table ${table} to copy into`);
      await sql`SET CONSTRAINTS ALL DEFERRED`;
      const [pk] = await sql`SELECT array_agg(a.attname::text) AS columns FROM pg_index i
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = ${table}::regclass AND i.indisprimary`;
      const keys = (pk?.columns ?? []) as string[];
      const rest = columns.filter((column) => !keys.includes(column));
      // A row already there (the default workspace) is replaced, as SQLite's INSERT OR REPLACE.
      const onConflict = keys.length === 0
        ? sql``
        : rest.length === 0
        ? sql`ON CONFLICT DO NOTHING`
        : sql`ON CONFLICT (${sql(keys)}) DO UPDATE SET ${
          rest.map((column) => sql`${sql(column)} = excluded.${sql(column)}`)
            .reduce((all, set) => sql`${all}, ${set}`)
        }`;
      const identity = await sql`SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ${table}
          AND is_identity = 'YES' AND identity_generation = 'ALWAYS'`;
      const overriding = identity.length > 0 && columns.includes(String(identity[0].column_name))
        ? sql`OVERRIDING SYSTEM VALUE`
        : sql``;
      // Many rows per statement (one round trip each), within the protocol's parameter limit.
      const perStatement = Math.max(
        1,
        Math.min(PG_BULK_ROWS, Math.floor(PG_PARAMETERS_MAX / columns.length)),
      );
      const insert = async (rows: unknown[][]) => {
        const tuples = rows.map((row) => {
          const values = columns.map((column, index) => {
            const type = types.get(column)!;
            const value = convert(row[index], type);
            return type === "json" || type === "jsonb"
              ? sql`${value === null ? null : String(value)}::text::${sql.unsafe(type)}`
              : sql`${value}`;
          });
          return sql`(${values.reduce((all, value) => sql`${all}, ${value}`)})`;
        });
        await sql`INSERT INTO ${sql(table)} (${sql(columns)}) ${overriding}
          VALUES ${tuples.reduce((all, tuple) => sql`${all}, ${tuple}`)} ${onConflict}`;
      };
      let count = 0;
      let pending: unknown[][] = [];
      for (const row of source.iterate(table, columns)) {
        pending.push(row as unknown[]);
        count++;
        if (pending.length >= perStatement) {
          await insert(pending);
          pending = [];
        }
      }
      if (pending.length > 0) await insert(pending);
      // The next id a server hands out follows the ids copied in.
      for (
        const { column_name } of await sql`SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table}
            AND is_identity = 'YES'`
      ) {
        await sql`SELECT setval(pg_get_serial_sequence(${table}, ${column_name}),
          (SELECT coalesce(max(${sql(String(column_name))}), 0) + 1 FROM ${sql(table)}), false)`;
      }
      return count;
    },
    async restoreMemory(memory) {
      const sql = core.q();
      await sql`SET CONSTRAINTS ALL DEFERRED`;
      await sql`INSERT INTO memories (id, subject, content, content_sha, tags, workspace,
          workspace_canonical, source_type, source_ref, event_time, ingest_time, confidence,
          protection_level, status, version, agent_id, client, metadata, superseded_by, follows,
          created_at, updated_at, valid_from, valid_to)
        VALUES (${memory.id}, ${memory.subject}, ${memory.content}, ${memory.contentSha},
          ${JSON.stringify(memory.tags)}::text::jsonb, ${memory.workspace},
          ${memory.workspaceCanonical}, ${memory.sourceType}, ${memory.sourceRef},
          ${memory.eventTime}, ${memory.ingestTime}, ${memory.confidence},
          ${memory.protectionLevel}, ${memory.status}, ${memory.version}, ${memory.agentId},
          ${memory.client}, ${JSON.stringify(memory.metadata)}::text::json,
          ${memory.supersededBy}, ${memory.follows}, ${memory.createdAt}, ${memory.updatedAt},
          ${memory.validFrom}, ${memory.validTo})`;
      await sql`SELECT setval(pg_get_serial_sequence('memories', 'id'),
        (SELECT coalesce(max(id), 0) + 1 FROM memories), false)`;
    },
    async restoreWorkspace(row) {
      await core.q()`INSERT INTO workspaces (canonical, display, state, reviewed, created_at)
        VALUES (${row.canonical}, ${row.display}, ${row.state}, true, ${row.createdAt})
        ON CONFLICT (canonical) DO UPDATE SET display = excluded.display,
          state = excluded.state`;
    },
    async registerMemoryWorkspaces() {
      await core.q()`INSERT INTO workspaces (canonical, display, state, reviewed, created_at)
        SELECT workspace_canonical, min(workspace COLLATE "C"), 'active', true,
          min(created_at COLLATE "C")
        FROM memories GROUP BY workspace_canonical
        ON CONFLICT (canonical) DO NOTHING`;
    },
    async rebuildWordIndex() {
      const sql = core.q();
      await sql`DELETE FROM memory_terms`;
      // Whatever this unit indexed before is indexed again below, and recounted.
      core.termCounts()?.clear();
      // Keyset pages: a large library is never read whole into memory.
      let after = 0;
      let indexed = 0;
      for (;;) {
        const rows = await sql`SELECT id, subject, content, tags, workspace_canonical
          FROM memories WHERE status != 'deleted' AND id > ${after}
          ORDER BY id LIMIT ${REBUILD_PAGE}`;
        if (rows.length === 0) break;
        await indexMemoriesInBulk(
          sql,
          rows.map((row) => ({
            id: Number(row.id),
            subject: String(row.subject),
            content: String(row.content),
            tags: row.tags as string[],
            workspaceCanonical: String(row.workspace_canonical),
          })),
        );
        indexed += rows.length;
        after = Number(rows[rows.length - 1].id);
      }
      await recountTerms(sql);
      return indexed;
    },
    async contentFingerprints() {
      const sql = core.q();
      const memories = await sql`SELECT id, content FROM memories ORDER BY id`;
      const history = await sql`SELECT memory_id, version, content FROM memory_history
        ORDER BY memory_id, version`;
      return {
        memories: fingerprintRows(
          memories.map((row) => ({ key: String(row.id), content: String(row.content) })),
        ),
        history: fingerprintRows(history.map((row) => ({
          key: `${row.memory_id}.${row.version}`,
          content: String(row.content),
        }))),
      };
    },
  };
}
