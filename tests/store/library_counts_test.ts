/**
 * The kept counts behind `status` (src/store/library_counts_sql.ts, src/store/postgres/
 * library_counts.ts), by status, workspace, source and protection (the overview): a library of the
 * previous generation gets them counted when it is opened, writes an older build made uncounted
 * included; on PostgreSQL, two servers writing at once keep
 * them exact, and a unit held open on one server never makes the other's counted writes wait.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openStore, type Store } from "../../src/store/mod.ts";
import type { RecallFilters } from "../../src/store/types.ts";
import type { OverviewCounts } from "../../src/store/library_counts_sql.ts";
import { openPostgresAsStore } from "../../src/store/postgres/app_store.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { PG_MIGRATIONS } from "../../src/store/postgres/migrations.ts";
import { LIBRARY_COUNTS_PG } from "../../src/store/postgres/library_counts.ts";
import { queryRows } from "../helpers/postgres_rows.ts";
import { contextOf, holdOpen, twoServers, withinBound } from "../helpers/held_units.ts";
import { testPostgresUrl } from "./backends.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** The PostgreSQL migration that brings the kept counts (the lead may renumber it at merge). */
const COUNTS_VERSION = PG_MIGRATIONS.find((m) => m.statements === LIBRARY_COUNTS_PG)!.version;

interface Counts {
  memories: Record<string, number>;
  /** Of workspace "ci". */
  inCi: Record<string, number>;
  history: number;
  jobs: Record<string, Record<string, number>>;
  /** Browse totals: active, active in "ci", live outside "ci", active with a tag (scanned). */
  browse: number[];
  /** The overview's counts, of the library and of "ci". */
  overview: OverviewCounts[];
  /** Evidence rows not embedded in SPACE. */
  toEmbed: number;
}

const BROWSES: RecallFilters[] = [
  { statuses: ["active"] },
  { statuses: ["active"], workspaces: ["ci"] },
  { statuses: ["active", "retired"], excludeWorkspaces: ["ci"] },
  { statuses: ["active"], tagsAll: ["nightly"] },
];

/** The embedding space the tests embed rows in. */
const SPACE = "test-model:4:abc";

const TRUTH = {
  toEmbed: `SELECT CAST(count(*) AS INTEGER) AS n FROM memory_rows
    WHERE embedding_space IS NULL OR embedding_space != '${SPACE}'`,
  memories: "SELECT status, CAST(count(*) AS INTEGER) AS n FROM memories GROUP BY status",
  inCi: `SELECT status, CAST(count(*) AS INTEGER) AS n FROM memories
    WHERE workspace_canonical = 'ci' GROUP BY status`,
  browse: `SELECT
    CAST((SELECT count(*) FROM memories WHERE status = 'active') AS INTEGER) AS a,
    CAST((SELECT count(*) FROM memories WHERE status = 'active' AND workspace_canonical = 'ci')
      AS INTEGER) AS b,
    CAST((SELECT count(*) FROM memories WHERE status IN ('active', 'retired')
      AND workspace_canonical != 'ci') AS INTEGER) AS c,
    CAST((SELECT count(*) FROM memories WHERE status = 'active' AND CAST(tags AS TEXT) LIKE '%"nightly"%')
      AS INTEGER) AS d`,
  history: "SELECT CAST(count(*) AS INTEGER) AS n FROM memory_history",
  jobs: "SELECT kind, status, CAST(count(*) AS INTEGER) AS n FROM jobs GROUP BY kind, status",
};

/** The tables counted now, by a statement per count (the truth the kept counts must equal). */
async function countedTables(
  rows: (statement: string) => Promise<Record<string, unknown>[]>,
): Promise<Counts> {
  const memories: Record<string, number> = {};
  for (const row of await rows(TRUTH.memories)) memories[String(row.status)] = Number(row.n);
  const jobs: Record<string, Record<string, number>> = {};
  for (const row of await rows(TRUTH.jobs)) {
    (jobs[String(row.kind)] ??= {})[String(row.status)] = Number(row.n);
  }
  const inCi: Record<string, number> = {};
  for (const row of await rows(TRUTH.inCi)) inCi[String(row.status)] = Number(row.n);
  const [browse] = await rows(TRUTH.browse);
  const overview = [];
  for (const scope of ["1 = 1", "workspace_canonical = 'ci'"]) {
    const grouped = async (column: string, where: string) => {
      const counts: Record<string, number> = {};
      for (
        const row of await rows(
          `SELECT ${column} AS k, CAST(count(*) AS INTEGER) AS n FROM memories
           WHERE ${where} AND ${scope} GROUP BY ${column}`,
        )
      ) counts[String(row.k)] = Number(row.n);
      return counts;
    };
    overview.push({
      byStatus: await grouped("status", "status != 'deleted'"),
      bySource: await grouped("source_type", "status = 'active'"),
      byWorkspace: await grouped("workspace_canonical", "status = 'active'"),
      byProtection: await grouped("protection_level", "status = 'active'"),
    });
  }
  return {
    memories,
    inCi,
    history: Number((await rows(TRUTH.history))[0].n),
    jobs,
    browse: [browse.a, browse.b, browse.c, browse.d].map(Number),
    overview,
    toEmbed: Number((await rows(TRUTH.toEmbed))[0].n),
  };
}

async function keptCounts(store: Store): Promise<Counts> {
  return await store.read(async () => ({
    memories: await store.countByStatus(),
    inCi: await store.countByStatus("ci"),
    history: await store.countHistory(),
    jobs: await store.countJobs(),
    browse: await Promise.all(BROWSES.map((filters) => store.countFiltered(filters))),
    overview: [await store.overviewCounts(), await store.overviewCounts("ci")],
    toEmbed: (await store.countRowsToEmbed(SPACE)).pending,
  }));
}

function sqliteRows(path: string): (statement: string) => Promise<Record<string, unknown>[]> {
  return (statement) => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return Promise.resolve(db.prepare(statement).all() as Record<string, unknown>[]);
    } finally {
      db.close();
    }
  };
}

/** Remembers `n` memories and retires the first: rows, history and jobs of the write path. */
async function writeSome(store: Store, dir: string, n: number): Promise<void> {
  const ctx = contextOf(store, dir, "agent-counts");
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const saved = await rememberMemory(ctx, {
      content: `Pipeline ${i} publishes build ${i} artefacts to the mirror.`,
      subject: `pipeline ${i}`,
      workspace: i % 3 === 2 ? "web" : "ci",
      tags: i % 2 === 0 ? ["nightly"] : [],
    });
    ids.push(saved.memoryId);
  }
  // A new vector table clears every row's space; then some rows are embedded in SPACE.
  await store.write(async () => await store.recreateVecTable(4));
  const toEmbed = await store.read(async () => await store.rowsToEmbed(SPACE, 5));
  await store.write(async () =>
    await store.writeRowVectors(
      SPACE,
      toEmbed.map((row) => ({ rowId: row.id, vector: new Float32Array([1, 0, 0, row.id]) })),
    )
  );
  await store.write(async (tx) => {
    await tx.setTrust(ids[1], {
      sourceType: "user_confirmed",
      protectionLevel: "protected",
      now: new Date().toISOString(),
    });
    await tx.setStatus(ids[0], {
      status: "retired",
      supersededBy: null,
      now: new Date().toISOString(),
    });
  });
}

/** A memory row as an older build writes it (no kept counts: it must be counted at upgrade). */
const OLD_BUILD_INSERT = `INSERT INTO memories (subject, content, content_sha, workspace,
  workspace_canonical, source_type, ingest_time, agent_id, client, created_at, updated_at, status)
  VALUES ('old', 'Written by the previous build.', 'old-sha', 'ci', 'ci', 'agent_generated',
  '2025-01-01T00:00:00.000Z', 'a', 'c', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z',
  'retired')`;

Deno.test("sqlite: a library of the previous generation gets exact counts when opened", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-counts-" });
  const path = `${dir}/mema.sqlite3`;
  try {
    const store = await openStore(path, { cacheDir: `${dir}/cache` });
    await writeSome(store, dir, 4);
    store.close();
    // Back to generation 15 as it was: no count table, no triggers; then an uncounted write.
    const db = new DatabaseSync(path);
    for (
      const { name } of db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'library_counts_%'",
      ).all() as { name: string }[]
    ) db.exec(`DROP TRIGGER ${name}`);
    db.exec("DROP TABLE library_counts");
    db.exec("UPDATE meta SET value = '15' WHERE key = 'schema_generation'");
    db.exec(OLD_BUILD_INSERT);
    db.exec("DELETE FROM jobs WHERE id = (SELECT min(id) FROM jobs)");
    db.close();

    const reopened = await openStore(path, { cacheDir: `${dir}/cache` });
    try {
      assert.ok(reopened.schema.migrated.includes(16), "generation 16 was applied");
      const kept = await keptCounts(reopened);
      assert.deepEqual(kept, await countedTables(sqliteRows(path)));
      assert.deepEqual(kept.memories, { active: 3, retired: 2 });
      assert.ok(kept.browse.every((total) => total > 0), "every browse total counts something");
      // And kept from then on.
      await writeSome(reopened, dir, 2);
      assert.deepEqual(await keptCounts(reopened), await countedTables(sqliteRows(path)));
    } finally {
      reopened.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test({
  name: `postgres: a database at the previous migration gets exact counts when opened${
    SKIP_POSTGRES ? " SKIPPED" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const dir = Deno.makeTempDirSync({ prefix: "mema-counts-" });
    const rows = (statement: string) => queryRows(scratch.url, statement, []);
    try {
      const store = await openPostgresAsStore(scratch.url);
      await writeSome(store, dir, 4);
      await store.close();
      // Back to the migration before the counts, then an uncounted write of an older build.
      const sql = await connectPostgres(scratch.url, { max: 1 });
      try {
        await sql.unsafe(`
          DROP TABLE library_counts, library_count_shards;
          DROP SEQUENCE library_count_shard_seq;
          DROP FUNCTION mema_count_deltas CASCADE;
          DROP FUNCTION mema_counted_memories_insert, mema_counted_memories_delete,
            mema_counted_memories_update, mema_counted_memory_history_insert,
            mema_counted_memory_history_delete, mema_counted_memory_rows_insert,
            mema_counted_memory_rows_delete, mema_counted_memory_rows_update,
            mema_counted_jobs_insert, mema_counted_jobs_delete, mema_counted_jobs_update CASCADE;
          DELETE FROM schema_version WHERE version >= ${COUNTS_VERSION};
          ${OLD_BUILD_INSERT};
          DELETE FROM jobs WHERE id = (SELECT min(id) FROM jobs);
        `).simple();
      } finally {
        await sql.end({ timeout: 1 });
      }
      const reopened = await openPostgresAsStore(scratch.url);
      try {
        const kept = await keptCounts(reopened);
        assert.deepEqual(kept, await countedTables(rows));
        assert.deepEqual(kept.memories, { active: 3, retired: 2 });
        assert.ok(kept.browse.every((total) => total > 0), "every browse total counts something");
        await writeSome(reopened, dir, 2);
        assert.deepEqual(await keptCounts(reopened), await countedTables(rows));
      } finally {
        await reopened.close();
      }
    } finally {
      await scratch.drop();
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: `postgres: two servers writing at once keep the counts exact, neither waiting${
    SKIP_POSTGRES ? " SKIPPED" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { storeA, storeB, a, b, url, close } = await twoServers("mema-pg-counts-");
    try {
      // The workspace exists first: registering one is a wait of its own (remember's).
      await rememberMemory(a, {
        content: "builds run in containers",
        subject: "builds",
        workspace: "ci",
      });
      // A unit on server A holds its count shard open; server B's counted writes go on.
      const held = await holdOpen(storeA, () =>
        rememberMemory(a, {
          content: "the release train leaves every second week",
          subject: "release train",
          workspace: "ci",
        }), { durable: true });
      await withinBound(
        rememberMemory(b, {
          content: "nightly builds keep seven days of logs",
          subject: "nightly logs",
          workspace: "ci",
        }),
        "a remember on server B waited for the counts of a unit open on server A",
      );
      held.release();
      await held.done;
      // Many writes from both servers at once.
      const burst = (ctx: typeof a, who: string) =>
        Array.from({ length: 12 }, (_, i) =>
          rememberMemory(ctx, {
            content: `runner ${who}-${i} caches ${i * 3} gigabytes of layers`,
            subject: `runner ${who}-${i}`,
            workspace: "ci",
          }));
      await Promise.all([...burst(a, "a"), ...burst(b, "b")]);
      const truth = await countedTables((statement) => queryRows(url, statement, []));
      assert.equal(truth.memories.active, 27);
      assert.deepEqual(await keptCounts(storeA), truth);
      assert.deepEqual(await keptCounts(storeB), truth);
    } finally {
      await close();
    }
  },
});
