/**
 * The store contract for copying a SQLite library in (`mema upgrade`, and `mema copy` to come),
 * run on every backend (tests/store/backends.ts): the tables a library holds arrive whole (a
 * memory naming a later one included), the word index is rebuilt from them, the content
 * fingerprints match the source's, and new ids follow the copied ones.
 */
import assert from "node:assert/strict";
import { type NewMemory, openStore, UpgradeSource } from "../../src/store/mod.ts";
import { indexTokens } from "../../src/text/index_terms.ts";
import { backendTest } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const AT = "2026-03-01T00:00:00.000Z";

function memory(content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return testMemory(content, {
    subject: `about ${content}`,
    tags: ["copied"],
    workspace: "Team",
    workspaceCanonical: "team",
    sourceType: "user_confirmed",
    confidence: 0.75,
    protectionLevel: "locked",
    metadata: { z: 1, a: [1, 2] },
    ...overrides,
  });
}

/** A SQLite library with a bit of every copied table; resolves with its path and memory ids. */
async function sourceLibrary(dir: string) {
  const path = `${dir}/source.sqlite3`;
  const store = await openStore(path, { cacheDir: `${dir}/cache`, skipVec: true });
  try {
    const ids = await store.write(async (tx) => {
      const old = await tx.insertMemory(memory("the port is 5432"));
      const current = await tx.insertMemory(memory("the port is 6543 since March"));
      await tx.setStatus(old, { status: "superseded", supersededBy: current, now: AT });
      await tx.appendHistory({
        memoryId: current,
        version: 1,
        subject: "s",
        content: "the port was 7000",
        contentSha: "v1",
        tags: [],
        status: "active",
        changedAt: AT,
        changedBy: "agent",
        changedByClient: "client",
        reason: "moved",
        validFrom: "2024-01-01T00:00:00.000Z",
        validTo: "2024-03-01T00:00:00.000Z",
      });
      await tx.changeMemory(current, { version: 2, updatedAt: AT });
      await tx.registerWorkspace({
        canonical: "team",
        display: "Team",
        state: "pending",
        at: AT,
        by: "agent",
      });
      await tx.markWorkspacesReviewed(["team"], { at: AT, by: "person" });
      await tx.appendAudit({
        at: AT,
        action: "retire",
        memoryId: old,
        agentId: "agent",
        client: "client",
        reason: null,
        detail: { superseded_by: current },
      });
      const conflict = await tx.conflicts.insert({
        workspaceCanonical: "team",
        status: "resolved",
        source: "agent",
        candidateKey: "pair",
        members: [old, current].map((id) => ({
          memory_id: id,
          version: 1,
          row_text: "port",
          start_offset: 0,
          end_offset: 4,
        })),
        valueGroups: [],
        detection: {},
        createdAt: AT,
      });
      await tx.conflicts.insertNotice({
        kind: "conflict",
        severity: "normal",
        conflictId: conflict!,
        dedupeKey: "n",
        title: "t",
        message: "m",
        payload: { memory_ids: [old, current] },
        createdAt: AT,
      });
      return { old, current };
    });
    return { path, ids };
  } finally {
    store.close();
  }
}

backendTest("a SQLite library is copied in whole and checked by fingerprints", async (store) => {
  const dir = await Deno.makeTempDir({ prefix: "mema-upgrade-" });
  const { path, ids } = await sourceLibrary(dir);
  const source = new UpgradeSource(path);
  try {
    const tables = await store.tablesToCopyFrom(source);
    const names = tables.map((entry) => entry.table);
    assert.deepEqual(names.slice(0, 2), ["memories", "memory_history"]);
    for (const table of ["audit", "conflicts", "conflict_members", "notices", "workspaces"]) {
      assert.ok(names.includes(table), `${table} is copied`);
    }
    for (const derived of ["meta", "jobs", "memory_rows"]) assert.ok(!names.includes(derived));
    const copied = await store.write(async (tx) => {
      const counts: Record<string, number> = {};
      for (const { table, columns } of tables) {
        counts[table] = await tx.copyTableFrom(source, table, columns);
      }
      await tx.registerMemoryWorkspaces();
      counts.indexed = await tx.rebuildWordIndex();
      return counts;
    });
    assert.deepEqual(
      [copied.memories, copied.memory_history, copied.audit, copied.notices, copied.indexed],
      [2, 1, 1, 1, 2],
    );
    assert.deepEqual(await store.contentFingerprints(), source.fingerprints());
    const current = (await store.getMemory(ids.current))!;
    assert.deepEqual(current, {
      ...memory("the port is 6543 since March"),
      id: ids.current,
      version: 2,
      supersededBy: null,
    });
    assert.equal((await store.getMemory(ids.old))!.supersededBy, ids.current);
    assert.equal((await store.listHistory(ids.current))[0].content, "the port was 7000");
    const team = (await store.getWorkspace("team"))!;
    assert.deepEqual([team.state, team.reviewed, team.confirmedBy], ["pending", true, "person"]);
    assert.equal(
      (await store.listAudit({ limit: 5, offset: 0 })).rows[0].detail.superseded_by,
      ids.current,
    );
    assert.equal((await store.conflicts.openOf([ids.old])).size, 0);
    assert.equal(
      (await store.conflicts.noticesWhere({ statuses: ["pending"], memoryId: ids.old }, {
        limit: 5,
        offset: 0,
      })).length,
      1,
    );
    // The word index was rebuilt from the copied memories.
    const hits = await store.termHits(indexTokens("port March"), { statuses: ["active"] }, 5);
    assert.deepEqual(hits.map((hit) => hit.id), [ids.current]);
    // New ids follow the copied ones.
    const next = await store.write((tx) => tx.insertMemory(memory("a new one")));
    assert.ok(next > ids.current);
  } finally {
    source.close();
    await Deno.remove(dir, { recursive: true });
  }
});

backendTest(
  "a restored memory keeps its id; registering workspaces adds the missing ones",
  async (store) => {
    const restored = {
      ...memory("restored"),
      id: 41,
      version: 3,
      supersededBy: null,
      validFrom: "2024-03-01T00:00:00.000Z",
      validTo: "2024-07-01T00:00:00.000Z",
    };
    await store.write((tx) => tx.restoreMemory(restored));
    assert.deepEqual(await store.getMemory(41), restored);
    await store.write(async (tx) => {
      await tx.restoreWorkspace({
        canonical: "kept",
        display: "Kept",
        state: "pending",
        createdAt: AT,
      });
      await tx.registerMemoryWorkspaces();
    });
    const names = (await store.listWorkspaces()).map((w) => [w.canonical, w.state, w.display]);
    assert.deepEqual(names, [["default", "active", "default"], ["kept", "pending", "Kept"], [
      "team",
      "active",
      "Team",
    ]]);
    const next = await store.write((tx) => tx.insertMemory(memory("after the restore")));
    assert.ok(next > 41);
  },
);
