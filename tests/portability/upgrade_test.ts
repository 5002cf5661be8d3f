import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS, setMeta } from "../../src/store/schema.ts";
import { openConnection } from "../../src/store/sqlite_connection.ts";
import { SCHEMA_GENERATION } from "../../src/store/mod.ts";
import { makeTempHome, runCli, type TempHome } from "../helpers/server.ts";
import { type SeedMemory, writeSeedDatabase } from "../helpers/seed_database.ts";

type Row = Record<string, unknown>;

const SEED_MEMORIES: SeedMemory[] = [
  {
    id: 3,
    subject: "Deploy window",
    content: "Deploys run on Mondays.",
    versions: ["Deploys run on Fridays."],
    tags: ["Ops", "deploy"],
    tableTags: ["release"],
    workspace: "Infra_Team",
    source_ref: "docs/deploy.md",
    event_time: "2025-03-01T00:00:00Z",
  },
  {
    id: 7,
    subject: "用户偏好",
    content: "The user drinks green tea — 绿茶.",
    tags: ["preference"],
    workspace: "infra-old",
    source_type: "user_confirmed",
    metadata: { origin: "chat" },
  },
  { id: 8, subject: "Twin", content: "Deploys run on Mondays.", workspace: "infra team" },
  {
    id: 9,
    subject: "Old office",
    content: "The office is on Elm Street.",
    status: "archived",
    source_type: "hearsay",
    workspace: null,
  },
  { id: 12, subject: "Supersede", content: "Office moved.", superseded_by: 99 },
];

const SEED_WORKSPACES = [
  { name: "infra team", display_name: "Infra Team", aliases: ["infra-old"] },
  { name: "research", status: "pending" },
];

function sha256(path: string): string {
  return createHash("sha256").update(Deno.readFileSync(path)).digest("hex");
}

function rows(path: string, sql: string): Row[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(sql).all() as Row[];
  } finally {
    db.close();
  }
}

function newPath(home: TempHome): string {
  return home.dbPath.replace(/\.sqlite3$/, `.gen${SCHEMA_GENERATION}.sqlite3`);
}

for (const flavour of ["0.8", "0.17"] as const) {
  Deno.test(`upgrade converts a memory-arbiter/mema ${flavour} database and switches to it`, async () => {
    const home = makeTempHome();
    try {
      Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
      writeSeedDatabase(home.dbPath, {
        flavour,
        memories: SEED_MEMORIES,
        workspaces: SEED_WORKSPACES,
      });
      const before = sha256(home.dbPath);
      const doctor = await runCli(home, ["doctor"]);
      assert.match(doctor.stdout, /run `mema upgrade`/);

      const run = await runCli(home, ["upgrade", "--yes"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /verified: 5 memories and 1 earlier versions, content hashes equal/);
      assert.match(run.stdout, /1 active duplicate/);
      assert.equal(sha256(home.dbPath), before, "the old file is not changed");
      const target = newPath(home);
      const config = JSON.parse(Deno.readTextFileSync(`${home.dir}/config/mema/config.json`));
      assert.equal(config.db_path, target);

      const memories = rows(target, "SELECT * FROM memories ORDER BY id");
      assert.deepEqual(memories.map((m) => m.id), [3, 7, 8, 9, 12]);
      const [deploy, tea, twin, office, superseding] = memories;
      assert.equal(deploy.content, "Deploys run on Mondays.");
      assert.deepEqual(JSON.parse(String(deploy.tags)).sort(), ["deploy", "ops", "release"]);
      assert.equal(deploy.workspace_canonical, "infra-team");
      assert.equal(deploy.version, 2);
      assert.equal(deploy.source_ref, "docs/deploy.md");
      assert.equal(deploy.agent_id, "codex-main");
      assert.equal(tea.workspace_canonical, "infra-team", "the alias infra-old is followed");
      assert.equal(tea.workspace, "Infra Team");
      assert.equal(tea.protection_level, "locked");
      assert.deepEqual(JSON.parse(String(tea.metadata)), { origin: "chat" });
      assert.equal(twin.status, "superseded");
      assert.equal(twin.superseded_by, 3);
      assert.equal(office.status, "retired");
      assert.equal(office.source_type, "unknown");
      assert.equal(office.workspace_canonical, "default");
      assert.deepEqual(JSON.parse(String(office.metadata)).upgrade, {
        source_type: "hearsay",
        status: "archived",
      });
      assert.equal(superseding.superseded_by, null);
      const history = rows(target, "SELECT * FROM memory_history");
      assert.equal(history.length, 1);
      assert.equal(history[0].content, "Deploys run on Fridays.");
      assert.equal(history[0].reason, "edit 1");
      const workspaces = rows(target, "SELECT canonical, state FROM workspaces ORDER BY canonical");
      assert.deepEqual(workspaces.map((w) => `${w.canonical}:${w.state}`), [
        "default:active",
        "infra-team:active",
        "research:pending",
      ]);

      // The switched config serves the new database: recall finds the upgraded facts.
      const exported = await runCli(home, ["export", `${home.dir}/out`, "--format", "jsonl"]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /exported 3 memories/);
      const after = await runCli(home, ["doctor", "--json"]);
      const generation = JSON.parse(after.stdout).findings.find((f: Row) =>
        f.check_id === "database.schema_generation"
      );
      assert.equal(generation.severity, "info");
    } finally {
      home.cleanup();
    }
  });
}

Deno.test("upgrade --dry-run writes nothing; --no-switch builds without touching the config", async () => {
  const home = makeTempHome();
  try {
    Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
    writeSeedDatabase(home.dbPath, { flavour: "0.17", memories: SEED_MEMORIES.slice(0, 2) });
    const dry = await runCli(home, ["upgrade", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /memory-arbiter \/ mema 0\.17 database \(schema workspace_state_v1\)/);
    assert.match(dry.stdout, /dry run: nothing was written/);
    assert.equal([...Deno.readDirSync(`${home.dir}/data/mema`)].length, 1);

    const refused = await runCli(home, ["upgrade"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--yes/);
    assert.equal([...Deno.readDirSync(`${home.dir}/data/mema`)].length, 1);

    const built = await runCli(home, ["upgrade", "--yes", "--no-switch"]);
    assert.equal(built.code, 0, built.stderr);
    assert.ok(Deno.statSync(newPath(home)).isFile);
    let config: Row = {};
    try {
      config = JSON.parse(Deno.readTextFileSync(`${home.dir}/config/mema/config.json`));
    } catch { /* no config file: fine */ }
    assert.equal(config.db_path, undefined);
    const again = await runCli(home, ["upgrade", "--yes"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
  } finally {
    home.cleanup();
  }
});

Deno.test("upgrade copies an older mema generation with its history and audit", async () => {
  const home = makeTempHome();
  try {
    Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
    const connection = openConnection(home.dbPath, {});
    connection.writeNow(() => {
      for (const migration of MIGRATIONS.filter((m) => m.generation <= 6)) {
        migration.apply(connection);
      }
      setMeta(connection, "schema_generation", "6");
      setMeta(connection, "created_at", "2025-01-01T00:00:00.000Z");
      connection.db.exec(`
        INSERT INTO memories (id, subject, content, content_sha, workspace, workspace_canonical,
          source_type, ingest_time, agent_id, client, created_at, updated_at, version, tags)
        VALUES (5, 'hobby', 'Caroline paints sunsets.', 'x', 'Art', 'art', 'agent_generated',
          '2025-01-01T00:00:00.000Z', 'a', 'c', '2025-01-01T00:00:00.000Z',
          '2025-01-02T00:00:00.000Z', 2, '["paint"]');
        INSERT INTO memory_history (memory_id, version, subject, content, content_sha, tags,
          status, changed_at, changed_by, changed_by_client, reason)
        VALUES (5, 1, 'hobby', 'Caroline draws.', 'y', '[]', 'active', '2025-01-02T00:00:00.000Z',
          'a', 'c', 'more precise');
        INSERT INTO audit (at, action, memory_id, agent_id, client, reason, detail)
        VALUES ('2025-01-02T00:00:00.000Z', 'update_tags', 5, 'a', 'c', 'tidy', '{}');
      `);
    });
    connection.close();
    const run = await runCli(home, ["upgrade", "--yes"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /a mema database of generation 6/);
    assert.match(run.stdout, /verified: 1 memories and 1 earlier versions/);
    const target = newPath(home);
    assert.deepEqual(
      rows(target, "SELECT id, content, version, tags FROM memories").map((row) => ({ ...row })),
      [{ id: 5, content: "Caroline paints sunsets.", version: 2, tags: '["paint"]' }],
    );
    assert.equal(rows(target, "SELECT reason FROM memory_history")[0].reason, "more precise");
    assert.equal(rows(target, "SELECT reason FROM audit")[0].reason, "tidy");
    assert.equal(
      rows(target, "SELECT value FROM meta WHERE key = 'schema_generation'")[0].value,
      String(SCHEMA_GENERATION),
    );
    // The word index was rebuilt: the new database serves recall right away.
    assert.equal(rows(target, "SELECT count(*) AS n FROM memories_terms_docsize")[0].n, 1);
    assert.equal(
      rows(target, "SELECT canonical FROM workspaces WHERE canonical = 'art'").length,
      1,
    );
  } finally {
    home.cleanup();
  }
});

Deno.test("upgrade refuses a foreign file, a non-SQLite file and a newer generation clearly", async () => {
  const home = makeTempHome();
  try {
    const other = `${home.dir}/other.sqlite3`;
    const db = new DatabaseSync(other);
    db.exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)");
    db.close();
    const foreign = await runCli(home, ["upgrade", "--yes", "--db", other]);
    assert.equal(foreign.code, 1);
    assert.match(
      foreign.stderr,
      /neither a mema database nor a memory-arbiter 0\.8 \/ mema 0\.17 one/,
    );
    assert.match(foreign.stderr, /invoices/);

    const text = `${home.dir}/notes.sqlite3`;
    Deno.writeTextFileSync(text, "just some text, not a database at all ".repeat(200));
    const garbage = await runCli(home, ["upgrade", "--yes", "--db", text]);
    assert.equal(garbage.code, 1);
    assert.match(garbage.stderr, /neither a mema database/);

    const newer = `${home.dir}/newer.sqlite3`;
    const future = new DatabaseSync(newer);
    future.exec(
      `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
       INSERT INTO meta VALUES ('schema_generation', '${SCHEMA_GENERATION + 1}');`,
    );
    future.close();
    const refused = await runCli(home, ["upgrade", "--yes", "--db", newer]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /newer than this mema/);
    assert.deepEqual(
      [...Deno.readDirSync(home.dir)].map((e) => e.name).filter((n) => n.includes(".gen")),
      [],
    );
  } finally {
    home.cleanup();
  }
});

Deno.test("upgrade of a current database has nothing to do", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/n.md`;
    Deno.writeTextFileSync(notes, "# A\nfact\n");
    assert.equal((await runCli(home, ["import", notes])).code, 0);
    const run = await runCli(home, ["upgrade", "--yes"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /already at generation \d+: nothing to upgrade/);
  } finally {
    home.cleanup();
  }
});
