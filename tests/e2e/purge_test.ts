import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { PURGE_SCRUB_OWED } from "../../src/store/purge_sql.ts";
import { type E2eBackend, onBothBackends, snapshotLibrary } from "../helpers/e2e_backends.ts";
import { metaValue, tablesHolding, vacuumedTables } from "../helpers/postgres_rows.ts";
import { makeTempHome, type ServerSession, startServer, type TempHome } from "../helpers/server.ts";
import { spawnStdioServer } from "../reliability/harness.ts";

const SECRET = "zqxapikey";

function fileHolds(dbPath: string, needle: string): boolean {
  const bytes = new TextEncoder().encode(needle);
  for (const path of [dbPath, `${dbPath}-wal`]) {
    let data: Uint8Array;
    try {
      data = Deno.readFileSync(path);
    } catch {
      continue;
    }
    outer: for (let i = data.indexOf(bytes[0]); i >= 0; i = data.indexOf(bytes[0], i + 1)) {
      for (let j = 1; j < bytes.length; j++) if (data[i + j] !== bytes[j]) continue outer;
      return true;
    }
  }
  return false;
}

/**
 * Where the library keeps text, per backend: the SQLite file and its WAL (bytes, free pages
 * included: secure_delete zeroes them), or PostgreSQL's tables (live rows: a VACUUM makes the
 * deleted ones' space free to be overwritten; docs/POSTGRES.md says what the WAL keeps).
 */
interface Storage {
  holds(needle: string): Promise<boolean>;
  snapshot(): Promise<string>;
}

function storageOf(home: TempHome, backend: E2eBackend): Storage {
  if (backend.name === "sqlite") {
    return {
      holds: (needle) => Promise.resolve(fileHolds(home.dbPath, needle)),
      snapshot: () => snapshotLibrary(home, backend),
    };
  }
  return {
    holds: async (needle) => (await tablesHolding(backend.url, needle)).length > 0,
    snapshot: () => snapshotLibrary(home, backend),
  };
}

async function everyView(server: ServerSession, id: number): Promise<string> {
  const views = await Promise.all([
    server.call("find", { query: SECRET, status: "any" }),
    server.callRaw({ view: "overview", data: {} }, "memory_review"),
    server.callRaw({ view: "expired", data: { query: SECRET } }, "memory_review"),
    server.callRaw({ view: "audit", data: { limit: 100 } }, "memory_review"),
    server.callRaw({ view: "conflicts", data: { status: "all" } }, "memory_review"),
    server.callRaw({ view: "history", data: { memory_id: id } }, "memory_review"),
    server.callRaw({ view: "entities", data: {} }, "memory_review"),
    server.callRaw({ view: "entity", data: { name: "Deploy Vault", depth: 3 } }, "memory_review"),
  ]);
  assert.deepEqual(views.map((view) => view.ok), [
    true,
    true,
    true,
    true,
    true,
    false,
    true,
    false,
  ]);
  assert.equal(views[5].data.error, "not_found");
  assert.equal(views[7].data.error, "not_found", "an entity only the purged fact named is gone");
  return JSON.stringify(views);
}

onBothBackends(
  "purge over MCP removes a secret from every view and from the database",
  async (home, backend) => {
    const storage = storageOf(home, backend);
    const server = await startServer(home);
    try {
      const stored = await server.call("remember", {
        content: `The deploy API key is ${SECRET}-0001.`,
        subject: "deploy key",
        workspace: "acme",
        tags: ["credentials"],
        entities: [`${SECRET}-vault`],
        relations: [{ from: "Deploy Vault", type: "holds", to: `${SECRET}-vault` }],
      });
      const graph = await server.callRaw(
        { view: "entity", data: { name: "Deploy Vault" } },
        "memory_review",
      );
      assert.ok(JSON.stringify(graph.data.relations).includes(SECRET), JSON.stringify(graph));
      const id = stored.data.memory_id as number;
      const other = await server.call("remember", {
        content: "The deploy runs every Friday at noon.",
        subject: "deploy day",
        workspace: "acme",
      });
      await server.call("update", {
        memory_id: id,
        old_text: `${SECRET}-0001`,
        new_text: `${SECRET}-0002`,
      });
      assert.equal((await server.call("find", { query: SECRET })).data.results[0].memory_id, id);
      assert.ok(await storage.holds(SECRET));
      const holding = backend.name === "postgres" ? await tablesHolding(backend.url, SECRET) : [];

      const before = await storage.snapshot();
      const asked = await server.call(
        "purge",
        { memory_id: id, reason: "key stored by mistake" },
        "memory_govern",
      );
      assert.equal(asked.ok, true);
      assert.equal(asked.data.applied, false);
      assert.equal(asked.data.action_required, "ask_user_for_authorization");
      assert.match(asked.data.impact, /permanently deletes/);
      const missing = await server.call(
        "purge",
        { memory_id: 9999, reason: "x", authorized: true },
        "memory_govern",
      );
      assert.deepEqual([missing.ok, missing.data.error, missing.data.field], [
        false,
        "not_found",
        "memory_id",
      ]);
      const bad = await server.call(
        "purge",
        { memory_id: id, memory_ids: [id], reason: "x", authorized: true },
        "memory_govern",
      );
      assert.deepEqual([bad.ok, bad.data.error], [false, "invalid_input"]);
      const noReason = await server.call(
        "purge",
        { memory_id: id, authorized: true },
        "memory_govern",
      );
      assert.deepEqual([noReason.ok, noReason.data.error, noReason.data.field], [
        false,
        "invalid_input",
        "reason",
      ]);
      assert.equal(await storage.snapshot(), before, "refusals and bad input change nothing");

      const purged = await server.call(
        "purge",
        { memory_ids: [id], reason: "key stored by mistake", authorized: true },
        "memory_govern",
      );
      assert.equal(purged.ok, true, JSON.stringify(purged));
      assert.deepEqual(purged.data.purged_ids, [id]);
      assert.equal(purged.data.versions_purged, 2);
      // PostgreSQL recycles its own WAL; mema's part there is the VACUUM.
      assert.equal(purged.data.wal_truncated, backend.name === "sqlite");
      assert.deepEqual(purged.warnings, []);

      const read = await server.call("read", { memory_id: id });
      assert.deepEqual([read.ok, read.data.error], [false, "not_found"]);
      const views = await everyView(server, id);
      assert.ok(!views.includes(SECRET), views);
      assert.ok(views.includes("key stored by mistake"), "the audit keeps the purge's reason");
      assert.equal(
        (await server.call("find", { query: "deploy" })).data.results[0].memory_id,
        other.data.memory_id,
        "the rest of the library still answers",
      );
      assert.ok(!await storage.holds(SECRET), "not a byte of it in the database");
      if (backend.name === "postgres") {
        const vacuumed = await vacuumedTables(backend.url);
        const missed = holding.filter((table) => !vacuumed.includes(table));
        assert.deepEqual(missed, [], `every table that held it was vacuumed (held: ${holding})`);
      }
      const again = await server.call(
        "purge",
        { memory_id: id, reason: "again", authorized: true },
        "memory_govern",
      );
      assert.deepEqual([again.ok, again.data.error], [false, "not_found"]);
    } finally {
      await server.close();
    }
  },
);

// SQLite only: a reader holding the WAL of the file. PostgreSQL's owed scrub is tested below.
Deno.test("e2e: a purge whose WAL a reader held is finished by the next start, even after kill -9", async () => {
  const home = makeTempHome();
  const env = { MEMA_CLIENT: "test-client", MEMA_AGENT_ID: "test-agent" };
  const content = `The staging API key is ${SECRET}-0003.`;
  const backupPath = `${home.dbPath}.backup.jsonl`;
  const first = await spawnStdioServer(home, env);
  let reader: Deno.ChildProcess | undefined;
  try {
    const stored = await first.call("remember", {
      content,
      subject: "staging key",
      workspace: "w",
    });
    await first.call("remember", {
      content: "Staging deploys on Mondays.",
      subject: "s",
      workspace: "w",
    });
    // A copy of the same text saved during an outage, not replayed yet.
    Deno.writeTextFileSync(
      backupPath,
      JSON.stringify({
        id: "saved-secret",
        at: "2026-01-01T00:00:00.000Z",
        caller: { client: "test-client", agentId: "test-agent" },
        action: "remember",
        input: { content, subject: "staging key", workspace: "w" },
      }) + "\n",
    );
    // Another process reading: its snapshot keeps the WAL from being truncated.
    reader = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { DatabaseSync } from "node:sqlite";
         const db = new DatabaseSync(${JSON.stringify(home.dbPath)});
         db.exec("BEGIN");
         db.prepare("SELECT count(*) FROM memories").get();
         console.log("reading");
         setInterval(() => {}, 1000);`,
      ],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const lines = reader.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await lines.read()).value ?? "", /reading/);

    const purged = await first.call(
      "purge",
      { memory_id: stored.data.memory_id, reason: "key stored by mistake", authorized: true },
      "memory_govern",
    );
    assert.equal(purged.ok, true, JSON.stringify(purged.data));
    assert.equal(purged.data.wal_truncated, false, "the reader kept the WAL");
    assert.ok(purged.warnings.some((w) => /WAL/.test(w)), purged.warnings.join("\n"));
    first.kill();
    reader.kill("SIGKILL");
    await reader.status;
    lines.releaseLock();
    reader = undefined;
    assert.ok(fileHolds(home.dbPath, SECRET), "the secret is still in the -wal after the crash");

    const second = await startServer(home);
    try {
      assert.equal((await second.call("status")).ok, true);
      assert.equal(fileHolds(home.dbPath, SECRET), false, "not in the database file or its -wal");
      assert.ok(!Deno.readTextFileSync(backupPath).includes(SECRET), "not in the backup file");
      const read = await second.call("read", { memory_id: stored.data.memory_id });
      assert.equal(read.data.error, "not_found");
    } finally {
      await second.close();
    }
  } finally {
    reader?.kill("SIGKILL");
    await reader?.status;
    await first.close().catch(() => {});
    home.cleanup();
  }
});

/** What a purge still owes (the WAL's truncation, the backup file's rewrite), or undefined. */
function owedScrub(home: TempHome, backend: E2eBackend): Promise<string | undefined> {
  if (backend.name === "postgres") return metaValue(backend.url, PURGE_SCRUB_OWED);
  const db = new DatabaseSync(home.dbPath, { readOnly: true });
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(PURGE_SCRUB_OWED);
    return Promise.resolve(row?.value as string | undefined);
  } finally {
    db.close();
  }
}

onBothBackends(
  "a purge killed after its answer owes nothing once the next server has started",
  async (home, backend) => {
    const storage = storageOf(home, backend);
    const env = { MEMA_CLIENT: "test-client", MEMA_AGENT_ID: "test-agent" };
    const content = `The billing API key is ${SECRET}-0004.`;
    const backupPath = `${home.dbPath}.backup.jsonl`;
    const first = await spawnStdioServer(home, env);
    try {
      const stored = await first.call("remember", {
        content,
        subject: "billing key",
        workspace: "w",
      });
      // A copy of the same text saved during an outage, not replayed yet.
      Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
      Deno.writeTextFileSync(
        backupPath,
        JSON.stringify({
          id: "saved-billing",
          at: "2026-01-01T00:00:00.000Z",
          caller: { client: "test-client", agentId: "test-agent" },
          action: "remember",
          input: { content, subject: "billing key", workspace: "w" },
        }) + "\n",
      );
      const purged = await first.call(
        "purge",
        { memory_id: stored.data.memory_id, reason: "key stored by mistake", authorized: true },
        "memory_govern",
      );
      assert.equal(purged.ok, true, JSON.stringify(purged.data));
      assert.deepEqual(purged.warnings, []);
      first.kill();

      const second = await startServer(home);
      try {
        // The owed scrub is finished before the server answers anything.
        assert.equal((await second.call("status")).ok, true);
        assert.equal(await owedScrub(home, backend), undefined, "nothing owed after the start");
        assert.ok(!Deno.readTextFileSync(backupPath).includes(SECRET), "not in the backup file");
        assert.ok(!await storage.holds(SECRET), "not in the database");
        const read = await second.call("read", { memory_id: stored.data.memory_id });
        assert.equal(read.data.error, "not_found");
      } finally {
        await second.close();
      }
    } finally {
      first.kill();
      await first.close().catch(() => {});
    }
  },
);
