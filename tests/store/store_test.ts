import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MemaError } from "../../src/errors/mod.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openStore, SCHEMA_GENERATION } from "../../src/store/mod.ts";
import { MIGRATIONS, setMeta } from "../../src/store/schema.ts";
import { openConnection } from "../../src/store/sqlite_connection.ts";
import { openTestContext } from "../helpers/context.ts";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";

function tempDir(): string {
  return Deno.makeTempDirSync({ prefix: "mema-store-" });
}

Deno.test("a new database gets WAL, the current generation, FTS5 and sqlite-vec", async () => {
  const dir = tempDir();
  try {
    const store = await openStore(`${dir}/sub/dir/m.sqlite3`, { cacheDir: `${dir}/cache` });
    assert.equal(store.schema.generation, SCHEMA_GENERATION);
    assert.equal(store.schema.created, true);
    assert.equal(store.capabilities.fts, true);
    assert.equal(store.capabilities.vec, true, store.capabilities.vecError);
    store.close();
    const db = new DatabaseSync(`${dir}/sub/dir/m.sqlite3`);
    assert.equal(
      (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
      "wal",
    );
    db.close();
    const vecDirs = [...Deno.readDirSync(`${dir}/cache/native`)].map((e) => e.name);
    assert.equal(vecDirs.length, 1);
    assert.match(vecDirs[0], /^sqlite-vec-[0-9a-f]{16}$/);
    const reopened = await openStore(`${dir}/sub/dir/m.sqlite3`, { cacheDir: `${dir}/cache` });
    assert.equal(reopened.schema.created, false);
    reopened.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a newer generation or a foreign SQLite file is refused with the way forward", async () => {
  const dir = tempDir();
  try {
    const store = await openStore(`${dir}/m.sqlite3`, { cacheDir: `${dir}/cache` });
    store.close();
    const db = new DatabaseSync(`${dir}/m.sqlite3`);
    db.exec(`UPDATE meta SET value = '${SCHEMA_GENERATION + 1}' WHERE key = 'schema_generation'`);
    db.close();
    await assert.rejects(
      openStore(`${dir}/m.sqlite3`, { cacheDir: `${dir}/cache` }),
      (e: unknown) =>
        e instanceof MemaError && e.code === "schema_mismatch" && /newer/.test(e.reason),
    );
    const foreign = new DatabaseSync(`${dir}/other.sqlite3`);
    foreign.exec("CREATE TABLE notes(x)");
    foreign.close();
    await assert.rejects(
      openStore(`${dir}/other.sqlite3`, { cacheDir: `${dir}/cache` }),
      (e: unknown) =>
        e instanceof MemaError && e.code === "schema_mismatch" &&
        /not a mema database/.test(e.reason),
    );
    Deno.writeTextFileSync(
      `${dir}/garbage.sqlite3`,
      "this is not sqlite at all, just text".repeat(200),
    );
    await assert.rejects(
      openStore(`${dir}/garbage.sqlite3`, { cacheDir: `${dir}/cache` }),
      (e: unknown) => e instanceof MemaError,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the full-text index follows inserts and updates in the same transaction", async () => {
  const t = await openTestContext();
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: "zebra crossing",
      subject: "s",
      workspace: "w",
    });
    assert.deepEqual(
      (await t.store.termHits(["zebra"], { statuses: ["active"] }, 5)).map((h) => h.id),
      [
        memoryId,
      ],
    );
    await updateMemory(t.ctx, {
      memoryId,
      edit: { kind: "new_content", content: "giraffe crossing" },
    });
    assert.equal((await t.store.termHits(["zebra"], { statuses: ["active"] }, 5)).length, 0);
    assert.equal((await t.store.termHits(["giraff"], { statuses: ["active"] }, 5)).length, 1);
  } finally {
    t.cleanup();
  }
});

Deno.test("an out-of-step full-text index is rebuilt at open", async () => {
  const dir = tempDir();
  try {
    const path = `${dir}/m.sqlite3`;
    const store = await openStore(path, { cacheDir: `${dir}/cache` });
    const ctx = {
      store,
      caller: { client: "c", agentId: "a" },
      settings: { workspaceIsolation: "none" as const, includeSize: true },
      events: composeMemoryEvents(),
    };
    await rememberMemory(ctx, { content: "walrus facts", subject: "s", workspace: "w" });
    store.close();
    const db = new DatabaseSync(path);
    db.exec("INSERT INTO memories_terms(memories_terms) VALUES ('delete-all')");
    db.close();
    const reopened = await openStore(path, { cacheDir: `${dir}/cache` });
    assert.equal((await reopened.termHits(["walru"], { statuses: ["active"] }, 5)).length, 1);
    assert.equal((await reopened.termHits(["fact"], { statuses: ["active"] }, 5)).length, 1);
    reopened.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a write retries while another process holds the write lock", async () => {
  const dir = tempDir();
  try {
    const path = `${dir}/m.sqlite3`;
    (await openStore(path, { cacheDir: `${dir}/cache` })).close();
    const holderScript = `
      import { DatabaseSync } from "node:sqlite";
      const db = new DatabaseSync(${JSON.stringify(path)});
      db.exec("BEGIN IMMEDIATE");
      db.exec("INSERT INTO meta(key, value) VALUES ('holder', '1')");
      console.log("locked");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
      db.exec("COMMIT");
    `;
    const holder = new Deno.Command(Deno.execPath(), {
      args: ["eval", holderScript],
      stdout: "piped",
    }).spawn();
    const reader = holder.stdout.getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /locked/);
    // busy_timeout (50 ms) alone would give up long before the holder's 400 ms: the
    // write succeeds only because the transaction is retried with backoff.
    const waiter = openConnection(path, { busyTimeoutMs: 50 });
    const started = performance.now();
    await waiter.write(() =>
      Promise.resolve(waiter.db.exec("INSERT INTO meta(key, value) VALUES ('waiter', '1')"))
    );
    const waited = performance.now() - started;
    reader.releaseLock();
    await holder.stdout.cancel();
    await holder.status;
    const rows = waiter.db.prepare("SELECT key FROM meta WHERE key IN ('holder', 'waiter')").all();
    assert.equal(rows.length, 2);
    assert.ok(waited > 50, `waited ${waited} ms`);
    waiter.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a generation-4 database is upgraded in place: sequences and the word index", async () => {
  const dir = tempDir();
  const path = `${dir}/old.sqlite3`;
  try {
    // Build the file exactly as generation 4 left it, with one stored memory.
    const connection = openConnection(path, {});
    connection.writeNow(() => {
      for (const migration of MIGRATIONS.filter((m) => m.generation <= 4)) {
        migration.apply(connection);
      }
      setMeta(connection, "schema_generation", "4");
      connection.db.exec(
        `INSERT INTO memories (subject, content, content_sha, workspace, workspace_canonical,
           source_type, ingest_time, agent_id, client, created_at, updated_at)
         VALUES ('hobby', 'Caroline paints sunsets.', 'x', 'w', 'w', 'agent_generated',
           '2025-01-01T00:00:00.000Z', 'a', 'c', '2025-01-01T00:00:00.000Z',
           '2025-01-01T00:00:00.000Z')`,
      );
    });
    connection.close();

    const store = await openStore(path, { cacheDir: `${dir}/cache` });
    try {
      // Every later generation, whatever their number (other work adds migrations at the end).
      const later = Array.from({ length: SCHEMA_GENERATION - 4 }, (_, index) => index + 5);
      assert.deepEqual(store.schema.migrated, later);
      assert.equal(store.schema.generation, SCHEMA_GENERATION);
      const old = await store.getMemory(1);
      assert.equal(old?.follows, null);
      // The word index was filled from the rows already there ("paints" is indexed as "paint").
      assert.deepEqual(
        (await store.termHits(["paint"], { statuses: ["active"] }, 5)).map((h) => h.id),
        [
          1,
        ],
      );
      // The workspace registry knows the workspace the stored memory uses, and the default pool.
      assert.deepEqual(
        (await store.listWorkspaces()).map((w) => [w.canonical, w.state, w.reviewed]),
        [["default", "active", true], ["w", "active", true]],
      );
    } finally {
      store.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("background writes skip the disk sync; every other write still syncs (FULL)", async () => {
  const dir = tempDir();
  try {
    const connection = openConnection(`${dir}/sync.sqlite3`, {});
    const level = () =>
      Number(
        (connection.db.prepare("PRAGMA synchronous").get() as { synchronous: number })
          .synchronous,
      );
    const FULL = 2;
    const NORMAL = 1;
    try {
      connection.db.exec("CREATE TABLE t (v INTEGER)");
      assert.equal(level(), FULL);
      const during = await connection.write(() => {
        connection.db.exec("INSERT INTO t VALUES (1)");
        return Promise.resolve(level());
      }, { durable: false });
      assert.equal(during, NORMAL);
      assert.equal(level(), FULL, "the next acknowledged write syncs again");
      assert.equal(await connection.write(() => Promise.resolve(level())), FULL);
      // A failed background write leaves the level restored too.
      await assert.rejects(connection.write(() => Promise.reject(new Error("boom")), {
        durable: false,
      }));
      assert.equal(level(), FULL);
      const rows = connection.db.prepare("SELECT count(*) AS n FROM t").get() as { n: number };
      assert.equal(Number(rows.n), 1);
    } finally {
      connection.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
