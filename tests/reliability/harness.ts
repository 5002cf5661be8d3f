/**
 * Shared pieces of the reliability suite: stdio servers that can be killed,
 * a full snapshot of the user-visible tables, and the invariant check every
 * test ends with (integrity, FTS and evidence rows in step with `memories`).
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { envelopeOf } from "../helpers/http_server.ts";
import { type Envelope, MAIN, type TempHome } from "../helpers/server.ts";
import { indexTokens } from "../../src/text/index_terms.ts";
import { scopeToken } from "../../src/store/terms_sql.ts";

/** A stdio server whose process the test may kill. */
export interface KillableServer {
  client: Client;
  pid: number;
  call(action: string, data?: unknown, tool?: string): Promise<Envelope & { isError?: boolean }>;
  /** Calls a `memory_repair` task. */
  repair(task: string, data?: unknown): Promise<Envelope & { isError?: boolean }>;
  stderr(): string;
  /** SIGKILL: no cleanup, no last write, no WAL checkpoint. */
  kill(): void;
  close(): Promise<void>;
}

/** Spawns `mema serve` over stdio with `env` added to the home's environment. */
export async function spawnStdioServer(
  home: TempHome,
  env: Record<string, string>,
): Promise<KillableServer> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, "serve"],
    env: { ...home.env, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "mema-reliability", version: "0" });
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    pid,
    call: async (action, data, tool = "memory") =>
      envelopeOf(await client.callTool({ name: tool, arguments: { action, data } })),
    repair: async (task, data) =>
      envelopeOf(await client.callTool({ name: "memory_repair", arguments: { task, data } })),
    stderr: () => stderr,
    kill: () => {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    },
    close: () => client.close(),
  };
}

/** Runs `fn` against a read-only connection. */
export function withDatabase<T>(dbPath: string, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/**
 * Every row of every table a request could change, as one string. Derived
 * and internal tables are left out (FTS and vec shadow tables are covered by
 * the invariant check, `jobs` and the plan of checks (`check_plan`) belong to
 * the background worker, and `library_counts` is kept by triggers from the
 * rows, jobs included).
 */
export function fullSnapshot(dbPath: string): string {
  return withDatabase(dbPath, (db) => {
    const tables = (db.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT LIKE 'memories_terms%'
         AND name NOT LIKE 'memory_row_vec%'
         AND name NOT IN ('jobs', 'check_plan', 'library_counts') ORDER BY name`,
    ).all() as { name: string }[]).map((row) => row.name);
    return tables.map((table) =>
      `${table}: ${JSON.stringify(db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all())}`
    ).join("\n");
  });
}

/** Counts of what the invariant check saw. */
export interface DatabaseCounts {
  memories: number;
  history: number;
  rows: number;
}

/**
 * The invariants of a healthy database, each asserted exactly: SQLite's own
 * integrity check, the FTS index matching `memories` row for row, evidence
 * rows for exactly the current version of every memory with exact offsets,
 * and every memory's history holding versions 1..version-1 with no gaps.
 */
export function assertDatabaseConsistent(dbPath: string): DatabaseCounts {
  // FTS5's integrity-check is issued as an INSERT, so it needs a writable
  // handle (it reads and compares only). The servers may still be finishing
  // background jobs, so wait for the write lock like any other writer.
  const writable = new DatabaseSync(dbPath, { timeout: 15_000 });
  try {
    writable.exec("INSERT INTO memories_terms(memories_terms, rank) VALUES ('integrity-check', 1)");
  } finally {
    writable.close();
  }
  return withDatabase(dbPath, (db) => {
    const integrity = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    assert.deepEqual(integrity.map((row) => row.integrity_check), ["ok"]);
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const memories = count("SELECT count(*) AS n FROM memories");
    assert.equal(count("SELECT count(*) AS n FROM memories_terms_docsize"), memories, "FTS rows");
    assertTermsMatchContent(db);
    assert.equal(
      count(
        `SELECT count(*) AS n FROM memory_rows r JOIN memories m ON m.id = r.memory_id
          WHERE r.memory_version != m.version`,
      ),
      0,
      "evidence rows of a superseded version",
    );
    assert.equal(
      count(
        `SELECT count(*) AS n FROM memories m
          WHERE NOT EXISTS (SELECT 1 FROM memory_rows r WHERE r.memory_id = m.id)`,
      ),
      0,
      "a memory without evidence rows",
    );
    const spans = db.prepare(
      `SELECT r.text, r.start_offset AS s, r.end_offset AS e, m.content FROM memory_rows r
         JOIN memories m ON m.id = r.memory_id WHERE r.kind != 'subject'`,
    ).all() as { text: string; s: number; e: number; content: string }[];
    // A row whose text is its slice of the content is stored empty and read from the content.
    for (const span of spans) {
      if (span.text !== "") assert.equal(span.content.slice(span.s, span.e), span.text);
    }
    const gaps = db.prepare(
      `SELECT m.id, m.version, count(h.id) AS n, coalesce(min(h.version), 0) AS lo,
              coalesce(max(h.version), 0) AS hi
         FROM memories m LEFT JOIN memory_history h ON h.memory_id = m.id
        GROUP BY m.id
       HAVING n != m.version - 1 OR (n > 0 AND (lo != 1 OR hi != m.version - 1))`,
    ).all();
    assert.deepEqual(gaps, [], "history versions are contiguous");
    return {
      memories,
      history: count("SELECT count(*) AS n FROM memory_history"),
      rows: count("SELECT count(*) AS n FROM memory_rows"),
    };
  });
}

/** The seed of this run: `MEMA_RELIABILITY_SEED` or the clock, printed so it can be replayed. */
export function runSeed(label: string): number {
  const fixed = Deno.env.get("MEMA_RELIABILITY_SEED");
  const seed = fixed ? Number(fixed) : Date.now() % 1_000_000_007;
  console.error(`${label}: seed ${seed} (replay with MEMA_RELIABILITY_SEED=${seed})`);
  return seed;
}

/**
 * The word index holds exactly the tokens of every memory's current subject, tags and
 * content: the index is contentless, so FTS5's integrity check cannot compare it with the
 * text; this does, token by token.
 */
function assertTermsMatchContent(db: DatabaseSync): void {
  db.exec(
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_instance USING fts5vocab(main, memories_terms, 'instance')",
  );
  const indexed = new Map<number, string[]>();
  for (
    const row of db.prepare("SELECT doc, term FROM temp.terms_instance").all() as {
      doc: number;
      term: string;
    }[]
  ) {
    indexed.set(Number(row.doc), [...(indexed.get(Number(row.doc)) ?? []), row.term]);
  }
  const memories = db.prepare(
    "SELECT id, subject, tags, content, workspace_canonical FROM memories",
  ).all() as {
    id: number;
    subject: string;
    tags: string;
    content: string;
    workspace_canonical: string;
  }[];
  for (const memory of memories) {
    const expected = [
      ...indexTokens(memory.subject),
      ...indexTokens((JSON.parse(memory.tags) as string[]).join(" ")),
      ...indexTokens(memory.content),
      scopeToken(memory.workspace_canonical),
    ].sort();
    assert.deepEqual(
      (indexed.get(Number(memory.id)) ?? []).sort(),
      expected,
      `memory ${memory.id}`,
    );
  }
}
