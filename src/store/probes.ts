/**
 * What `mema doctor` and `mema setup` ask of SQLite without opening the store: the probe of an
 * existing file (read-only, never creates, migrates or writes), whether this SQLite has FTS5 of
 * the word index's shape, and whether sqlite-vec loads.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import * as memories from "./memories_sql.ts";
import * as conflicts from "./conflicts_sql.ts";
import * as evidence from "./evidence_sql.ts";
import * as jobs from "./jobs_sql.ts";
import * as terms from "./terms_sql.ts";
import * as upgrade from "./upgrade_sql.ts";
import { FTS_WORDS, getMeta, readGeneration } from "./schema.ts";
import { openConnection } from "./sqlite_connection.ts";
import { extractVecExtension } from "./vec_extension.ts";

/** What the SQLite file at `path` is (read-only; `foreign` when SQLite cannot read it). */
export function inspectDatabase(path: string): upgrade.DatabaseKind {
  let source: upgrade.UpgradeSource;
  try {
    source = new upgrade.UpgradeSource(path);
  } catch (error) {
    return { kind: "foreign", reason: String(error instanceof Error ? error.message : error) };
  }
  try {
    return source.inspect();
  } finally {
    source.close();
  }
}

/** A read-only view for `mema doctor`: never creates, migrates or writes. */
export interface DatabaseProbe {
  generation: number | undefined;
  fts: string | undefined;
  counts: Record<string, number>;
  ftsRows: number | undefined;
  /** Generation 5+: rows of the stemmed word index. */
  wordRows?: number;
  quickCheck?: string;
  /** Generation 2+: evidence and job facts. */
  evidence?: {
    space: string | undefined;
    vecDim: number | undefined;
    rows: number;
    embedded: number;
    memoriesMissingRows: number;
    jobs: Record<string, Record<string, number>>;
  };
  /** Generation 4+: conflict backlog. */
  conflicts?: ReturnType<typeof conflicts.countConflictBacklog>;
  /** When the schema was first prepared (ISO 8601); absent in older databases. */
  createdAt?: string;
  /** When an unfinished `mema copy` into this database started, if one did. */
  copyIncomplete?: string;
}

/** Opens `path` read-only and reads the facts doctor checks. Throws when it cannot be opened. */
export function probeDatabase(path: string, options: { deep?: boolean } = {}): DatabaseProbe {
  const connection = openConnection(path, { readOnly: true, busyTimeoutMs: 2000 });
  try {
    const generation = readGeneration(connection);
    if (generation === undefined || generation === 0) {
      return { generation, fts: undefined, counts: {}, ftsRows: undefined };
    }
    const fts = getMeta(connection, "fts");
    const counts = memories.countByStatus(connection.db);
    let ftsRows: number | undefined;
    if (fts === FTS_WORDS) ftsRows = terms.countIndexedMemories(connection.db);
    if (fts === "trigram") {
      const row = connection.db.prepare("SELECT count(*) AS n FROM memories_fts_docsize").get() as {
        n: number;
      };
      ftsRows = Number(row.n);
    }
    let wordRows: number | undefined;
    if (fts === "trigram" && generation >= 5) {
      const row = connection.db.prepare("SELECT count(*) AS n FROM memories_words_docsize")
        .get() as { n: number };
      wordRows = Number(row.n);
    }
    let quickCheck: string | undefined;
    if (options.deep) {
      const rows = connection.db.prepare("PRAGMA quick_check").all() as { quick_check: string }[];
      quickCheck = rows.map((r) => r.quick_check).join("; ");
    }
    let evidenceFacts: DatabaseProbe["evidence"];
    if (generation >= 2) {
      const space = getMeta(connection, "embedding_space");
      const vecSql = connection.db.prepare(
        "SELECT sql FROM sqlite_master WHERE name = 'memory_row_vec'",
      ).get() as { sql: string } | undefined;
      const dim = vecSql ? /float\[(\d+)\]/.exec(vecSql.sql)?.[1] : undefined;
      const coverage = evidence.countEvidence(connection.db, space);
      evidenceFacts = {
        space,
        vecDim: dim === undefined ? undefined : Number(dim),
        rows: coverage.rows,
        embedded: coverage.embedded,
        memoriesMissingRows: evidence.selectMemoriesMissingRows(connection.db, 1_000_000).length,
        jobs: jobs.countJobs(connection.db),
      };
    }
    const backlog = generation >= 4 ? conflicts.countConflictBacklog(connection.db) : undefined;
    return {
      generation,
      fts,
      counts,
      ftsRows,
      wordRows,
      quickCheck,
      evidence: evidenceFacts,
      conflicts: backlog,
      createdAt: getMeta(connection, "created_at"),
      copyIncomplete: getMeta(connection, "copy_incomplete") || undefined,
    };
  } finally {
    connection.close();
  }
}

/** Whether this SQLite can hold the word index (FTS5, contentless, deletable rows). */
export function probeFts5(): boolean {
  const probe = new DatabaseSync(":memory:");
  try {
    // The word index's own shape (src/store/terms_sql.ts).
    probe.exec(
      "CREATE VIRTUAL TABLE t USING fts5(x, content='', contentless_delete=1, tokenize='unicode61')",
    );
    return true;
  } catch {
    return false;
  } finally {
    probe.close();
  }
}

/**
 * Loads sqlite-vec into a scratch database: its version and the library's path, or throws with
 * why it does not load.
 */
export async function probeVecExtension(
  cacheDir: string,
): Promise<{ version: string; path: string }> {
  const path = await extractVecExtension(cacheDir);
  const db = new DatabaseSync(":memory:", { allowExtension: true });
  try {
    db.loadExtension(path);
    const row = db.prepare("SELECT vec_version() AS v").get() as { v: string };
    return { version: row.v, path };
  } finally {
    db.close();
  }
}
