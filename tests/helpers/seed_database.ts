/**
 * Builds small databases in the seeds' schema (memory-arbiter 0.8 and mema 0.17), as far as
 * their READMEs describe it: memories with provenance and trust, earlier versions, tags and
 * workspaces with aliases. Two flavours differ where the READMEs leave room: 0.8 keeps tags as
 * JSON on the memory plus a `memory_tags(memory_id, tag)` table and versions (the current one
 * included) in `memory_versions`; 0.17 has `meta.schema_version`, `memory_history` and tags in
 * `tags(id, name)` joined through `memory_tags(memory_id, tag_id)`.
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/** One memory of a seed fixture. */
export interface SeedMemory {
  id: number;
  subject: string;
  content: string;
  tags?: string[];
  /** Extra tags only in the tags table. */
  tableTags?: string[];
  workspace?: string | null;
  source_type?: string;
  source_ref?: string | null;
  event_time?: string | null;
  protection_level?: string;
  status?: string;
  version?: number;
  agent_id?: string;
  client?: string;
  metadata?: unknown;
  superseded_by?: number | null;
  /** Earlier versions' content, oldest first (version 1, 2, …). */
  versions?: string[];
}

/** One workspace row. */
export interface SeedWorkspace {
  name: string;
  display_name?: string;
  aliases?: string[];
  status?: string;
}

/** Writes a seed database at `path`. */
export function writeSeedDatabase(
  path: string,
  options: { flavour: "0.8" | "0.17"; memories: SeedMemory[]; workspaces?: SeedWorkspace[] },
): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`
      CREATE TABLE memories (
        id INTEGER PRIMARY KEY, subject TEXT NOT NULL, content TEXT NOT NULL, content_hash TEXT,
        ${options.flavour === "0.8" ? "tags TEXT," : ""}
        source_type TEXT, source_ref TEXT, event_time TEXT, ingest_time TEXT, workspace TEXT,
        confidence REAL, protection_level TEXT, status TEXT, version INTEGER, agent_id TEXT,
        client TEXT, metadata TEXT, superseded_by INTEGER, created_at TEXT, updated_at TEXT,
        split_status TEXT
      );
      CREATE TABLE workspaces (
        name TEXT PRIMARY KEY, display_name TEXT, aliases TEXT, status TEXT, created_at TEXT
      );
    `);
    if (options.flavour === "0.8") {
      db.exec(`
        CREATE TABLE memory_versions (
          id INTEGER PRIMARY KEY, memory_id INTEGER, version INTEGER, subject TEXT,
          content TEXT, changed_at TEXT, changed_by TEXT, reason TEXT
        );
        CREATE TABLE memory_tags (memory_id INTEGER, tag TEXT);
      `);
    } else {
      db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        INSERT INTO meta VALUES ('schema_version', 'workspace_state_v1');
        CREATE TABLE memory_history (
          id INTEGER PRIMARY KEY, memory_id INTEGER, version INTEGER, subject TEXT,
          content TEXT, tags TEXT, changed_at TEXT, changed_by TEXT, reason TEXT
        );
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
        CREATE TABLE memory_tags (memory_id INTEGER, tag_id INTEGER);
        CREATE TABLE conflict_judgments (id INTEGER PRIMARY KEY, detail TEXT);
      `);
    }
    const at = (i: number) => `2025-0${1 + (i % 8)}-1${i % 10}T08:00:00Z`;
    for (const m of options.memories) {
      const version = m.version ?? (m.versions?.length ?? 0) + 1;
      const columns = [
        "id",
        "subject",
        "content",
        "content_hash",
        "source_type",
        "source_ref",
        "event_time",
        "ingest_time",
        "workspace",
        "confidence",
        "protection_level",
        "status",
        "version",
        "agent_id",
        "client",
        "metadata",
        "superseded_by",
        "created_at",
        "updated_at",
      ];
      const values: (string | number | null)[] = [
        m.id,
        m.subject,
        m.content,
        "legacy-hash",
        m.source_type ?? "agent_generated",
        m.source_ref ?? null,
        m.event_time ?? null,
        at(m.id),
        m.workspace === undefined ? "default" : m.workspace,
        0.7,
        m.protection_level ?? "normal",
        m.status ?? "active",
        version,
        m.agent_id ?? "codex-main",
        m.client ?? "codex",
        m.metadata === undefined ? "{}" : JSON.stringify(m.metadata),
        m.superseded_by ?? null,
        at(m.id),
        at(m.id),
      ];
      if (options.flavour === "0.8") {
        columns.push("tags");
        values.push(JSON.stringify(m.tags ?? []));
      }
      db.prepare(
        `INSERT INTO memories (${columns.join(", ")}) VALUES (${
          columns.map(() => "?").join(", ")
        })`,
      ).run(...values);
      const tableTags = options.flavour === "0.8"
        ? m.tableTags ?? []
        : [...(m.tags ?? []), ...(m.tableTags ?? [])];
      for (const tag of tableTags) {
        if (options.flavour === "0.8") {
          db.prepare("INSERT INTO memory_tags VALUES (?, ?)").run(m.id, tag);
        } else {
          db.prepare("INSERT OR IGNORE INTO tags (name) VALUES (?)").run(tag);
          const { id } = db.prepare("SELECT id FROM tags WHERE name = ?").get(tag) as {
            id: number;
          };
          db.prepare("INSERT INTO memory_tags VALUES (?, ?)").run(m.id, id);
        }
      }
      const versions = [...(m.versions ?? [])];
      // memory-arbiter 0.8 also keeps the current version in its versions table.
      if (options.flavour === "0.8") versions.push(m.content);
      versions.forEach((content, index) => {
        const table = options.flavour === "0.8" ? "memory_versions" : "memory_history";
        db.prepare(
          `INSERT INTO ${table} (memory_id, version, subject, content, changed_at, changed_by, reason)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(m.id, index + 1, m.subject, content, at(index), "claude-code", `edit ${index + 1}`);
      });
    }
    for (const w of options.workspaces ?? []) {
      db.prepare("INSERT INTO workspaces VALUES (?, ?, ?, ?, ?)").run(
        w.name,
        w.display_name ?? null,
        JSON.stringify(w.aliases ?? []),
        w.status ?? "active",
        "2025-01-01T00:00:00Z",
      );
    }
  } finally {
    db.close();
  }
}
