/**
 * A PostgreSQL database read as the source of `mema copy`: one `REPEATABLE READ READ ONLY`
 * transaction (one snapshot, nothing written, no migration run) held from
 * {@linkcode PostgresCopySource.load} to {@linkcode PostgresCopySource.close}, whose tables are
 * read a page at a time through a cursor ({@linkcode PostgresCopySource.pages}), as SQLite
 * takes their values (a flag as 0/1, JSON as its text): a SQLite unit of work copies each page
 * without awaiting the network in the middle of it, and no table is ever in memory whole. The
 * content fingerprints are hashed page by page too. The vectors of the embedded rows are still
 * read whole (the copy writes them after the tables).
 *
 * @module
 */
import type { Sql, TransactionSql } from "postgres";
import { connectPostgres } from "./connect.ts";
import { PG_COPY_PAGE_ROWS } from "./constants.ts";
import {
  type ContentFingerprints,
  type CopiedVectors,
  type CopySource,
  RowFingerprint,
} from "../upgrade_sql.ts";

/** A value as a SQLite column holds it. */
function sqliteValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

/** An open snapshot of a PostgreSQL database; {@linkcode PostgresCopySource.load} opens it. */
export class PostgresCopySource implements CopySource {
  readonly #sql: Sql;
  readonly #schema: Map<string, string[]>;
  readonly #counts = new Map<string, number>();
  /** The page {@linkcode PostgresCopySource.pages} read last. */
  #page: { table: string; columns: string[]; rows: unknown[][] } | undefined;
  #fingerprints?: ContentFingerprints;
  #vectors?: CopiedVectors;
  readonly #meta: Map<string, string>;
  readonly #pageRows: number;
  /** The snapshot's transaction, open from `load` until `close`. */
  #tx: TransactionSql | undefined;
  #endSnapshot: (() => void) | undefined;
  #snapshotEnded: Promise<unknown> | undefined;

  private constructor(
    sql: Sql,
    read: { schema: Map<string, string[]>; meta: Map<string, string> },
    pageRows: number,
  ) {
    this.#sql = sql;
    this.#schema = read.schema;
    this.#meta = read.meta;
    this.#pageRows = pageRows;
  }

  /**
   * Connects to `url` and reads its schema; throws when it holds no mema library. `pageRows`:
   * rows per page (default {@linkcode PG_COPY_PAGE_ROWS}).
   */
  static async open(
    url: string,
    options: { pageRows?: number } = {},
  ): Promise<PostgresCopySource> {
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
      return new PostgresCopySource(sql, read, options.pageRows ?? PG_COPY_PAGE_ROWS);
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw error;
    }
  }

  /**
   * Opens the snapshot the copy reads (servers may go on writing meanwhile): counts the rows of
   * `tables`, hashes the content fingerprints and reads the vectors, all in it; the rows
   * themselves are read later, a page at a time.
   */
  async load(tables: readonly { table: string; columns: string[] }[]): Promise<void> {
    const tx = await this.#openSnapshot();
    const memories = new RowFingerprint();
    for await (
      const page of tx`SELECT id, content FROM memories ORDER BY id`.cursor(this.#pageRows)
    ) {
      for (const row of page) memories.add({ key: String(row.id), content: String(row.content) });
    }
    const history = new RowFingerprint();
    for await (
      const page of tx`SELECT memory_id, version, content FROM memory_history
        ORDER BY memory_id, version`.cursor(this.#pageRows)
    ) {
      for (const row of page) {
        history.add({ key: `${row.memory_id}.${row.version}`, content: String(row.content) });
      }
    }
    this.#fingerprints = { memories: memories.result(), history: history.result() };
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
    for (const { table } of tables) {
      const [row] = await tx`SELECT count(*) AS n FROM ${tx(table)}`;
      this.#counts.set(table, Number(row.n));
    }
  }

  /** Begins the snapshot's transaction and keeps it open until {@linkcode close}. */
  async #openSnapshot(): Promise<TransactionSql> {
    if (this.#tx !== undefined) return this.#tx;
    const ended = new Promise<void>((resolve) => this.#endSnapshot = resolve);
    const opened = new Promise<TransactionSql>((resolve, reject) => {
      this.#snapshotEnded = this.#sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", (tx) => {
        resolve(tx);
        return ended;
      }).catch((error) => reject(error));
    });
    this.#tx = await opened;
    return this.#tx;
  }

  /**
   * Reads `table` a page at a time (a cursor in the snapshot), each step making the next page
   * what {@linkcode iterate} hands out, and yielding its row count.
   */
  async *pages(table: string, columns: readonly string[]): AsyncIterable<number> {
    const tx = await this.#openSnapshot();
    const wanted = [...columns];
    try {
      for await (
        const page of tx`SELECT ${tx(wanted)} FROM ${tx(table)}`.cursor(this.#pageRows)
      ) {
        this.#page = {
          table,
          columns: wanted,
          rows: page.map((row) => wanted.map((column) => sqliteValue(row[column]))),
        };
        yield page.length;
      }
    } finally {
      this.#page = undefined;
    }
  }

  schema(): Map<string, string[]> {
    return this.#schema;
  }

  /** The rows of the page {@linkcode pages} read last, with `columns` (a subset) in order. */
  iterate(table: string, columns: readonly string[]): Iterable<unknown[]> {
    const page = this.#page;
    if (page === undefined || page.table !== table) {
      throw new Error(`no page of ${table} was read (PostgresCopySource.pages)`);
    }
    const at = columns.map((column) => page.columns.indexOf(column));
    if (at.some((index) => index < 0)) throw new Error(`columns of ${table} were not read`);
    return page.rows.map((row) => at.map((index) => row[index]));
  }

  /** Rows of a table, counted by {@linkcode load} in the snapshot. */
  rowCount(table: string): number {
    return this.#counts.get(table) ?? 0;
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
    this.#endSnapshot?.();
    await this.#snapshotEnded?.catch(() => {});
    await this.#sql.end({ timeout: 1 }).catch(() => {});
  }
}
