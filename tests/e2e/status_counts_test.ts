/**
 * `status` answers from kept counts (src/store/library_counts_sql.ts, its PostgreSQL twin): after
 * remembers, updates, retires, a purge, an import, a workspace merge and the jobs they queued, its
 * counts equal a fresh count of the tables, on both backends; so do the counts of a copy of the
 * library (into SQLite, and from there back into PostgreSQL).
 */
import assert from "node:assert/strict";
import { type E2eBackend, libraryRows, onBothBackends } from "../helpers/e2e_backends.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";
import { runCli, type ServerSession, startServer, type TempHome } from "../helpers/server.ts";

interface Counts {
  memories: Record<string, number>;
  history: number;
  rows: number;
  jobs: Record<string, Record<string, number>>;
}

/** The truth: the tables counted now (what the kept counts must equal). */
async function countedTables(home: TempHome, backend: E2eBackend): Promise<Counts> {
  const rows = (statement: string) => libraryRows(home, backend, statement);
  const memories: Record<string, number> = {};
  for (
    const row of await rows(
      "SELECT status, CAST(count(*) AS INTEGER) AS n FROM memories GROUP BY status",
    )
  ) {
    memories[String(row.status)] = Number(row.n);
  }
  const jobs: Record<string, Record<string, number>> = {};
  for (
    const row of await rows(
      "SELECT kind, status, CAST(count(*) AS INTEGER) AS n FROM jobs GROUP BY kind, status",
    )
  ) {
    (jobs[String(row.kind)] ??= {})[String(row.status)] = Number(row.n);
  }
  const [history] = await rows("SELECT CAST(count(*) AS INTEGER) AS n FROM memory_history");
  const [evidence] = await rows("SELECT CAST(count(*) AS INTEGER) AS n FROM memory_rows");
  return { memories, history: Number(history.n), rows: Number(evidence.n), jobs };
}

function statusCounts(data: Record<string, unknown>): Counts {
  return {
    memories: data.memories as Record<string, number>,
    history: Number(data.history_versions),
    rows: Number((data.evidence as { rows: number }).rows),
    jobs: data.jobs as Record<string, Record<string, number>>,
  };
}

/**
 * `status`'s counts once the server's background jobs have drained, and the tables counted
 * between two equal answers: the server moved nothing while the truth was read.
 */
async function settled(
  server: ServerSession,
  truth: () => Promise<Counts>,
): Promise<{ answered: Counts; counted: Counts }> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    const first = statusCounts((await server.call("status", {})).data);
    const open = Object.values(first.jobs).some((byStatus) =>
      (byStatus.pending ?? 0) + (byStatus.running ?? 0) > 0
    );
    if (open) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const counted = await truth();
    const second = statusCounts((await server.call("status", {})).data);
    if (JSON.stringify(first) === JSON.stringify(second)) return { answered: second, counted };
  }
  throw new Error("the server's jobs never settled");
}

onBothBackends("status counts equal the tables after mixed writes", async (home, backend) => {
  Deno.mkdirSync(`${home.dir}/notes`);
  for (let n = 0; n < 6; n++) {
    Deno.writeTextFileSync(
      `${home.dir}/notes/note-${n}.md`,
      `# Note ${n}\n\nThe build farm ${n} restarts at ${n + 1} am.\n\nIts disks rotate weekly.\n`,
    );
  }
  const server = await startServer(home);
  try {
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) {
      const saved = await server.call("remember", {
        workspace: "ops",
        subject: `service ${n}`,
        content: `Service ${n} deploys on day ${n} of the week. It pages the on-call rota.`,
      });
      assert.ok(saved.ok, JSON.stringify(saved.data));
      ids.push(saved.data.memory_id);
    }
    const updated = await server.call("update", {
      memory_id: ids[0],
      new_content: "Service 0 deploys on Mondays now. It pages the on-call rota.",
    });
    assert.ok(updated.ok, JSON.stringify(updated.data));
    const retired = await server.call("retire", {
      memory_id: ids[1],
      reason: "the service was shut down",
      authorized: true,
    }, "memory_govern");
    assert.ok(retired.ok, JSON.stringify(retired.data));
    const purged = await server.call("purge", {
      memory_ids: [ids[2]],
      reason: "stored by mistake",
      authorized: true,
    }, "memory_govern");
    assert.ok(purged.ok, JSON.stringify(purged.data));
    const imported = await runCli(home, ["import", `${home.dir}/notes`, "--workspace", "ops"]);
    assert.equal(imported.code, 0, imported.stderr);
    // A merge moves memories between workspaces; a twin of one there is superseded.
    for (
      const content of [
        `Service 3 deploys on day 3 of the week. It pages the on-call rota.`,
        "The web tier scales out at noon.",
      ]
    ) {
      const saved = await server.call("remember", {
        workspace: "ops-web",
        subject: "web",
        content,
      });
      assert.ok(saved.ok, JSON.stringify(saved.data));
    }
    const merged = await server.call("merge_workspaces", {
      from: "ops-web",
      into: "ops",
      reason: "one team",
      authorized: true,
    }, "memory_govern");
    assert.equal(merged.data.moved, 2, JSON.stringify(merged.data));

    const { answered, counted: truth } = await settled(
      server,
      () => countedTables(home, backend),
    );
    assert.deepEqual(answered, truth);
    assert.equal(truth.memories.active, 3 + 6 + 1, "the writes landed");
    assert.equal(truth.memories.superseded, 1, "the merged twin");
    // A browse's total (find without a query) is read from the kept counts by workspace.
    const [live] = await libraryRows(
      home,
      backend,
      "SELECT CAST(count(*) AS INTEGER) AS n FROM memories WHERE workspace_canonical = 'ops' AND status = 'active'",
    );
    const browsed = await server.call("find", { workspace: "ops", limit: 2 });
    assert.ok(browsed.ok, JSON.stringify(browsed.data));
    assert.equal(browsed.data.total_estimate, Number(live.n));
    assert.equal(truth.memories.retired, 1);
    assert.ok(truth.history >= 1 && truth.rows > 0);
  } finally {
    await server.close();
  }

  // A copy's counts are kept as its rows arrive (never copied: they would count twice).
  const copy = `${home.dir}/copy.sqlite3`;
  const source = backend.name === "postgres" ? backend.url : home.dbPath;
  const copied = await runCli(home, ["copy", source, copy]);
  assert.equal(copied.code, 0, copied.stderr + copied.stdout);
  const { MEMA_DB_URL: _url, ...env } = home.env;
  const copyHome = { ...home, dbPath: copy, env: { ...env, MEMA_DB_PATH: copy } };
  const onCopy = await startServer(copyHome);
  try {
    const { answered, counted } = await settled(
      onCopy,
      () => countedTables(copyHome, { name: "sqlite" }),
    );
    assert.deepEqual(answered, counted);
    assert.deepEqual(answered.memories, { active: 10, retired: 1, deleted: 1, superseded: 1 });
  } finally {
    await onCopy.close();
  }
  if (backend.name === "sqlite") return;

  // And back into PostgreSQL: the SQLite copy into a fresh database.
  const back = await createScratchDatabase(testPostgresUrl());
  try {
    const there = await runCli(home, ["copy", copy, back.url]);
    assert.equal(there.code, 0, there.stderr + there.stdout);
    const onBack = await startServer(home, { env: { MEMA_DB_URL: back.url } });
    try {
      const { answered, counted } = await settled(
        onBack,
        () => countedTables(home, { name: "postgres", url: back.url }),
      );
      assert.deepEqual(answered, counted);
      assert.deepEqual(answered.memories, { active: 10, retired: 1, deleted: 1, superseded: 1 });
    } finally {
      await onBack.close();
    }
  } finally {
    await back.drop();
  }
});
