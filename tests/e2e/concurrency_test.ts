import assert from "node:assert/strict";
import { libraryRowCount, libraryRows, onBothBackends } from "../helpers/e2e_backends.ts";
import { type ServerSession, startServer } from "../helpers/server.ts";

const WRITES_PER_SERVER = 60;

async function writeMany(server: ServerSession, label: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < WRITES_PER_SERVER; i++) {
    const response = await server.call("remember", {
      content: `${label} fact number ${i}: the build cache lives in /tmp/cache-${label}-${i}.`,
      subject: `${label} ${i}`,
      workspace: "shared",
    });
    assert.equal(response.ok, true, JSON.stringify(response.data));
    ids.push(response.data.memory_id);
  }
  return ids;
}

async function bumpShared(server: ServerSession, id: number, label: string): Promise<number> {
  let applied = 0;
  for (let i = 0; i < 20; i++) {
    const response = await server.call("update", {
      memory_id: id,
      new_content: `counter touched by ${label} round ${i}`,
      reason: `${label}-${i}`,
    });
    assert.equal(response.ok, true, JSON.stringify(response.data));
    applied++;
  }
  return applied;
}

onBothBackends(
  "two server processes write one database concurrently without losing a write",
  async (home, backend) => {
    const a = await startServer(home, { env: { MEMA_AGENT_ID: "agent-a" } });
    const b = await startServer(home, { env: { MEMA_AGENT_ID: "agent-b" } });
    try {
      const shared = (await a.call("remember", {
        content: "counter start",
        subject: "counter",
        workspace: "shared",
      }))
        .data.memory_id;
      const [idsA, idsB, updatesA, updatesB] = await Promise.all([
        writeMany(a, "alpha"),
        writeMany(b, "beta"),
        bumpShared(a, shared, "a"),
        bumpShared(b, shared, "b"),
      ]);
      const acknowledged = new Set([...idsA, ...idsB]);
      assert.equal(acknowledged.size, 2 * WRITES_PER_SERVER, "every write got its own id");

      const rows = await libraryRows(
        home,
        backend,
        "SELECT CAST(id AS INTEGER) AS id, agent_id FROM memories WHERE id != ?",
        [shared],
      );
      assert.deepEqual(new Set(rows.map((r) => r.id)), acknowledged);
      assert.equal(rows.filter((r) => r.agent_id === "agent-a").length, WRITES_PER_SERVER);
      const [counter] = await libraryRows(
        home,
        backend,
        "SELECT version FROM memories WHERE id = ?",
        [shared],
      );
      assert.equal(counter.version, 1 + updatesA + updatesB);
      const versions = await libraryRows(
        home,
        backend,
        "SELECT version FROM memory_history WHERE memory_id = ? ORDER BY version",
        [shared],
      );
      assert.deepEqual(
        versions.map((r) => r.version),
        Array.from({ length: updatesA + updatesB }, (_, i) => i + 1),
      );
      // One word-index document per memory (FTS5's docsize table, PostgreSQL's memory_terms).
      const indexTable = backend.name === "sqlite" ? "memories_terms_docsize" : "memory_terms";
      assert.equal(await libraryRowCount(home, backend, indexTable), 2 * WRITES_PER_SERVER + 1);
      if (backend.name === "sqlite") {
        const [check] = await libraryRows(home, backend, "PRAGMA integrity_check");
        assert.equal(check.integrity_check, "ok");
      }
      const found = await b.call("find", { query: "alpha fact number 7" });
      assert.equal(found.data.results[0].subject, "alpha 7");
    } finally {
      await a.close();
      await b.close();
    }
  },
);
