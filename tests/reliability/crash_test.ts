import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { seededRandom } from "../helpers/random.ts";
import { makeTempHome } from "../helpers/server.ts";
import {
  assertDatabaseConsistent,
  type KillableServer,
  runSeed,
  spawnStdioServer,
  withDatabase,
} from "./harness.ts";

const ROUNDS = Number(Deno.env.get("CRASH_ROUNDS") ?? 20);
/**
 * Kill points spread over a server's first 1.8 s: the handshake, the first
 * writes, and (after the evidence worker's 1 s start delay) embedding jobs
 * claimed and half done.
 */
const KILL_WINDOW_MS = 1_800;

interface Fact {
  content: string;
  version: number;
}

/** What the test knows: acknowledged state, plus the one write that was in flight at each kill. */
interface Ledger {
  acked: Map<number, Fact>;
  /** Subjects of remembers sent but never answered. */
  unansweredRemembers: Set<string>;
  /** Updates sent but never answered: the memory may hold either version. */
  unansweredUpdates: Map<number, Fact>;
  attempts: number;
}

/**
 * After a restart, reads back each memory whose update was in flight at the
 * kill: it must hold exactly the acknowledged or the attempted version, and
 * whichever it holds is what later rounds build on.
 */
async function settleInFlightUpdates(server: KillableServer, ledger: Ledger): Promise<void> {
  for (const [id, attempted] of ledger.unansweredUpdates) {
    const read = await server.call("read", { memory_id: id });
    assert.equal(read.ok, true, JSON.stringify(read.data));
    const now = { content: read.data.content, version: read.data.version };
    const acked = ledger.acked.get(id)!;
    assert.ok(
      [acked, attempted].some((f) => f.content === now.content && f.version === now.version),
      `memory ${id} after a kill: ${JSON.stringify(now)}`,
    );
    ledger.acked.set(id, now);
    ledger.unansweredUpdates.delete(id);
  }
}

async function writeUntilKilled(
  server: KillableServer,
  ledger: Ledger,
  options: { round: number; random: () => number; killAfterAcks?: number },
): Promise<void> {
  for (let i = 0;; i++) {
    const ids = [...ledger.acked.keys()];
    const update = ids.length > 0 && options.random() < 0.3;
    ledger.attempts++;
    if (!update) {
      const subject = `round ${options.round} write ${i}`;
      const content = `${subject}: the deploy token rotates every ${i + options.round} days.`;
      ledger.unansweredRemembers.add(subject);
      let response;
      try {
        response = await server.call("remember", { content, subject, workspace: "crash" });
      } catch {
        return; // killed with this write in flight
      }
      assert.equal(response.ok, true, JSON.stringify(response.data));
      ledger.unansweredRemembers.delete(subject);
      ledger.acked.set(response.data.memory_id, { content, version: response.data.version });
    } else {
      const id = ids[Math.floor(options.random() * ids.length)];
      const known = ledger.acked.get(id)!;
      const next = {
        content: `${known.content} (v${known.version + 1})`,
        version: known.version + 1,
      };
      ledger.unansweredUpdates.set(id, next);
      let response;
      try {
        response = await server.call("update", {
          memory_id: id,
          new_content: next.content,
          expected_version: known.version,
        });
      } catch {
        return;
      }
      assert.equal(response.ok, true, JSON.stringify(response.data));
      ledger.unansweredUpdates.delete(id);
      ledger.acked.set(id, next);
    }
    if (options.killAfterAcks !== undefined && i + 1 >= options.killAfterAcks) {
      server.kill();
      // The next call finds the process gone.
    }
  }
}

function unembeddedRows(db: DatabaseSync): number {
  return (db.prepare(
    `SELECT count(*) AS n FROM memory_rows
      WHERE embedding_space IS NOT (SELECT value FROM meta WHERE key = 'embedding_space')`,
  ).get() as { n: number }).n;
}

function unfinishedJobs(db: DatabaseSync): Record<string, number> {
  const rows = db.prepare(
    "SELECT status, count(*) AS n FROM jobs WHERE status IN ('pending', 'running') GROUP BY status",
  ).all() as { status: string; n: number }[];
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

Deno.test("reliability: 20 SIGKILLs at random points lose no acknowledged write; jobs resume", async () => {
  const seed = runSeed("crash");
  const random = seededRandom(seed);
  const home = makeTempHome();
  const env = {
    MEMA_CLIENT: "crash-test",
    MEMA_AGENT_ID: "crash-agent",
    MEMA_EMBEDDING_MODEL: "static-wink-100d",
    MEMA_MODELS_DIR: `${home.dir}/models`,
  };
  const ledger: Ledger = {
    acked: new Map(),
    unansweredRemembers: new Set(),
    unansweredUpdates: new Map(),
    attempts: 0,
  };
  try {
    // Build the static model once, outside the kill rounds.
    const warm = await spawnStdioServer(home, env);
    await warm.call("remember", { content: "warm-up fact", subject: "warm", workspace: "crash" });
    let state = "";
    for (let i = 0; i < 200 && state !== "ready"; i++) {
      state = (await warm.repair("semantic_control", { action: "status" })).data.state;
      if (state !== "ready") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(state, "ready", "the static model was built and the index is usable");
    await warm.close();

    for (let round = 0; round < ROUNDS; round++) {
      const server = await spawnStdioServer(home, env);
      const last = round === ROUNDS - 1;
      // The last round dies right after its third acknowledged write, before its
      // worker could start, so there is certainly embedding work left behind.
      await settleInFlightUpdates(server, ledger);
      const timer = last ? undefined : setTimeout(server.kill, random() * KILL_WINDOW_MS);
      await writeUntilKilled(server, ledger, {
        round,
        random,
        killAfterAcks: last ? 3 : undefined,
      });
      clearTimeout(timer);
      await server.close().catch(() => {});
    }

    const counts = assertDatabaseConsistent(home.dbPath);
    const stuck = withDatabase(home.dbPath, (db) => {
      const byId = db.prepare("SELECT content, version FROM memories WHERE id = ?");
      for (const [id, fact] of ledger.acked) {
        const row = byId.get(id) as { content: string; version: number } | undefined;
        assert.ok(row, `acknowledged memory ${id} is missing`);
        const inFlight = ledger.unansweredUpdates.get(id);
        const allowed = [fact, ...(inFlight ? [inFlight] : [])];
        assert.ok(
          allowed.some((f) => f.content === row.content && f.version === row.version),
          `memory ${id} holds neither its acknowledged nor its in-flight version`,
        );
      }
      const subjects = db.prepare("SELECT id, subject FROM memories WHERE subject != 'warm'")
        .all() as { id: number; subject: string }[];
      const extra = subjects.filter((row) => !ledger.acked.has(row.id));
      for (const row of extra) {
        assert.ok(
          ledger.unansweredRemembers.has(row.subject),
          `memory ${row.id} was never written`,
        );
      }
      assert.equal(counts.memories, 1 + ledger.acked.size + extra.length);
      assert.ok(extra.length <= ROUNDS, "at most one unanswered write per kill");
      const left = unfinishedJobs(db);
      assert.ok(unembeddedRows(db) > 0 || Object.keys(left).length > 0, "work was left behind");
      return left.running ?? 0;
    });
    console.error(
      `crash: ${ledger.attempts} writes attempted, ${ledger.acked.size} memories acknowledged, ${stuck} job(s) left running by killed processes`,
    );

    // Leases held by killed processes run out after JOB_LEASE_MS (60 s); move
    // them into the past instead of waiting, exactly as the clock would.
    const writable = new DatabaseSync(home.dbPath);
    writable.exec(
      "UPDATE jobs SET lease_expires = '1970-01-01T00:00:00.000Z' WHERE status = 'running'",
    );
    writable.close();

    const survivor = await spawnStdioServer(home, env);
    try {
      let settled = false;
      for (let i = 0; i < 600 && !settled; i++) {
        settled = withDatabase(
          home.dbPath,
          (db) => unembeddedRows(db) === 0 && Object.keys(unfinishedJobs(db)).length === 0,
        );
        if (!settled) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const left = withDatabase(home.dbPath, (db) => ({
        unembedded: unembeddedRows(db),
        jobs: db.prepare("SELECT id, status, attempts, lease_expires, last_error FROM jobs").all(),
      }));
      assert.ok(
        settled,
        `the restarted server finished every pending and orphaned job: ${
          JSON.stringify(left)
        } ${survivor.stderr()}`,
      );
      const status = await survivor.repair("semantic_control", { action: "status" });
      assert.equal(status.data.state, "ready", JSON.stringify(status.data));
      const found = await survivor.call("find", { query: "deploy token rotates" });
      assert.equal(found.ok, true);
      assert.ok(found.data.results.length > 0);
    } finally {
      await survivor.close();
    }
    withDatabase(home.dbPath, (db) => {
      assert.deepEqual(unfinishedJobs(db), {});
      const poisoned = db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'poisoned'").get();
      assert.deepEqual({ ...poisoned }, { n: 0 });
    });
    assertDatabaseConsistent(home.dbPath);
  } finally {
    home.cleanup();
  }
});
