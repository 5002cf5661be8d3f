/**
 * Schema generations and migrations. A database records its generation in
 * `meta`; a fresh file gets every migration, an older one gets the pending
 * migrations when all are additive (new tables, columns, indexes; applied in
 * one transaction), and anything else is refused with the way forward.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prepareSchema } from "./schema.ts";
 * import { openConnection } from "./sqlite_connection.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const connection = openConnection(`${dir}/new.sqlite3`);
 * const state = prepareSchema(connection); // a new, empty file becomes a mema database
 * assert.equal(state.created, true);
 * connection.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { nowIso } from "../platform/clock.ts";
import { SCHEMA_GENERATION } from "./constants.ts";
import { WORKSPACES_TABLE } from "./workspaces_sql.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { SECURE_DELETE_SINCE } from "./purge_sql.ts";
import {
  countIndexedMemories,
  createPendingCounts,
  rebuildTermsIndex,
  TERMS_TABLES,
} from "./terms_sql.ts";
import { CHANGE_COUNTS } from "./change_counts_sql.ts";
import { ENTITY_TABLES } from "./entities_sql.ts";
import { ACCESS_NOT_A_CHANGE } from "./usage_sql.ts";
import { LIBRARY_COUNTS } from "./library_counts_sql.ts";
import { liveMemories } from "./evidence_sql.ts";

/** One step from generation N-1 to N. */
export interface Migration {
  generation: number;
  /** additive steps run automatically at open; rebuild steps need `mema upgrade`. */
  kind: "additive" | "rebuild";
  description: string;
  apply(connection: SqliteConnection): void;
}

const CORE_TABLES = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE memories (
  id INTEGER PRIMARY KEY,
  subject TEXT NOT NULL,
  content TEXT NOT NULL,
  content_sha TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  workspace TEXT NOT NULL,
  workspace_canonical TEXT NOT NULL,
  source_type TEXT NOT NULL CHECK (source_type IN
    ('user_confirmed', 'document_extracted', 'agent_generated', 'unknown')),
  source_ref TEXT,
  event_time TEXT,
  ingest_time TEXT NOT NULL,
  confidence REAL NOT NULL DEFAULT 0.5 CHECK (confidence >= 0 AND confidence <= 1),
  protection_level TEXT NOT NULL DEFAULT 'normal'
    CHECK (protection_level IN ('normal', 'protected', 'locked')),
  status TEXT NOT NULL DEFAULT 'active'
    CHECK (status IN ('active', 'superseded', 'pending', 'retired', 'deleted')),
  version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  agent_id TEXT NOT NULL,
  client TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
  superseded_by INTEGER REFERENCES memories(id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_accessed TEXT,
  access_count INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX memories_active_content
  ON memories(workspace_canonical, content_sha) WHERE status = 'active';
CREATE INDEX memories_by_status_time ON memories(status, ingest_time);
CREATE INDEX memories_by_workspace ON memories(workspace_canonical, status);
CREATE TABLE memory_history (
  id INTEGER PRIMARY KEY,
  memory_id INTEGER NOT NULL REFERENCES memories(id),
  version INTEGER NOT NULL,
  subject TEXT NOT NULL,
  content TEXT NOT NULL,
  content_sha TEXT NOT NULL,
  tags TEXT NOT NULL,
  status TEXT NOT NULL,
  changed_at TEXT NOT NULL,
  changed_by TEXT NOT NULL,
  changed_by_client TEXT NOT NULL,
  reason TEXT,
  UNIQUE (memory_id, version)
);
CREATE TABLE audit (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  action TEXT NOT NULL,
  memory_id INTEGER,
  agent_id TEXT NOT NULL,
  client TEXT NOT NULL,
  reason TEXT,
  detail TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
);
CREATE INDEX audit_by_memory ON audit(memory_id);
`;

// External-content FTS5 over the memories table, kept in step by triggers so the
// index changes in the same transaction as the row.
function ftsIndexSql(name: string, tokenize: string): string {
  return `
CREATE VIRTUAL TABLE ${name} USING fts5(
  subject, tags, content,
  content = 'memories', content_rowid = 'id',
  tokenize = '${tokenize}'
);
CREATE TRIGGER ${name}_insert AFTER INSERT ON memories BEGIN
  INSERT INTO ${name}(rowid, subject, tags, content)
  VALUES (new.id, new.subject, new.tags, new.content);
END;
CREATE TRIGGER ${name}_delete AFTER DELETE ON memories BEGIN
  INSERT INTO ${name}(${name}, rowid, subject, tags, content)
  VALUES ('delete', old.id, old.subject, old.tags, old.content);
END;
CREATE TRIGGER ${name}_update AFTER UPDATE OF subject, tags, content ON memories BEGIN
  INSERT INTO ${name}(${name}, rowid, subject, tags, content)
  VALUES ('delete', old.id, old.subject, old.tags, old.content);
  INSERT INTO ${name}(rowid, subject, tags, content)
  VALUES (new.id, new.subject, new.tags, new.content);
END;
`;
}

// Trigram makes CJK and substring matches work without a language-specific tokenizer.
const FTS_TABLES = ftsIndexSql("memories_fts", "trigram remove_diacritics 1");

// Derived evidence rows (docs/SPEC.md §3) and the durable job queue (docs/SPEC.md §7). Rows are
// rebuilt from `memories`; the vec0 table over their embeddings is created when
// an embedding model is configured, since its dimension comes from the model.
const EVIDENCE_AND_JOBS = `
CREATE TABLE memory_rows (
  id INTEGER PRIMARY KEY,
  memory_id INTEGER NOT NULL REFERENCES memories(id),
  memory_version INTEGER NOT NULL,
  row_index INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('subject', 'sentence', 'table_row', 'heading')),
  text TEXT NOT NULL,
  start_offset INTEGER,
  end_offset INTEGER,
  embedding_space TEXT,
  -- The subject row is not part of the content, so it alone has no offsets.
  CHECK ((kind = 'subject') = (start_offset IS NULL AND end_offset IS NULL)),
  UNIQUE (memory_id, memory_version, row_index)
);
CREATE INDEX memory_rows_unembedded ON memory_rows(embedding_space, memory_id);
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  dedupe_key TEXT,
  payload TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'poisoned')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  run_after TEXT NOT NULL,
  lease_owner TEXT,
  lease_expires TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX jobs_pending_once ON jobs(kind, dedupe_key) WHERE status = 'pending';
CREATE INDEX jobs_ready ON jobs(status, run_after);
`;

// Each replayed JSONL backup entry is logged in the transaction that applies it,
// so a replay applies every entry exactly once, however often it is run.
const BACKUP_REPLAY = `
CREATE TABLE backup_replay_log (
  entry_id TEXT PRIMARY KEY,
  applied_at TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'rejected')),
  memory_id INTEGER,
  detail TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail))
);
CREATE INDEX memories_by_superseded ON memories(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX audit_by_time ON audit(at);
`;

// Conflict groups (one row per event, revisioned for compare-and-set), their
// members for fast lookups, notices (delivered once, never repeated once
// dismissed: dedupe_key is unique), and the scheduled scan's per-memory
// watermarks and queue of suspect pairs for the agent to decide.
const CONFLICTS = `
CREATE TABLE conflicts (
  id INTEGER PRIMARY KEY,
  workspace_canonical TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'applying', 'resolved', 'not_a_conflict')),
  revision INTEGER NOT NULL DEFAULT 1,
  source TEXT NOT NULL CHECK (source IN ('write_time', 'scan', 'agent')),
  candidate_key TEXT NOT NULL UNIQUE,
  members TEXT NOT NULL CHECK (json_valid(members)),
  value_groups TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(value_groups)),
  detection TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detection)),
  chosen_value TEXT,
  decided_by TEXT,
  decision_ref TEXT,
  decision_reason TEXT,
  plan TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(plan)),
  plan_history TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(plan_history)),
  resolution_memory_id INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX conflicts_by_status ON conflicts(status, id);
CREATE TABLE conflict_members (
  conflict_id INTEGER NOT NULL REFERENCES conflicts(id),
  memory_id INTEGER NOT NULL REFERENCES memories(id),
  PRIMARY KEY (conflict_id, memory_id)
);
CREATE INDEX conflict_members_by_memory ON conflict_members(memory_id);
CREATE TABLE notices (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('info', 'normal')),
  conflict_id INTEGER REFERENCES conflicts(id),
  dedupe_key TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  message TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dismissed', 'resolved')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX notices_by_status ON notices(status, id);
CREATE TABLE scan_state (
  memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
  scanned_version INTEGER NOT NULL,
  scanned_round TEXT NOT NULL,
  scanned_at TEXT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE scan_queue (
  id INTEGER PRIMARY KEY,
  candidate_key TEXT NOT NULL UNIQUE,
  memory_a INTEGER NOT NULL,
  memory_b INTEGER NOT NULL,
  version_a INTEGER NOT NULL,
  version_b INTEGER NOT NULL,
  row_a TEXT NOT NULL,
  row_b TEXT NOT NULL,
  assessment TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(assessment)),
  score REAL NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'dismissed', 'voided')),
  round_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  decided_at TEXT,
  decided_by TEXT,
  conflict_id INTEGER
);
CREATE INDEX scan_queue_pending ON scan_queue(status, score DESC, id);
`;

// Sequences (docs/SPEC.md §6 episode context): a memory may name the memory it follows, a
// conversation turn the one it answers, a document section the one before it.
const SEQUENCES = `
ALTER TABLE memories ADD COLUMN follows INTEGER REFERENCES memories(id);
CREATE INDEX memories_by_follows ON memories(follows) WHERE follows IS NOT NULL;
`;

// A word-level index with English (Porter) stemming next to the trigram one: the trigram
// index matches substrings in any script, this one scores whole words and their inflections
// ("painted" finds "paints") with a real per-word BM25.
const WORD_FTS_TABLES = ftsIndexSql("memories_words", "porter unicode61 remove_diacritics 2") +
  "INSERT INTO memories_words(memories_words) VALUES ('rebuild');\n";

// Generation 6 replaces both trigger-kept indexes (trigram and Porter words) with one
// contentless word index whose tokens mema computes (src/text/index_terms.ts): at 100k
// memories the trigram index cost 816 bytes per memory and most of find's time.
const DROP_OLD_FTS = ["memories_fts", "memories_words"].map((name) => `
DROP TRIGGER IF EXISTS ${name}_insert;
DROP TRIGGER IF EXISTS ${name}_delete;
DROP TRIGGER IF EXISTS ${name}_update;
DROP TABLE IF EXISTS ${name};
`).join("");

// `mema import` finds the memory a file or section was imported into by (workspace,
// source_ref); without an index each lookup scanned the workspace (quadratic on 10k notes).
const SOURCE_REF_INDEX = `
CREATE INDEX memories_by_source_ref ON memories(workspace_canonical, source_ref)
  WHERE status = 'active' AND source_ref IS NOT NULL;
`;

// Conflict events (issue 14): every pair that went into an event is keyed here, so a pair
// that joined an open event is never opened again as its own conflict; and the members a
// resolution left carrying the replaced claim (annotated or kept as history), at the version
// the resolution left them, with the members that hold the chosen value: recall ranks the
// holders above them for the questions that find them.
const CONFLICT_EVENTS = `
CREATE TABLE conflict_keys (
  candidate_key TEXT PRIMARY KEY,
  conflict_id INTEGER NOT NULL REFERENCES conflicts(id)
);
CREATE TABLE stale_claims (
  memory_id INTEGER NOT NULL REFERENCES memories(id),
  conflict_id INTEGER NOT NULL REFERENCES conflicts(id),
  memory_version INTEGER NOT NULL,
  holder_ids TEXT NOT NULL CHECK (json_valid(holder_ids)),
  chosen_value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (memory_id, conflict_id)
);
`;

/**
 * One entry per change to a stored vector (`row_id`: the evidence row whose vector was written
 * or deleted; NULL: the vector table was recreated), written in the same transaction as the
 * change. AUTOINCREMENT: a sequence number is never reused, even after the oldest entries are
 * pruned, so a reader can tell what it has not seen and whether entries it needed are gone.
 */
const VECTOR_CHANGES = `
CREATE TABLE vector_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  row_id INTEGER
);
`;

// Validity windows (issue 34, docs/SPEC.md §16): when a fact was true, on the memory and on each
// earlier version (the window a version had when it was replaced, closed by its successor).
const VALIDITY_COLUMNS = ["valid_from", "valid_to"];

/** Adds the validity columns a table lacks (a database marked older than it is keeps its own). */
function addValidityColumns(connection: SqliteConnection, table: string): void {
  const present = new Set(
    (connection.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[])
      .map((column) => column.name),
  );
  for (const column of VALIDITY_COLUMNS) {
    if (!present.has(column)) connection.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
  }
}

/** Every migration this build knows, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    generation: 1,
    kind: "additive",
    description: "memories, history, audit, meta and the FTS5 index",
    apply(connection) {
      connection.db.exec(CORE_TABLES);
      try {
        connection.db.exec(FTS_TABLES);
        setMeta(connection, "fts", "trigram");
      } catch (error) {
        // A SQLite without FTS5 still stores facts; recall falls back to LIKE.
        if (!/no such module/i.test(String(error))) throw error;
        setMeta(connection, "fts", "absent");
      }
    },
  },
  {
    generation: 2,
    kind: "additive",
    description: "evidence rows and the durable job queue",
    apply(connection) {
      connection.db.exec(EVIDENCE_AND_JOBS);
    },
  },
  {
    generation: 3,
    kind: "additive",
    description: "the JSONL backup replay log",
    apply(connection) {
      connection.db.exec(BACKUP_REPLAY);
    },
  },
  {
    generation: 4,
    kind: "additive",
    description: "conflict groups, notices and the scheduled scan",
    apply(connection) {
      connection.db.exec(CONFLICTS);
    },
  },
  {
    generation: 5,
    kind: "additive",
    description: "memory sequences (follows) and the stemmed word index",
    apply(connection) {
      connection.db.exec(SEQUENCES);
      // Without FTS5 there is no trigram index either; recall stays on LIKE.
      if (getMeta(connection, "fts") === "trigram") connection.db.exec(WORD_FTS_TABLES);
    },
  },
  {
    generation: 6,
    kind: "additive",
    description: "one word index with mema's own tokens (CJK bigrams, stemmed words)",
    apply(connection) {
      if (getMeta(connection, "fts") !== "trigram") return;
      connection.db.exec(DROP_OLD_FTS);
      connection.db.exec(TERMS_TABLES);
      rebuildTermsIndex(connection.db);
      setMeta(connection, "fts", FTS_WORDS);
    },
  },
  {
    generation: 7,
    kind: "additive",
    description: "an index of active memories by source_ref (idempotent imports)",
    apply(connection) {
      connection.db.exec(SOURCE_REF_INDEX);
    },
  },
  {
    generation: 8,
    kind: "additive",
    description: "conflict events (pair keys) and the claims a resolution replaced",
    apply(connection) {
      connection.db.exec(CONFLICT_EVENTS);
    },
  },
  {
    generation: 9,
    kind: "additive",
    description: "the workspace registry (pending, confirmed, redirected names)",
    apply(connection) {
      connection.db.exec(WORKSPACES_TABLE);
    },
  },
  {
    generation: 10,
    kind: "additive",
    description: "a log of vector changes (keeps each process's in-memory vector copy current)",
    apply(connection) {
      // Starts empty: a process loads every vector once, then follows this log.
      connection.db.exec(VECTOR_CHANGES);
    },
  },
  {
    generation: 11,
    kind: "additive",
    description: "a count of the changes to memories (keeps the record caches across other writes)",
    apply(connection) {
      connection.db.exec(CHANGE_COUNTS);
    },
  },
  {
    generation: 12,
    kind: "additive",
    description: "the word index's counts for the newest memories, held apart until folded in",
    apply(connection) {
      // Starts empty: every count so far is in memories_terms_df.
      if (getMeta(connection, "fts") === FTS_WORDS) createPendingCounts(connection.db);
    },
  },
  {
    generation: 13,
    kind: "additive",
    description: "recording a memory's use (access_count) leaves the record caches in place",
    apply(connection) {
      connection.db.exec(ACCESS_NOT_A_CHANGE);
    },
  },
  {
    generation: 14,
    kind: "additive",
    description: "validity windows (valid_from, valid_to) on memories and their versions",
    apply(connection) {
      addValidityColumns(connection, "memories");
      addValidityColumns(connection, "memory_history");
    },
  },
  {
    generation: 15,
    kind: "additive",
    description: "entities, the words memories name them by, and the relations between them",
    apply(connection) {
      // Starts empty: memories written before are read for entities when next written.
      connection.db.exec(ENTITY_TABLES);
    },
  },
  {
    generation: 16,
    kind: "additive",
    description: "kept counts of memories by status, history, evidence rows and jobs (status)",
    apply(connection) {
      // Counted once here (4.0 s at 1M memories on a loaded machine), then kept by triggers.
      connection.db.exec(LIBRARY_COUNTS);
    },
  },
  {
    generation: 17,
    kind: "additive",
    description: "memories indexed by status and event time, the order a browse pages in",
    apply(connection) {
      // A browse (find without a query) pages newest event first; ordered by ingest time, the
      // index could not serve it and every page sorted every memory of the status (360 ms warm at
      // 1M). Nothing reads memories in ingest-time order through this index (the substring
      // fallback sorts its matches either way), so the new one replaces it: no disk added.
      connection.db.exec(`DROP INDEX IF EXISTS memories_by_status_time;
        CREATE INDEX IF NOT EXISTS memories_by_status_event_time
          ON memories(status, coalesce(event_time, ingest_time));`);
    },
  },
  {
    generation: 18,
    kind: "additive",
    description: "the planned conflict checks of bulk writes, in the order memories alike in words",
    apply(connection) {
      // Starts empty: a bulk write plans its checks here (src/conflicts/check_plan.ts); checks
      // queued before stay batch jobs.
      connection.db.exec(CHECK_PLAN);
    },
  },
];

/**
 * The checks a bulk write planned: one row a memory version, keyed so that memories alike in
 * words are next to each other (`group_key`, a word hash), read in key order and deleted as
 * they are checked. WITHOUT ROWID: the key is the row, ~17 bytes a planned check.
 */
export const CHECK_PLAN = `CREATE TABLE IF NOT EXISTS check_plan (
  group_key INTEGER NOT NULL,
  memory_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (group_key, memory_id, version)
) WITHOUT ROWID;`;

/** `meta.fts` once the word index of generation 6 is in place. */
export const FTS_WORDS = "words";

/** Writes one `meta` key. */
export function setMeta(connection: SqliteConnection, key: string, value: string): void {
  connection.db.prepare(
    "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(key, value);
}

/** Reads one `meta` key, or undefined. */
export function getMeta(connection: SqliteConnection, key: string): string | undefined {
  const row = connection.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

function tableExists(connection: SqliteConnection, name: string): boolean {
  return connection.db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?",
  ).get(name) !== undefined;
}

/** Reads the generation of an open database: 0 for an empty file, undefined when it is not mema's. */
export function readGeneration(connection: SqliteConnection): number | undefined {
  if (!tableExists(connection, "meta")) {
    const anyTable = connection.db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1",
    ).get();
    return anyTable === undefined ? 0 : undefined;
  }
  const value = getMeta(connection, "schema_generation");
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/** What {@linkcode prepareSchema} did. */
export interface SchemaState {
  generation: number;
  created: boolean;
  migrated: number[];
}

/** The error for a SQLite file without mema's schema generation. */
export function notAMemaDatabase(): MemaError {
  return new MemaError(
    "schema_mismatch",
    "this SQLite file is not a mema database (no schema generation in its meta table)",
    {
      hint:
        "point MEMA_DB_PATH at a mema database or at a new file; a memory-arbiter 0.8 / mema 0.17 database is brought over by `mema upgrade`",
    },
  );
}

/**
 * Brings the database to {@linkcode SCHEMA_GENERATION} or refuses with a
 * `schema_mismatch` error that says what to run.
 */
export function prepareSchema(connection: SqliteConnection): SchemaState {
  return connection.writeNow(() => {
    const generation = readGeneration(connection);
    if (generation === undefined) {
      throw notAMemaDatabase();
    }
    if (generation > SCHEMA_GENERATION) {
      throw new MemaError(
        "schema_mismatch",
        `the database has schema generation ${generation}, newer than this mema (${SCHEMA_GENERATION})`,
        { hint: "install the newer mema that wrote it" },
      );
    }
    const pending = MIGRATIONS.filter((m) => m.generation > generation);
    const blocking = pending.find((m) => m.kind === "rebuild");
    if (blocking && generation > 0) {
      throw new MemaError(
        "schema_mismatch",
        `the database has schema generation ${generation}; generation ${blocking.generation} (${blocking.description}) must be built by an upgrade`,
        { hint: "run `mema upgrade` (it builds the new database beside the old one)" },
      );
    }
    for (const migration of pending) {
      migration.apply(connection);
      setMeta(connection, "schema_generation", String(migration.generation));
    }
    if (generation === 0) {
      setMeta(connection, "created_at", nowIso());
      // A new file is written with secure_delete from its first byte (purge_sql.ts).
      setMeta(connection, SECURE_DELETE_SINCE, nowIso());
    }
    return {
      generation: SCHEMA_GENERATION,
      created: generation === 0,
      migrated: pending.map((m) => m.generation),
    };
  });
}

/**
 * Rebuilds the word index when its row count differs from the memories not purged (it is
 * derived data; a copy made mid-write or a manual edit can leave it behind; tombstones of
 * purged memories are never indexed).
 * Returns true when it rebuilt.
 */
export function repairFtsIfNeeded(connection: SqliteConnection): boolean {
  if (getMeta(connection, "fts") !== FTS_WORDS) return false;
  const memories = liveMemories(connection.db);
  if (countIndexedMemories(connection.db) === memories) return false;
  connection.writeNow(() => rebuildTermsIndex(connection.db));
  return true;
}
