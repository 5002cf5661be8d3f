/**
 * SQL for `mema upgrade`: recognising what a SQLite file is (a mema database of some
 * generation, a memory-arbiter 0.8 / mema 0.17 database, or something else), reading it
 * read-only, and copying it into a new database of this build's generation.
 *
 * The seeds' schema is not published; it is derived from their READMEs (tables `memories`,
 * a versions table, tags and workspaces) and read by column name, tolerating the variants
 * listed here:
 * - `memories`: `id`, `content` and `subject` (or `title`) are required; `tags` (JSON array),
 *   `workspace`, `source_type`, `source_ref`, `event_time`, `ingest_time`, `confidence`,
 *   `protection_level`, `status`, `version`, `agent_id`, `client`, `metadata`,
 *   `superseded_by`, `created_at`, `updated_at` are read when present.
 * - versions: `memory_versions`, `versions` or `memory_history` with `memory_id`, `version`,
 *   `content` and optionally `subject`, `tags`, `changed_at`/`created_at`,
 *   `changed_by`/`agent_id`, `changed_by_client`/`client`, `reason`.
 * - tags: `memory_tags(memory_id, tag)`, `memory_tags(memory_id, tag_id)` with
 *   `tags(id, name)`, or `tags(memory_id, tag|name)`.
 * - `workspaces`: `canonical`/`name`/`workspace`, optionally `display`/`display_name`,
 *   `aliases` (JSON array), `state`/`status`, `redirect_to`.
 * @module
 */
import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { openConnection, type SqliteConnection } from "./sqlite_connection.ts";
import { getMeta, readGeneration } from "./schema.ts";
import { loadVecExtension } from "./vec_extension.ts";
import { ROW_SOURCE_COLUMNS, storedText } from "./evidence_sql.ts";
import type { MemoryRecord } from "./types.ts";
import { COPY_BATCH_ROWS, SQLITE_PARAMETERS_MAX } from "./constants.ts";

type Row = Record<string, unknown>;

/** What a SQLite file is. */
export type DatabaseKind =
  | { kind: "mema"; generation: number }
  | { kind: "seed"; label: string }
  | { kind: "empty" }
  | { kind: "foreign"; reason: string };

/** Derived tables a copy leaves out: they are rebuilt from `memories` (or hold no facts). */
const DERIVED_TABLES = new Set([
  "meta",
  "memory_rows",
  "jobs",
  "memories_terms_df",
  "vector_changes",
  // Kept by triggers as the rows arrive: a copied count would count them twice.
  "library_counts",
]);
const DERIVED_PREFIXES = ["memories_terms", "memory_row_vec", "memories_fts", "memories_words"];

function tableNames(db: DatabaseSync): string[] {
  return (db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).all() as { name: string }[]).map((row) => row.name);
}

function columnsOf(db: DatabaseSync, table: string): string[] {
  return (db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[])
    .map((row) => row.name);
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Recognises a seed database: a `memories` table with ids, subjects and content. */
function seedLabel(db: DatabaseSync, tables: readonly string[]): string | undefined {
  if (!tables.includes("memories")) return undefined;
  const columns = columnsOf(db, "memories");
  if (!columns.includes("id") || !columns.includes("content")) return undefined;
  if (!columns.includes("subject") && !columns.includes("title")) return undefined;
  let version: string | undefined;
  if (tables.includes("meta") && columnsOf(db, "meta").includes("key")) {
    const row = db.prepare(
      "SELECT value FROM meta WHERE key IN ('schema_version', 'schema', 'version') LIMIT 1",
    ).get() as { value: unknown } | undefined;
    if (row) version = String(row.value);
  }
  return version
    ? `a memory-arbiter / mema 0.17 database (schema ${version})`
    : "a memory-arbiter 0.8 / mema 0.17 database";
}

/**
 * What a copy reads from (`mema upgrade`, `mema copy`): the source's tables with their columns,
 * and a table's rows as arrays in the order of `columns`.
 */
export interface CopySource {
  schema(): Map<string, string[]>;
  /** The table's rows (with `pages`: the rows of the page read last). */
  iterate(table: string, columns: readonly string[]): Iterable<unknown[]>;
  /**
   * A source read over the network: reads the table a page at a time, each step making the
   * next page what {@linkcode CopySource.iterate} hands out (and yielding its row count), so
   * the table is never in memory whole. Without it, `iterate` streams the whole table.
   */
  pages?(table: string, columns: readonly string[]): AsyncIterable<number>;
}

/**
 * The embedded evidence rows of a library: its embedding space and, per row embedded in it, the
 * vector (`null`: embedded without a direction, never a neighbour).
 */
export interface CopiedVectors {
  space: string;
  rows: { rowId: number; vector: Float32Array | null }[];
}

/** A vector as sqlite-vec stores it (little-endian float32) read into a `Float32Array`. */
function vectorOfBlob(value: unknown): Float32Array | null {
  if (!(value instanceof Uint8Array)) return null;
  return new Float32Array(
    value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength),
  );
}

/** A SQLite file opened read-only for an upgrade. */
export class UpgradeSource implements CopySource {
  readonly path: string;
  readonly #connection: SqliteConnection;

  constructor(path: string) {
    this.path = path;
    this.#connection = openConnection(path, { readOnly: true, busyTimeoutMs: 2000 });
  }

  /** What the file holds. A file SQLite cannot read at all is `foreign`. */
  inspect(): DatabaseKind {
    const db = this.#connection.db;
    let tables: string[];
    try {
      tables = tableNames(db);
    } catch (error) {
      return { kind: "foreign", reason: String(error instanceof Error ? error.message : error) };
    }
    if (tables.length === 0) return { kind: "empty" };
    const generation = readGeneration(this.#connection);
    if (generation !== undefined && generation > 0) return { kind: "mema", generation };
    const label = seedLabel(db, tables);
    if (label) return { kind: "seed", label };
    return {
      kind: "foreign",
      reason: `its tables (${tables.slice(0, 8).join(", ")}${
        tables.length > 8 ? ", …" : ""
      }) are neither mema's nor a memory-arbiter / mema 0.17 database's`,
    };
  }

  /** Runs `fn` against one snapshot of the source. */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.#connection.read(fn);
  }

  /** Rows per table, for the report. */
  counts(): Record<string, number> {
    const db = this.#connection.db;
    const counts: Record<string, number> = {};
    for (const table of tableNames(db)) {
      if (DERIVED_PREFIXES.some((prefix) => table.startsWith(prefix))) continue;
      const row = db.prepare(`SELECT count(*) AS n FROM ${quote(table)}`).get() as { n: number };
      counts[table] = Number(row.n);
    }
    return counts;
  }

  /**
   * The vectors of the rows embedded in the source's embedding space; `undefined` when nothing is
   * embedded or the vector table cannot be read (sqlite-vec not loaded: call
   * {@linkcode UpgradeSource.loadVec} first).
   */
  vectors(): CopiedVectors | undefined {
    const db = this.#connection.db;
    const space = getMeta(this.#connection, "embedding_space");
    if (space === undefined) return undefined;
    try {
      const rows = db.prepare(
        `SELECT r.id AS id, v.embedding AS embedding FROM memory_rows r
         LEFT JOIN memory_row_vec v ON v.rowid = r.id
         WHERE r.embedding_space = ? ORDER BY r.id`,
      ).all(space) as { id: number; embedding: unknown }[];
      return {
        space,
        rows: rows.map((row) => ({ rowId: Number(row.id), vector: vectorOfBlob(row.embedding) })),
      };
    } catch {
      return undefined;
    }
  }

  /** Loads sqlite-vec into the read-only connection; resolves with whether it loaded. */
  async loadVec(cacheDir: string): Promise<boolean> {
    return (await loadVecExtension(this.#connection.db, { cacheDir })).loaded;
  }

  /** A named value of a mema source's `meta` table, if it has one. */
  meta(key: string): string | undefined {
    return getMeta(this.#connection, key);
  }

  /** The created-at stamp of a mema source, if it has one. */
  createdAt(): string | undefined {
    return getMeta(this.#connection, "created_at");
  }

  /** Every row of a table as objects (seed reading), in rowid order. */
  rows(table: string): Row[] {
    return this.#connection.db.prepare(`SELECT * FROM ${quote(table)}`).all() as Row[];
  }

  /** The tables of the source and their columns. */
  schema(): Map<string, string[]> {
    const db = this.#connection.db;
    return new Map(tableNames(db).map((table) => [table, columnsOf(db, table)]));
  }

  /** Fingerprints of the facts (see {@linkcode contentFingerprints}). */
  fingerprints(historyTable = "memory_history"): ContentFingerprints {
    return contentFingerprints(this.#connection.db, historyTable);
  }

  /** Iterates a table's rows for a copy. */
  iterate(table: string, columns: readonly string[]): Iterable<unknown[]> {
    // Evidence rows stored without their text (evidence_sql.ts) are copied with it, so any
    // target (PostgreSQL keeps every row's text) reads them alike.
    const withText = table === "memory_rows" && columns.includes("text");
    const rows = this.#connection.db.prepare(
      withText
        ? `SELECT ${
          columns.map((column) => `r.${quote(column)}`).join(", ")
        }, r.start_offset, r.end_offset,
             ${ROW_SOURCE_COLUMNS}
           FROM memory_rows r LEFT JOIN memories m
             ON m.id = r.memory_id AND m.version = r.memory_version`
        : `SELECT ${columns.map(quote).join(", ")} FROM ${quote(table)}`,
    ).iterate() as Iterable<Row>;
    return (function* () {
      for (const row of rows) {
        yield columns.map((column) =>
          withText && column === "text" ? storedText(row) : row[column]
        );
      }
    })();
  }

  close(): void {
    this.#connection.close();
  }
}

/** Row counts and a hash over every fact's id and content, to compare two databases. */
export interface ContentFingerprints {
  memories: { count: number; sha256: string };
  history: { count: number; sha256: string };
}

/**
 * {@linkcode fingerprintRows} fed a row at a time, for rows read in pages
 * (postgres/copy_source.ts).
 */
export class RowFingerprint {
  readonly #total = createHash("sha256");
  #count = 0;

  /** Adds the next row, in order. */
  add(row: { key: string; content: string }): void {
    const one = createHash("sha256").update(row.content).digest("hex");
    this.#total.update(`${row.key}:${one}\n`);
    this.#count++;
  }

  /** The rows' count and hash (once: the hash is final after it). */
  result(): { count: number; sha256: string } {
    return { count: this.#count, sha256: this.#total.digest("hex") };
  }
}

/** SHA-256 over `key:sha256(content)` lines in order: equal only when every text is equal. */
export function fingerprintRows(rows: Iterable<{ key: string; content: string }>): {
  count: number;
  sha256: string;
} {
  const fingerprint = new RowFingerprint();
  for (const row of rows) fingerprint.add(row);
  return fingerprint.result();
}

function contentFingerprints(db: DatabaseSync, historyTable: string): ContentFingerprints {
  const memories = db.prepare("SELECT id, content FROM memories ORDER BY id")
    .iterate() as Iterable<{ id: number; content: string }>;
  const history = db.prepare(
    `SELECT memory_id, version, content FROM ${quote(historyTable)} ORDER BY memory_id, version`,
  ).iterate() as Iterable<{ memory_id: number; version: number; content: string }>;
  return {
    memories: fingerprintRows(
      (function* () {
        for (const row of memories) yield { key: String(row.id), content: String(row.content) };
      })(),
    ),
    history: fingerprintRows(
      (function* () {
        for (const row of history) {
          yield { key: `${row.memory_id}.${row.version}`, content: String(row.content) };
        }
      })(),
    ),
  };
}

/** The tables a mema-to-mema copy carries: every table of the target the source also has. */
export function tablesToCopy(
  target: DatabaseSync,
  source: Map<string, string[]>,
  options: { evidence?: boolean } = {},
): { table: string; columns: string[] }[] {
  const order = ["memories", "memory_history"];
  const names = tableNames(target).filter((table) =>
    (!DERIVED_TABLES.has(table) || (options.evidence === true && table === "memory_rows")) &&
    !DERIVED_PREFIXES.some((prefix) => table.startsWith(prefix)) &&
    source.has(table)
  ).sort((a, b) => {
    const [ia, ib] = [order.indexOf(a), order.indexOf(b)];
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib) || (a < b ? -1 : 1);
  });
  return names.map((table) => {
    const wanted = new Set(source.get(table));
    return { table, columns: columnsOf(target, table).filter((column) => wanted.has(column)) };
  }).filter((entry) => entry.columns.length > 0);
}

/**
 * Copies rows into a table of the target (inside its write transaction). Rows already there
 * with the same key are replaced (the fresh database's own `default` workspace row).
 */
export function copyRows(
  db: DatabaseSync,
  table: string,
  columns: readonly string[],
  rows: Iterable<unknown[]>,
): number {
  // Foreign keys are checked at commit: tables arrive in name order, not dependency order.
  db.exec("PRAGMA defer_foreign_keys = ON");
  const perInsert = Math.max(
    1,
    Math.min(COPY_BATCH_ROWS, Math.floor(SQLITE_PARAMETERS_MAX / columns.length)),
  );
  const one = `(${columns.map(() => "?").join(", ")})`;
  // Rows of one statement are inserted in order, so a later row replaces an earlier as before.
  const insertOf = (count: number) =>
    db.prepare(
      `INSERT OR REPLACE INTO ${quote(table)} (${columns.map(quote).join(", ")})
       VALUES ${Array.from({ length: count }, () => one).join(", ")}`,
    );
  let full: ReturnType<DatabaseSync["prepare"]> | undefined;
  let values: unknown[] = [];
  let held = 0;
  let count = 0;
  for (const row of rows) {
    values.push(...row);
    held++;
    if (held === perInsert) {
      full ??= insertOf(perInsert);
      full.run(...(values as SqliteValue[]));
      count += held;
      values = [];
      held = 0;
    }
  }
  if (held > 0) {
    insertOf(held).run(...(values as SqliteValue[]));
    count += held;
  }
  return count;
}

/** A value a SQLite statement binds. */
type SqliteValue = string | number | bigint | null | Uint8Array;

/** Inserts a memory with its own id (a restored or upgraded fact). */
export function insertRestoredMemory(db: DatabaseSync, memory: MemoryRecord): void {
  db.exec("PRAGMA defer_foreign_keys = ON");
  db.prepare(
    `INSERT INTO memories (id, subject, content, content_sha, tags, workspace, workspace_canonical,
       source_type, source_ref, event_time, ingest_time, confidence, protection_level, status,
       version, agent_id, client, metadata, superseded_by, follows, created_at, updated_at,
       valid_from, valid_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    memory.id,
    memory.subject,
    memory.content,
    memory.contentSha,
    JSON.stringify(memory.tags),
    memory.workspace,
    memory.workspaceCanonical,
    memory.sourceType,
    memory.sourceRef,
    memory.eventTime,
    memory.ingestTime,
    memory.confidence,
    memory.protectionLevel,
    memory.status,
    memory.version,
    memory.agentId,
    memory.client,
    JSON.stringify(memory.metadata),
    memory.supersededBy,
    memory.follows,
    memory.createdAt,
    memory.updatedAt,
    memory.validFrom,
    memory.validTo,
  );
}

/** Registers (as reviewed and active) every workspace memories use that the registry lacks. */
export function registerMemoryWorkspaces(db: DatabaseSync): void {
  db.exec(
    `INSERT OR IGNORE INTO workspaces (canonical, display, state, reviewed, created_at)
     SELECT workspace_canonical, min(workspace), 'active', 1, min(created_at)
     FROM memories GROUP BY workspace_canonical`,
  );
}

/** Writes a workspace registry row (an upgraded seed's workspace), replacing one there. */
export function upsertWorkspace(
  db: DatabaseSync,
  row: { canonical: string; display: string; state: "active" | "pending"; createdAt: string },
): void {
  db.prepare(
    `INSERT INTO workspaces (canonical, display, state, reviewed, created_at)
     VALUES (?, ?, ?, 1, ?)
     ON CONFLICT(canonical) DO UPDATE SET display = excluded.display, state = excluded.state`,
  ).run(row.canonical, row.display, row.state, row.createdAt);
}

/** The target's own fingerprints. */
export function targetFingerprints(db: DatabaseSync): ContentFingerprints {
  return contentFingerprints(db, "memory_history");
}

/** Folds the WAL into the main file and empties it (the database is then one file). */
export function checkpointTruncate(db: DatabaseSync): { busy: number } {
  const row = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
  return { busy: Number(row.busy) };
}
