/**
 * Usage-aware ranking through the real server (issue 39): of two equally matching facts, the
 * one an agent read repeatedly ranks first; with `MEMA_USAGE_RANKING=off` the tie stays as it
 * was. The counts reach the database in the background and at shutdown, never per call.
 */
import assert from "node:assert/strict";
import { openStore } from "../../src/store/mod.ts";
import { openPostgresStore } from "../../src/store/postgres/mod.ts";
import { type E2eBackend, onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer, type TempHome } from "../helpers/server.ts";

/** Two facts that match "blue widget shipping" equally; returns their ids, older first. */
async function twoEqualFacts(server: Awaited<ReturnType<typeof startServer>>) {
  const ids: number[] = [];
  for (const month of ["March", "April"]) {
    const written = await server.call("remember", {
      content: `The blue widget shipping window opens in ${month}.`,
      subject: "blue widget shipping",
      workspace: "shop",
    });
    assert.equal(written.ok, true, JSON.stringify(written.data));
    ids.push(written.data.memory_id);
  }
  return ids;
}

async function topIds(server: Awaited<ReturnType<typeof startServer>>): Promise<number[]> {
  const found = await server.call("find", { query: "blue widget shipping window", limit: 5 });
  assert.equal(found.ok, true, JSON.stringify(found.data));
  return found.data.results.map((r: { memory_id: number }) => r.memory_id);
}

async function storedUse(home: TempHome, backend: E2eBackend, id: number): Promise<number> {
  if (backend.name === "postgres") {
    const store = await openPostgresStore(backend.url, { poolMax: 1 });
    try {
      return (await store.accessStats([id])).get(id)?.count ?? 0;
    } finally {
      await store.close();
    }
  }
  const store = await openStore(home.dbPath, { cacheDir: `${home.dir}/cache`, skipVec: true });
  try {
    return (await store.accessStats([id])).get(id)?.count ?? 0;
  } finally {
    store.close();
  }
}

onBothBackends(
  "the fact an agent reads repeatedly ranks above an equally matching one; counts survive shutdown",
  async (home, backend) => {
    const server = await startServer(home);
    let used: number;
    try {
      const [older, newer] = await twoEqualFacts(server);
      // A tie goes to the newer id: the older one has to earn its place by use.
      assert.deepEqual((await topIds(server)).slice(0, 2), [newer, older]);
      for (let i = 0; i < 3; i++) {
        assert.equal((await server.call("read", { memory_id: older })).ok, true);
      }
      assert.equal((await server.call("batch_read", { memory_ids: [older] })).ok, true);
      assert.deepEqual((await topIds(server)).slice(0, 2), [older, newer]);
      used = older;
    } finally {
      await server.close();
    }
    // The server writes the counts after the call or at shutdown: wait for its exit.
    let count = 0;
    for (let tries = 0; tries < 50 && count < 4; tries++) {
      count = await storedUse(home, backend, used);
      if (count < 4) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Four reads, and the top results of the second find.
    assert.ok(count >= 4, `stored uses: ${count}`);
  },
);

onBothBackends(
  "MEMA_USAGE_RANKING=off leaves a used fact where relevance puts it",
  async (home) => {
    const server = await startServer(home, { env: { MEMA_USAGE_RANKING: "off" } });
    try {
      const [older, newer] = await twoEqualFacts(server);
      for (let i = 0; i < 3; i++) await server.call("read", { memory_id: older });
      assert.deepEqual((await topIds(server)).slice(0, 2), [newer, older]);
    } finally {
      await server.close();
    }
  },
);
