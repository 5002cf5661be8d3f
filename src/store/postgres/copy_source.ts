/**
 * A PostgreSQL database read as the source of `mema copy`: one `REPEATABLE READ READ ONLY`
 * transaction (one snapshot, nothing written, no migration run), whose tables are read whole into
 * memory as SQLite takes their values (a flag as 0/1, JSON as its text), so a SQLite unit of work
 * can copy them without awaiting the network inside it.
 *
 * @module
 */
import type { Sql } from "postgres";
import { connectPostgres } from "./connect.ts";
import {
  type ContentFingerprints,
  type CopiedVectors,
  type CopySource,
  fingerprintRows,
} from "../upgrade_sql.ts";

/** A value as a SQLite column holds it. */
function sqliteValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

/** An open snapshot of a PostgreSQL database; {@linkcode PostgresCopySource.load} the tables. */
export class PostgresCopySource implements CopySource {
  readonly #sql: Sql;
  readonly #schema: Map<string, string[]>;
  readonly #rows = new Map<string, { columns: string[]; rows: unknown[][] }>();
  #fingerprints?: ContentFingerprints;
  #vectors?: CopiedVectors;
  readonly #meta: Map<string, string>;

  private constructor(sql: Sql, schema: Map<string, string[]>, meta: Map<string, string>) {
    this.#sql = sql;
    this.#schema = schema;
    this.#meta = meta;
  }

  /** Connects to `url` and reads its schema; throws when it holds no mema library. */
  static async open(url: string): Promise<PostgresCopySource> {
    const sql = await connectPostgres(url, { max: 1 });
    try {
      const read = await sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
        const columns = await tx`SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`;
        const schema = new Map<string, string[]>();
        for (const row of columns) {
          const table = String(row.table_name);
          schema.set(table, [...(schema.get(table) ?? []), String(row.column_name)]);
        }
        if (!schema.has("memories") || !schema.has("memory_history") || !schema.has("meta")) {
          return undefined;
        }
        const meta = await tx`SELECT key, value FROM meta`;
        return { schema, meta: new Map(meta.map((row) => [String(row.key), String(row.value)])) };
      });
      if (read === undefined) throw new Error("it holds no mema library (no memories table)");
      return new PostgresCopySource(sql, read.schema, read.meta);
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw error;
    }
  }

  /**
   * Reads the rows of `tables` and the content fingerprints in one snapshot (servers may go on
   * writing meanwhile), so {@linkcode iterate} can hand them out.
   */
  async load(tables: readonly { table: string; columns: string[] }[]): Promise<void> {
    await this.#sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
      const memories = await tx`SELECT id, content FROM memories ORDER BY id`;
      const history = await tx`SELECT memory_id, version, content FROM memory_history
        ORDER BY memory_id, version`;
      this.#fingerprints = {
        memories: fingerprintRows(
          memories.map((row) => ({ key: String(row.id), content: String(row.content) })),
        ),
        history: fingerprintRows(history.map((row) => ({
          key: `${row.memory_id}.${row.version}`,
          content: String(row.content),
        }))),
      };
      const space = this.#meta.get("embedding_space");
      if (space !== undefined && this.#schema.has("memory_row_vectors")) {
        const rows = await tx`SELECT r.id, v.embedding FROM memory_rows r
          LEFT JOIN memory_row_vectors v ON v.row_id = r.id
          WHERE r.embedding_space = ${space} ORDER BY r.id`;
        this.#vectors = {
          space,
          rows: rows.map((row) => ({
            rowId: Number(row.id),
            vector: Array.isArray(row.embedding)
              ? Float32Array.from(row.embedding as unknown[], Number)
              : null,
          })),
        };
      }
      for (const { table, columns } of tables) {
        const rows = await tx`SELECT ${tx(columns)} FROM ${tx(table)}`;
        this.#rows.set(table, {
          columns,
          rows: rows.map((row) => columns.map((column) => sqliteValue(row[column]))),
        });
      }
    });
  }

  schema(): Map<string, string[]> {
    return this.#schema;
  }

  /** A loaded table's rows, with `columns` (a subset of those loaded) in their order. */
  iterate(table: string, columns: readonly string[]): Iterable<unknown[]> {
    const loaded = this.#rows.get(table);
    if (loaded === undefined) throw new Error(`table ${table} was not loaded before the copy`);
    const at = columns.map((column) => loaded.columns.indexOf(column));
    if (at.some((index) => index < 0)) throw new Error(`columns of ${table} were not loaded`);
    return loaded.rows.map((row) => at.map((index) => row[index]));
  }

  /** Rows of a loaded table. */
  rowCount(table: string): number {
    return this.#rows.get(table)?.rows.length ?? 0;
  }

  /** The fingerprints of the snapshot {@linkcode load} read. */
  fingerprints(): ContentFingerprints {
    if (this.#fingerprints === undefined) throw new Error("the source was not loaded");
    return this.#fingerprints;
  }

  /** The vectors of the rows embedded in the source's space, read by {@linkcode load}. */
  vectors(): CopiedVectors | undefined {
    return this.#vectors;
  }

  /** A named value of the source's `meta` table. */
  meta(key: string): string | undefined {
    return this.#meta.get(key);
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 1 }).catch(() => {});
  }
}
