/**
 * PostgreSQL away (issue 33, "Faults"): real `mema serve` processes on one scratch database,
 * driven through the MCP SDK client. While the database cannot be reached, `remember` and
 * `update` are saved to each server's local JSONL backup and acknowledged as saved, exactly as
 * for a SQLite file that cannot be written; once it answers, the server that saved them replays
 * them by itself, each entry once. The network is cut with the proxy in tests/helpers/pg_proxy.ts;
 * PostgreSQL itself is restarted with tests/helpers/pg_cluster.ts.
 */
import assert from "node:assert/strict";
import { eventually as eventuallyWithin, teamTest } from "../helpers/postgres_team.ts";
import { restartTestCluster } from "../helpers/pg_cluster.ts";
import { serverBinDir } from "../../scripts/test_postgres.ts";
import { startPostgresProxy } from "../helpers/pg_proxy.ts";
import { type ServerSession, startServer, type TempHome } from "../helpers/server.ts";

function serverAt(home: TempHome, url: string, agentId: string): Promise<ServerSession> {
  return startServer(home, {
    env: { MEMA_DB_URL: url, MEMA_AGENT_ID: agentId, MEMA_CLIENT: `client-${agentId}` },
  });
}

/** Polls `check` until it returns a value (20 s at most: a replay waits for the next tick). */
function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  return eventuallyWithin(what, check, 20);
}

/** The contents `find` returns for `query` in workspace "team", one per memory. */
async function foundContents(server: ServerSession, query: string): Promise<string[]> {
  const response = await server.call("find", { query, workspace: "team", limit: 50 });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  const contents: string[] = [];
  for (const hit of response.data.results as { memory_id: number }[]) {
    const read = await server.call("read", { memory_id: hit.memory_id });
    assert.equal(read.ok, true, JSON.stringify(read.data));
    contents.push(read.data.content);
  }
  return contents.sort();
}

/** Waits until `server` finds exactly `wanted` (sorted) for `query`. */
async function untilFound(server: ServerSession, query: string, wanted: string[]): Promise<void> {
  let last: string[] = [];
  try {
    await eventually(`${query}: ${wanted.length} memories`, async () => {
      last = await foundContents(server, query);
      return last.length >= wanted.length ? true : undefined;
    });
  } finally {
    assert.deepEqual(last, [...wanted].sort(), "each saved write is in the database once");
  }
}

teamTest("cut off: five facts saved to the backup, replayed once when it answers", async (team) => {
  const proxy = startPostgresProxy(team.url);
  const homeA = team.home();
  const a = await serverAt(homeA, proxy.url, "alice");
  const b = await serverAt(team.home(), team.url, "bob");
  let c: ServerSession | undefined;
  try {
    proxy.cut();
    const facts = ["billing", "search", "mailer", "ledger", "gateway"].map((name) =>
      `Freeze rule: the ${name} service ships no deploy on Fridays.`
    );
    const ids = new Set<string>();
    for (const content of facts) {
      const saved = await a.call("remember", {
        content,
        subject: "freeze rule",
        workspace: "team",
      });
      assert.equal(saved.ok, true, JSON.stringify(saved.data));
      assert.equal(saved.mode, "jsonl_backup");
      assert.equal(saved.degraded, true);
      assert.equal(saved.data.saved, true);
      assert.ok(
        saved.warnings.some((w) => /cannot be reached.*saved to the local JSONL backup/.test(w)),
        JSON.stringify(saved.warnings),
      );
      ids.add(saved.data.backup_id);
    }
    assert.equal(ids.size, 5, "five entries in the backup");
    const read = await a.call("find", { query: "freeze rule", workspace: "team" });
    assert.equal(read.ok, false, "reads fail clearly while the database is away");
    assert.match(read.data.reason, /cannot be reached.*saved to the local backup/);

    const down = await a.call("status");
    assert.match(
      JSON.stringify(down.ok ? down.warnings : down.data.reason),
      /cannot be reached.*saved to the local/,
      "status says the database is away and writes are saved locally",
    );

    proxy.restore();
    await untilFound(b, "freeze rule deploy Fridays", facts);
    // The replay may take more than one pass (a loaded machine, a page of entries): the passes'
    // counts add up to the five saved, each applied once.
    await eventually("server A logs five entries replayed", () => {
      const applied = [...a.stderr().matchAll(/replayed the local backup .*: (\d+) applied/g)]
        .reduce((sum, match) => sum + Number(match[1]), 0);
      assert.ok(applied <= 5, `applied ${applied} entries of 5 saved`);
      return Promise.resolve(applied === 5 ? true : undefined);
    });
    const status = await a.call("status");
    assert.equal(status.ok, true, JSON.stringify(status.data));
    assert.notEqual(status.mode, "jsonl_backup", "the answers say writes reach the database again");

    // A second server on the same backup file replays nothing twice.
    c = await serverAt(homeA, team.url, "alice");
    const again = await c.repair("replay_backup", { dry_run: true });
    assert.equal(again.data.already_replayed, 5, JSON.stringify(again.data));
    assert.equal(again.data.pending, 0);
    assert.deepEqual(await foundContents(b, "freeze rule deploy Fridays"), [...facts].sort());
  } finally {
    await a.close();
    await b.close();
    await c?.close();
    proxy.close();
  }
});

teamTest("updates saved while the database is away chain and apply in order", async (team) => {
  const proxy = startPostgresProxy(team.url);
  const a = await serverAt(team.home(), proxy.url, "alice");
  const b = await serverAt(team.home(), team.url, "bob");
  try {
    const kept = await a.call("remember", {
      content: "The deploy window opens at 09:00 in region north.",
      subject: "deploy window",
      workspace: "team",
    });
    assert.equal(kept.ok, true, JSON.stringify(kept.data));
    const id = kept.data.memory_id;
    proxy.cut();
    // Each edit finds the text the one saved before it introduced.
    for (
      const edit of [
        { old_text: "09:00", new_text: "10:00" },
        { old_text: "10:00", new_text: "10:30" },
        { old_text: "north", new_text: "south" },
      ]
    ) {
      const saved = await a.call("update", { memory_id: id, ...edit });
      assert.equal(saved.ok, true, JSON.stringify(saved.data));
      assert.equal(saved.mode, "jsonl_backup");
      assert.equal(saved.data.saved, true);
    }
    proxy.restore();
    const read = await eventually("the saved updates applied", async () => {
      const response = await b.call("read", { memory_id: id });
      return response.ok && response.data.version === 4 ? response : undefined;
    });
    assert.equal(read.data.content, "The deploy window opens at 10:30 in region south.");
  } finally {
    await a.close();
    await b.close();
    proxy.close();
  }
});

teamTest("a server killed while the database is away replays on its next start", async (team) => {
  const proxy = startPostgresProxy(team.url);
  const homeA = team.home();
  const a = await serverAt(homeA, proxy.url, "alice");
  const b = await serverAt(team.home(), team.url, "bob");
  let again: ServerSession | undefined;
  try {
    proxy.cut();
    const facts = [
      "Pager rule: the primary acknowledges within five minutes.",
      "Pager rule: the secondary takes over after fifteen minutes.",
    ];
    for (const content of facts) {
      const saved = await a.call("remember", { content, subject: "pager rule", workspace: "team" });
      assert.equal(saved.data.saved, true, JSON.stringify(saved.data));
    }
    const pid = a.pid();
    assert.ok(pid !== null);
    Deno.kill(pid, "SIGKILL");
    await a.close().catch(() => {});
    proxy.restore();
    again = await serverAt(homeA, proxy.url, "alice");
    await untilFound(b, "pager rule primary secondary minutes", facts);
  } finally {
    await a.close().catch(() => {});
    await again?.close();
    await b.close();
    proxy.close();
  }
});

teamTest(
  "PostgreSQL restarted mid-write: no acknowledged write is lost, and the server serves again",
  async (team) => {
    const a = await serverAt(team.home(), team.url, "alice");
    const b = await serverAt(team.home(), team.url, "bob");
    try {
      const acknowledged: string[] = [];
      const refused: string[] = [];
      let restarted = false;
      let restart: Promise<void> | undefined;
      for (let i = 0; i < 40 && !(restarted && acknowledged.length >= 30); i++) {
        const content = `Drill log ${i}: the restart drill wrote entry number ${i}.`;
        const response = await a.call("remember", {
          content,
          subject: `drill log ${i}`,
          workspace: "team",
        });
        if (response.ok) acknowledged.push(content);
        else {
          // Refused clearly (the connection went during the commit, say): not acknowledged.
          assert.equal(response.data.error, "storage_error", JSON.stringify(response.data));
          refused.push(response.data.reason);
        }
        if (i === 5) {
          restart = restartTestCluster(team.url).then(() => {
            restarted = true;
          });
        }
      }
      await restart;
      assert.ok(acknowledged.length >= 20, `${acknowledged.length} acknowledged, ${refused}`);
      // The server serves again: a write reaches the database itself.
      const back = await eventually("a write that reaches the database", async () => {
        const response = await a.call("remember", {
          content: "Drill log done: the restart drill finished.",
          subject: "drill done",
          workspace: "team",
        });
        // Saved to the backup while the server is still finding the database again.
        return response.ok && response.mode !== "jsonl_backup" ? response : undefined;
      });
      assert.equal(typeof back.data.memory_id, "number", JSON.stringify(back.data));
      // Every acknowledged write is there, once, whether it was written or saved and replayed.
      await eventually("every acknowledged write in the database", async () => {
        const found = await foundContents(b, "restart drill wrote entry number");
        return acknowledged.every((content) => found.includes(content)) ? true : undefined;
      });
      const found = await foundContents(b, "restart drill wrote entry number");
      assert.equal(new Set(found).size, found.length, "no write stored twice");
    } finally {
      await a.close();
      await b.close();
    }
  },
  // Its own cluster: a restart of the shared one would end every other test's sessions.
  { ownCluster: true, ignore: serverBinDir() === undefined },
);

teamTest(
  "started while the database is away: it answers, saves writes, then serves",
  async (team) => {
    const proxy = startPostgresProxy(team.url);
    proxy.cut();
    // A database no mema opened yet: the server migrates it once it answers.
    const a = await serverAt(team.home(), proxy.url, "alice");
    try {
      const tools = await a.client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === "memory"), "initialize and tools/list");
      const read = await a.call("find", { query: "on-call rotation", workspace: "team" });
      assert.equal(read.ok, false, "reads fail clearly while the database is away");
      assert.match(read.data.reason, /cannot be reached.*saved to the local backup/);
      assert.ok(!JSON.stringify(read.data).includes(team.password), "no password");
      const saved = await a.call("remember", {
        content: "The on-call rotation changes every Monday at 10:00.",
        subject: "on-call rotation",
        workspace: "team",
      });
      assert.equal(saved.ok, true, JSON.stringify(saved.data));
      assert.equal(saved.mode, "jsonl_backup");
      assert.equal(saved.data.saved, true);

      proxy.restore();
      // The same server reconnects, migrates the new database and replays the saved write.
      await eventually("the saved write replayed", async () => {
        const found = await a.call("find", { query: "on-call rotation Monday", workspace: "team" });
        return found.ok && found.data.results.length > 0 ? true : undefined;
      });
      assert.deepEqual(await foundContents(a, "on-call rotation Monday"), [
        "The on-call rotation changes every Monday at 10:00.",
      ]);
      const status = await a.call("status");
      assert.equal(status.ok, true, JSON.stringify(status.data));
      assert.match(status.data.backend.server_version, /^\d+/, "the server's facts, once reached");
      assert.ok(status.data.backend.schema_version > 0);
      const written = await a.call("remember", {
        content: "The pager escalates after 15 minutes.",
        subject: "pager",
        workspace: "team",
      });
      assert.equal(written.ok, true, JSON.stringify(written.data));
      assert.notEqual(written.mode, "jsonl_backup", "writes reach the database again");
      assert.ok(!a.stderr().includes(team.password), "no password in the server's log");
    } finally {
      await a.close();
      proxy.close();
    }
  },
);
