import assert from "node:assert/strict";
import { connectHttp, identityHeaders, startHttpServer } from "../helpers/http_server.ts";
import { type Envelope, makeTempHome, startServer } from "../helpers/server.ts";
import { seededRandom } from "../helpers/random.ts";
import { assertDatabaseConsistent, runSeed, withDatabase } from "./harness.ts";

/** How long the writers run. Long enough for thousands of contended writes, short for CI. */
const LOAD_MS = 8_000;
const HTTP_CLIENTS = 8;
const STDIO_SERVERS = 4;

type Call = (action: string, data?: unknown) => Promise<Envelope>;

interface Owned {
  version: number;
  content: string;
}

interface WorkerLog {
  name: string;
  owned: Map<number, Owned>;
  counterReasons: string[];
  failures: string[];
  operations: number;
}

async function runWorker(name: string, call: Call, counterId: number, seed: number) {
  const random = seededRandom(seed);
  const log: WorkerLog = {
    name,
    owned: new Map(),
    counterReasons: [],
    failures: [],
    operations: 0,
  };
  const deadline = Date.now() + LOAD_MS;
  for (let i = 0; Date.now() < deadline; i++) {
    const roll = random();
    const ids = [...log.owned.keys()];
    log.operations++;
    if (roll < 0.5 || ids.length === 0) {
      const content = `${name} fact ${i}: cache key k-${name}-${i} expires after ${i} minutes.`;
      const response = await call("remember", {
        content,
        subject: `${name} ${i}`,
        workspace: "load",
        tags: [name, `n${i % 7}`],
      });
      if (!response.ok || response.data.duplicate_replay) {
        log.failures.push(`remember: ${JSON.stringify(response.data)}`);
        continue;
      }
      log.owned.set(response.data.memory_id, { version: response.data.version, content });
    } else if (roll < 0.75) {
      const id = ids[Math.floor(random() * ids.length)];
      const owned = log.owned.get(id)!;
      const content = `${owned.content} Revised by ${name} at step ${i}.`;
      const response = await call("update", {
        memory_id: id,
        new_content: content,
        expected_version: owned.version,
        reason: `${name}-${i}`,
      });
      if (!response.ok) {
        log.failures.push(`update: ${JSON.stringify(response.data)}`);
        continue;
      }
      assert.equal(response.data.version, owned.version + 1);
      log.owned.set(id, { version: response.data.version, content });
    } else if (roll < 0.9) {
      const reason = `counter-${name}-${i}`;
      const response = await call("update", {
        memory_id: counterId,
        new_content: `shared counter last touched by ${name} at step ${i}`,
        reason,
      });
      if (!response.ok) {
        log.failures.push(`counter: ${JSON.stringify(response.data)}`);
        continue;
      }
      log.counterReasons.push(reason);
    } else {
      const response = await call("find", { query: `cache key ${name}`, limit: 5 });
      if (!response.ok) log.failures.push(`find: ${JSON.stringify(response.data)}`);
    }
  }
  return log;
}

Deno.test("reliability: 8 HTTP clients and 4 stdio servers on one database lose no write", async () => {
  const seed = runSeed("load");
  const home = makeTempHome();
  const http = await startHttpServer(home);
  const stdio = await Promise.all(
    Array.from(
      { length: STDIO_SERVERS },
      (_, i) => startServer(home, { env: { MEMA_AGENT_ID: `stdio-${i}` } }),
    ),
  );
  const clients = await Promise.all(
    Array.from(
      { length: HTTP_CLIENTS },
      (_, i) => connectHttp(http.url, identityHeaders("load-http", `http-${i}`)),
    ),
  );
  try {
    const counter = await clients[0].call("remember", {
      content: "shared counter start",
      subject: "counter",
      workspace: "load",
    });
    const counterId = counter.data.memory_id;
    const workers = [
      ...clients.map((client, i) => ({ name: `http-${i}`, call: client.call as Call })),
      ...stdio.map((server, i) => ({ name: `stdio-${i}`, call: server.call as Call })),
    ];
    const logs = await Promise.all(
      workers.map((worker, i) => runWorker(worker.name, worker.call, counterId, seed + i)),
    );
    for (const log of logs) assert.deepEqual(log.failures, [], `${log.name} had failures`);
    const operations = logs.reduce((sum, log) => sum + log.operations, 0);
    console.error(`load: ${operations} operations in ${LOAD_MS} ms`);

    const counts = assertDatabaseConsistent(home.dbPath);
    const owned = logs.flatMap((log) => [...log.owned.entries()]);
    const counterReasons = logs.flatMap((log) => log.counterReasons);
    assert.equal(counts.memories, 1 + owned.length, "exactly the acknowledged memories exist");
    const updatesOfOwned = owned.reduce((sum, [, entry]) => sum + entry.version - 1, 0);
    assert.equal(
      counts.history,
      updatesOfOwned + counterReasons.length,
      "one history row per update",
    );
    withDatabase(home.dbPath, (db) => {
      const byId = db.prepare("SELECT content, version FROM memories WHERE id = ?");
      for (const [id, entry] of owned) {
        const row = byId.get(id) as { content: string; version: number };
        assert.deepEqual({ ...row }, { content: entry.content, version: entry.version }, `#${id}`);
      }
      const counterRow = byId.get(counterId) as { version: number };
      assert.equal(counterRow.version, 1 + counterReasons.length);
      const reasons = db.prepare(
        "SELECT reason FROM memory_history WHERE memory_id = ? ORDER BY version",
      ).all(counterId) as { reason: string }[];
      assert.deepEqual(reasons.map((r) => r.reason).sort(), [...counterReasons].sort());
      // Each writer's own counter updates appear in the order it made them.
      for (const log of logs) {
        const mine = reasons.map((r) => r.reason).filter((r) =>
          r.startsWith(`counter-${log.name}-`)
        );
        assert.deepEqual(mine, log.counterReasons);
      }
      const agents = db.prepare(
        "SELECT agent_id, count(*) AS n FROM memories WHERE id != ? GROUP BY agent_id",
      ).all(counterId) as { agent_id: string; n: number }[];
      assert.deepEqual(
        Object.fromEntries(agents.map((row) => [row.agent_id, row.n])),
        Object.fromEntries(
          logs.filter((log) => log.owned.size > 0).map((log) => [
            log.name,
            log.owned.size,
          ]),
        ),
        "every write is attributed to the client that made it",
      );
    });
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(stdio.map((server) => server.close()));
    await http.stop();
    home.cleanup();
  }
});
