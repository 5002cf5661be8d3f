/**
 * Team memory end to end (docs/SPEC.md §15, issue 33): real `mema serve` processes, stdio and
 * HTTP, on ONE PostgreSQL database, driven through the MCP SDK client the way agents drive them.
 * Each test makes its own scratch database (src/store/postgres/scratch.ts) and drops it.
 *
 * The test cluster's URL carries a password (scripts/test_postgres.ts): every test checks that
 * it appears in no server's stderr, no `status` and no `doctor` output.
 */
import assert from "node:assert/strict";
import { eventually, type Team, teamTest } from "../helpers/postgres_team.ts";
import { connectHttp, identityHeaders, startHttpServer } from "../helpers/http_server.ts";
import { startPostgresProxy } from "../helpers/pg_proxy.ts";
import { rememberConfirmed } from "../helpers/workspaces.ts";
import { runCli, type ServerSession, startServer } from "../helpers/server.ts";

/** A stdio server on the team's database, as agent `agentId`. */
function serverOn(team: Team, agentId: string): Promise<ServerSession> {
  return startServer(team.home(), {
    env: { MEMA_DB_URL: team.url, MEMA_AGENT_ID: agentId, MEMA_CLIENT: `client-${agentId}` },
  });
}

async function remember(
  server: ServerSession,
  content: string,
  subject: string,
): Promise<number> {
  const response = await server.call("remember", { content, subject, workspace: "team" });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response.data.memory_id;
}

async function foundIds(server: ServerSession, query: string): Promise<number[]> {
  const response = await server.call("find", { query, workspace: "team" });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response.data.results.map((hit: { memory_id: number }) => hit.memory_id);
}

/** The text of every file under `dir`, however deep. */
function textsUnder(dir: string): string[] {
  return [...Deno.readDirSync(dir)].flatMap((entry) =>
    entry.isDirectory
      ? textsUnder(`${dir}/${entry.name}`)
      : entry.isFile
      ? [Deno.readTextFileSync(`${dir}/${entry.name}`)]
      : []
  );
}

teamTest("a memory remembered on one server is found and read on another", async (team) => {
  const a = await serverOn(team, "alice");
  const b = await serverOn(team, "bob");
  try {
    const id = await remember(a, "The staging cluster runs in eu-west-3.", "staging region");
    assert.deepEqual(await foundIds(b, "staging cluster region"), [id]);
    const read = await b.call("read", { memory_id: id });
    assert.equal(read.ok, true, JSON.stringify(read.data));
    assert.equal(read.data.content, "The staging cluster runs in eu-west-3.");

    // An edit on B is what A reads next, and A's stale edit is refused.
    const updated = await b.call("update", {
      memory_id: id,
      new_content: "The staging cluster runs in eu-central-1.",
      expected_version: 1,
    });
    assert.equal(updated.ok, true, JSON.stringify(updated.data));
    const stale = await a.call("update", {
      memory_id: id,
      new_content: "The staging cluster runs in us-east-1.",
      expected_version: 1,
    });
    assert.equal(stale.ok, false, "a stale expected_version is refused on the other server");
    assert.equal(stale.data.error, "version_conflict");
    const again = await a.call("read", { memory_id: id });
    assert.equal(again.data.content, "The staging cluster runs in eu-central-1.");

    // Status names the backend, never the password.
    const status = await a.call("status");
    assert.equal(status.ok, true, JSON.stringify(status.data));
    assert.equal(status.data.backend.kind, "postgresql");
    assert.ok(status.data.backend.schema_version > 0);
    assert.match(status.data.backend.vector_path, /in-process copy/);
    assert.match(status.data.database, /^postgres(ql)?:\/\/[^:]+:\*\*\*@/);
    assert.equal(status.data.capabilities.sqlite_vec, undefined);
    const overview = await b.callRaw({ view: "overview", data: {} }, "memory_review");
    assert.equal(overview.ok, true, JSON.stringify(overview.data));
    assert.equal(overview.data.backend.kind, "postgresql");
    assert.match(overview.data.backend.vector_path, /pgvector/);
    for (const text of [JSON.stringify(status), JSON.stringify(overview), a.stderr(), b.stderr()]) {
      assert.ok(!text.includes(team.password), `the password shows in: ${text}`);
    }
    assert.match(a.stderr(), /serving postgresql postgres/);
  } finally {
    await a.close();
    await b.close();
  }
});

teamTest(
  "a contradiction written on one server opens one conflict, seen from the other",
  async (team) => {
    const a = await serverOn(team, "alice");
    const b = await serverOn(team, "bob");
    try {
      const first = await remember(
        a,
        "The v2 release deadline is Friday, March 14.",
        "release deadline",
      );
      const second = await remember(
        b,
        "The v2 release deadline moved to Monday, March 17.",
        "release deadline",
      );
      const listed = await eventually("a conflict seen from A", async () => {
        const response = await a.callRaw({ view: "conflicts", data: {} }, "memory_review");
        assert.equal(response.ok, true, JSON.stringify(response.data));
        const conflicts = response.data.conflicts as {
          conflict_id: number;
          member_ids: number[];
        }[];
        return conflicts.length > 0 ? conflicts : undefined;
      });
      // Both servers run background jobs on the one queue: the check runs once, so one group
      // and one notice, not one per server.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const after = await a.callRaw({ view: "conflicts", data: {} }, "memory_review");
      assert.equal(after.data.conflicts.length, 1, JSON.stringify(after.data.conflicts));
      assert.deepEqual(listed[0].member_ids.sort(), [first, second].sort());
      const notices = await a.repair("notice", { action: "list" });
      assert.equal(notices.ok, true, JSON.stringify(notices.data));
      const forConflict = (notices.data.notices as { conflict_id?: number }[])
        .filter((notice) => notice.conflict_id === listed[0].conflict_id);
      assert.equal(forConflict.length, 1, JSON.stringify(notices.data.notices));
    } finally {
      await a.close();
      await b.close();
    }
  },
);

teamTest(
  "what one server changes, another answers from at once: update, retire, purge",
  async (team) => {
    // Whatever a server keeps in memory (records, their token counts, word statistics) must
    // follow changes made by the OTHER server: B is asked right after each change on A.
    const a = await serverOn(team, "alice");
    const b = await serverOn(team, "bob");
    try {
      const id = await remember(a, "The nightly backup bucket is s3://ops-backups.", "backups");
      const keep = await remember(a, "Release notes live in the wiki.", "release notes");
      // B reads it first, so anything B holds of it is the first version.
      assert.deepEqual(await foundIds(b, "nightly backup bucket"), [id]);
      assert.equal((await b.call("read", { memory_id: id })).data.version, 1);

      const updated = await a.call("update", {
        memory_id: id,
        new_content: "The nightly backup vault is gs://ops-archive.",
        expected_version: 1,
      });
      assert.equal(updated.ok, true, JSON.stringify(updated.data));
      const read = await b.call("read", { memory_id: id });
      assert.deepEqual([read.data.version, read.data.content], [
        2,
        "The nightly backup vault is gs://ops-archive.",
      ]);
      assert.deepEqual(await foundIds(b, "archive vault"), [id], "B finds the new words");
      assert.deepEqual(await foundIds(b, "bucket"), [], "and no longer the old ones");

      const retired = await a.call(
        "retire",
        { memory_id: id, reason: "moved to the runbook", authorized: true },
        "memory_govern",
      );
      assert.equal(retired.ok, true, JSON.stringify(retired.data));
      assert.deepEqual(await foundIds(b, "archive vault"), [], "B no longer finds it");
      assert.equal((await b.call("read", { memory_id: id })).data.status, "retired");

      const purged = await a.call(
        "purge",
        { memory_ids: [id], reason: "stored by mistake", authorized: true },
        "memory_govern",
      );
      assert.equal(purged.ok, true, JSON.stringify(purged.data));
      const gone = await b.call("read", { memory_id: id });
      assert.deepEqual([gone.ok, gone.data.error], [false, "not_found"]);
      const any = await b.call("find", { query: "archive vault", status: "any" });
      assert.deepEqual(any.data.results, [], "not even among retired memories");
      assert.deepEqual(await foundIds(b, "release notes wiki"), [keep], "the rest still answers");
    } finally {
      await a.close();
      await b.close();
    }
  },
);

teamTest("kill -9 of a server loses no write it acknowledged", async (team) => {
  const a = await serverOn(team, "alice");
  const b = await serverOn(team, "bob");
  try {
    const acknowledged: number[] = [];
    const writes = Array.from({ length: 40 }, (_, i) =>
      a.call("remember", {
        content: `Runbook step ${i}: restart worker pool ${i} after the deploy.`,
        subject: `runbook step ${i}`,
        workspace: "team",
      }).then((response) => {
        if (response.ok) acknowledged.push(response.data.memory_id);
      }, () => {}));
    // Kill A once some writes are acknowledged and others are still in flight.
    await eventually(
      "a few acknowledged writes",
      () => Promise.resolve(acknowledged.length >= 5 ? true : undefined),
    );
    const pid = a.pid();
    assert.ok(pid !== null);
    Deno.kill(pid, "SIGKILL");
    await Promise.allSettled(writes);
    assert.ok(acknowledged.length >= 5);
    for (const id of acknowledged) {
      const read = await b.call("read", { memory_id: id });
      assert.equal(
        read.ok,
        true,
        `acknowledged memory ${id} is lost: ${JSON.stringify(read.data)}`,
      );
      assert.match(read.data.content, /^Runbook step \d+: restart worker pool/);
    }
  } finally {
    await a.close().catch(() => {});
    await b.close();
  }
});

teamTest("an HTTP server on PostgreSQL answers find; doctor names the backend", async (team) => {
  const stdio = await serverOn(team, "alice");
  const home = team.home();
  const http = await startHttpServer(home, { env: { MEMA_DB_URL: team.url } });
  try {
    const id = await remember(stdio, "Incident reviews happen every Thursday.", "incident review");
    const session = await connectHttp(http.url, identityHeaders("web", "carol"));
    try {
      const found = await session.call("find", { query: "incident reviews", workspace: "team" });
      assert.equal(found.ok, true, JSON.stringify(found.data));
      assert.deepEqual(found.data.results.map((hit: { memory_id: number }) => hit.memory_id), [id]);
    } finally {
      await session.close();
    }
    assert.match(http.stderr(), /serving postgresql postgres.* over streamable HTTP/);
    assert.ok(!http.stderr().includes(team.password), http.stderr());

    const doctor = await runCli(home, ["doctor", "--json"], { MEMA_DB_URL: team.url });
    assert.ok(!(doctor.stdout + doctor.stderr).includes(team.password), doctor.stdout);
    const report = JSON.parse(doctor.stdout);
    const finding = (id: string) =>
      report.findings.find((f: { check_id: string }) => f.check_id === id);
    assert.equal(finding("database.connection").severity, "info");
    assert.match(finding("database.connection").detail, /^postgresql postgres/);
    assert.equal(finding("database.schema_version").severity, "info");
    assert.equal(finding("database.pg_trgm").severity, "info");
    assert.match(finding("vector.path").detail, /in-process copy/);
    assert.equal(finding("conflicts.backlog").severity, "info");
    assert.equal(finding("database.exists"), undefined, "no SQLite file checks");
  } finally {
    await stdio.close();
    await http.stop();
  }
});

teamTest(
  "PostgreSQL unreachable: reads fail clearly within the connect timeout; back, it serves again",
  async (team) => {
    const proxy = startPostgresProxy(team.url);
    const a = await startServer(team.home(), {
      env: { MEMA_DB_URL: proxy.url, MEMA_AGENT_ID: "alice", MEMA_CLIENT: "client-alice" },
    });
    try {
      const kept = await remember(a, "The on-call rota changes on Mondays.", "on-call rota");
      proxy.cut();
      const started = Date.now();
      const write = await a.call("remember", {
        content: "The on-call rota is kept in the wiki.",
        subject: "on-call wiki",
        workspace: "team",
      });
      // The write is saved to the local backup (postgres_backup_test.ts follows it home).
      assert.equal(write.ok, true, JSON.stringify(write.data));
      assert.equal(write.mode, "jsonl_backup");
      assert.equal(write.data.saved, true);
      const find = await a.call("find", { query: "on-call rota", workspace: "team" });
      assert.equal(find.ok, false);
      assert.equal(find.data.error, "storage_error", JSON.stringify(find.data));
      assert.match(
        find.data.reason,
        /PostgreSQL at postgres:\/\/[^:]+:\*\*\*@127\.0\.0\.1:\d+\/\S+ cannot be reached/,
      );
      assert.match(find.data.reason, /saved to the local backup/);
      // PG_CONNECT_TIMEOUT_S bounds each call; both together stay well inside it twice over.
      assert.ok(Date.now() - started < 25_000, `took ${Date.now() - started} ms`);

      proxy.restore();
      const back = await eventually("a read once the database is back", async () => {
        const response = await a.call("read", { memory_id: kept });
        return response.ok ? response : undefined;
      });
      assert.equal(back.data.content, "The on-call rota changes on Mondays.");
      for (const text of [JSON.stringify(write), JSON.stringify(find), a.stderr()]) {
        assert.ok(!text.includes(team.password), text);
      }
    } finally {
      await a.close();
      proxy.close();
    }
  },
);

teamTest("import, export and scan run on the database the servers share", async (team) => {
  const home = team.home();
  const env = { MEMA_DB_URL: team.url };
  Deno.mkdirSync(`${home.dir}/notes`);
  Deno.writeTextFileSync(
    `${home.dir}/notes/backups.md`,
    "# Backups\n\nThe nightly pg_dump runs at 02:00 UTC and is kept for 30 days.\n",
  );
  const imported = await runCli(home, ["import", `${home.dir}/notes`, "--workspace", "team"], env);
  assert.equal(imported.code, 0, imported.stdout + imported.stderr);

  const b = await serverOn(team, "bob");
  try {
    const [id] = await foundIds(b, "nightly pg_dump");
    assert.ok(id !== undefined, "the imported note is found by a server on the database");
  } finally {
    await b.close();
  }

  const exported = await runCli(home, ["export", `${home.dir}/out`, "--workspace", "team"], env);
  assert.equal(exported.code, 0, exported.stdout + exported.stderr);
  assert.ok(
    textsUnder(`${home.dir}/out`).some((text) => text.includes("The nightly pg_dump runs at")),
    "the export holds the imported fact",
  );

  const scan = await runCli(home, ["scan", "--json"], env);
  assert.equal(scan.code, 0, scan.stdout + scan.stderr);
  for (const output of [imported, exported, scan]) {
    assert.ok(!(output.stdout + output.stderr).includes(team.password));
  }
  assert.throws(() => Deno.statSync(home.dbPath), Deno.errors.NotFound, "no SQLite file made");
});

teamTest("strict workspaces hold across servers: each sees only its own", async (team) => {
  const strict = (agentId: string, workspace: string) =>
    startServer(team.home(), {
      env: {
        MEMA_DB_URL: team.url,
        MEMA_AGENT_ID: agentId,
        MEMA_CLIENT: `client-${agentId}`,
        MEMA_WORKSPACE_ISOLATION: "strict",
        MEMA_WORKSPACE: workspace,
      },
    });
  const alpha = await strict("alice", "Alpha");
  const beta = await strict("bob", "Beta");
  try {
    const alphaId = await rememberConfirmed(alpha, {
      content: "Project alpha deploys on Tuesdays.",
      subject: "deploy day",
    });
    const betaId = await rememberConfirmed(beta, {
      content: "Project beta deploys on Thursdays.",
      subject: "deploy day",
    });
    const alphaFinds = await alpha.call("find", { query: "deploys" });
    assert.deepEqual(
      alphaFinds.data.results.map((hit: { memory_id: number }) => hit.memory_id),
      [alphaId],
    );
    const betaFinds = await beta.call("find", { query: "deploys" });
    assert.deepEqual(
      betaFinds.data.results.map((hit: { memory_id: number }) => hit.memory_id),
      [betaId],
    );
    const crossRead = await beta.call("read", { memory_id: alphaId });
    assert.equal(crossRead.data.error, "not_found", "another server's workspace stays hidden");
    const crossUpdate = await alpha.call("update", {
      memory_id: betaId,
      new_content: "Project beta deploys on Fridays.",
    });
    assert.equal(crossUpdate.data.error, "not_found");
    const kept = await beta.call("read", { memory_id: betaId });
    assert.equal(kept.data.content, "Project beta deploys on Thursdays.");
  } finally {
    await alpha.close();
    await beta.close();
  }
});
