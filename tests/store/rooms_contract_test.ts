/**
 * The store contract, run on every backend (tests/store/backends.ts): memories, their history,
 * the workspace registry, meta values and units of work answer the same on the SQLite file and
 * on PostgreSQL. A service typed against the repositories cannot tell them apart.
 */
import assert from "node:assert/strict";
import type { NewMemory } from "../../src/store/mod.ts";
import { backendTest } from "./backends.ts";

const AT = "2026-03-01T10:00:00.000Z";

function newMemory(content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return {
    subject: `about ${content}`,
    content,
    contentSha: `sha-${content}`,
    tags: [],
    workspace: "Team-A",
    workspaceCanonical: "team_a",
    sourceType: "agent_generated",
    sourceRef: null,
    eventTime: null,
    ingestTime: AT,
    validFrom: null,
    validTo: null,
    confidence: 0.5,
    protectionLevel: "normal",
    status: "active",
    agentId: "agent",
    client: "client",
    metadata: {},
    follows: null,
    createdAt: AT,
    updatedAt: AT,
    ...overrides,
  };
}

backendTest("a memory reads back exactly as written", async (store) => {
  const written = newMemory("Der Zug fährt um 7:42 — 東京行き 🚄", {
    tags: ["zeta", "alpha", "Zeta"],
    metadata: { z: 1, a: { nested: [1, "two", null] }, m: "x" },
    sourceRef: "notes.md#train",
    eventTime: "2026-02-27T08:00:00.000Z",
    confidence: 0.8125,
    protectionLevel: "protected",
    sourceType: "document_extracted",
  });
  const id = await store.write((tx) => tx.insertMemory(written));
  const read = await store.getMemory(id);
  assert.ok(read);
  assert.deepEqual(read, { ...written, id, version: 1, supersededBy: null });
  // Key order survives: exports and fingerprints serialize metadata as stored.
  assert.equal(JSON.stringify(read.metadata), JSON.stringify(written.metadata));
  assert.deepEqual(read.tags, ["zeta", "alpha", "Zeta"]);
  assert.equal(await store.getMemory(id + 1000), undefined);

  const second = await store.write((tx) => tx.insertMemory(newMemory("second", { follows: id })));
  assert.ok(second > id);
  const both = await store.getMemories([second, id, 999_999]);
  assert.deepEqual([...both.keys()].sort((a, b) => a - b), [id, second]);
  assert.equal(both.get(second)?.follows, id);
  assert.equal((await store.getMemories([])).size, 0);
});

backendTest("one active copy of a content per workspace; found by its hash", async (store) => {
  const id = await store.write((tx) => tx.insertMemory(newMemory("same")));
  assert.equal((await store.findActiveByContent("team_a", "sha-same"))?.id, id);
  assert.equal(await store.findActiveByContent("team_b", "sha-same"), undefined);
  await assert.rejects(store.write((tx) => tx.insertMemory(newMemory("same"))));
  // The failed write left nothing behind.
  assert.deepEqual(await store.countByStatus(), { active: 1 });
  const other = await store.write((tx) =>
    tx.insertMemory(newMemory("same", { workspace: "b", workspaceCanonical: "team_b" }))
  );
  assert.notEqual(other, id);
  await store.write((tx) => tx.setStatus(id, { status: "retired", supersededBy: null, now: AT }));
  assert.equal(await store.findActiveByContent("team_a", "sha-same"), undefined);
});

backendTest("a validity window is stored, closed and cleared; other fields stay", async (store) => {
  const from = "2024-03-01T00:00:00.000Z";
  const id = await store.write((tx) =>
    tx.insertMemory(newMemory("port 5433", { validFrom: from }))
  );
  let read = (await store.getMemory(id))!;
  assert.equal(read.validFrom, from);
  assert.equal(read.validTo, null);
  const to = "2024-07-01T00:00:00.000Z";
  await store.write((tx) => tx.changeMemory(id, { validTo: to, updatedAt: AT }));
  read = (await store.getMemory(id))!;
  assert.deepEqual([read.validFrom, read.validTo, read.content], [from, to, "port 5433"]);
  await store.write((tx) => tx.changeMemory(id, { validFrom: null, updatedAt: AT }));
  read = (await store.getMemory(id))!;
  assert.deepEqual([read.validFrom, read.validTo], [null, to]);
  // A time filter by validity: the window overlaps [after, before), else the event time is in it.
  const undated = await store.write((tx) =>
    tx.insertMemory(newMemory("undated", { eventTime: "2025-01-05T00:00:00.000Z" }))
  );
  const during = (after: string, before: string) =>
    store.browse({ statuses: ["active"], after, before, byValidity: true }, {
      limit: 10,
      offset: 0,
    });
  assert.deepEqual(await during("2024-05-01T00:00:00.000Z", "2024-06-01T00:00:00.000Z"), [id]);
  assert.deepEqual(await during("2024-08-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z"), [
    undated,
  ]);
});

backendTest("changes touch only the fields given", async (store) => {
  const id = await store.write((tx) => tx.insertMemory(newMemory("v1", { tags: ["a"] })));
  const later = "2026-03-02T00:00:00.000Z";
  await store.write((tx) =>
    tx.changeMemory(id, { content: "v2", contentSha: "sha-v2", version: 2, updatedAt: later })
  );
  let read = (await store.getMemory(id))!;
  assert.equal(read.content, "v2");
  assert.equal(read.subject, "about v1");
  assert.deepEqual(read.tags, ["a"]);
  assert.equal(read.version, 2);
  assert.equal(read.updatedAt, later);
  await store.write((tx) => tx.changeMemory(id, { tags: ["b", "c"], updatedAt: later }));
  read = (await store.getMemory(id))!;
  assert.deepEqual(read.tags, ["b", "c"]);
  assert.equal(read.version, 2);

  const newer = await store.write((tx) => tx.insertMemory(newMemory("newer")));
  await store.write(async (tx) => {
    await tx.setStatus(id, { status: "superseded", supersededBy: newer, now: later });
    await tx.setTrust(id, { sourceType: "user_confirmed", protectionLevel: "locked", now: later });
    await tx.setMetadata(id, { reviewed: true });
  });
  read = (await store.getMemory(id))!;
  assert.equal(read.status, "superseded");
  assert.equal(read.supersededBy, newer);
  assert.equal(read.sourceType, "user_confirmed");
  assert.equal(read.protectionLevel, "locked");
  assert.deepEqual(read.metadata, { reviewed: true });
  assert.deepEqual(await store.supersededBy(newer), [id]);
  assert.deepEqual(await store.supersededBy(id), []);
});

backendTest("counts by status and the overview's counts, whole or per workspace", async (store) => {
  await store.write(async (tx) => {
    await tx.insertMemory(newMemory("a1"));
    await tx.insertMemory(newMemory("a2", { sourceType: "user_confirmed" }));
    await tx.insertMemory(newMemory("b1", { workspace: "b", workspaceCanonical: "team_b" }));
    const gone = await tx.insertMemory(newMemory("a3"));
    await tx.setStatus(gone, { status: "deleted", supersededBy: null, now: AT });
    const old = await tx.insertMemory(newMemory("a4"));
    await tx.setStatus(old, { status: "retired", supersededBy: null, now: AT });
  });
  assert.deepEqual(await store.countByStatus(), { active: 3, deleted: 1, retired: 1 });
  const all = await store.overviewCounts();
  assert.deepEqual(all.byStatus, { active: 3, retired: 1 });
  assert.deepEqual(all.bySource, { agent_generated: 2, user_confirmed: 1 });
  assert.deepEqual(all.byWorkspace, { team_a: 2, team_b: 1 });
  assert.deepEqual(all.byProtection, { normal: 3 });
  const teamB = await store.overviewCounts("team_b");
  assert.deepEqual(teamB.byStatus, { active: 1 });
  assert.deepEqual(teamB.byWorkspace, { team_b: 1 });
});

backendTest("history keeps every earlier version and deletes only what is asked", async (store) => {
  const id = await store.write((tx) => tx.insertMemory(newMemory("h")));
  const other = await store.write((tx) => tx.insertMemory(newMemory("other")));
  const entry = (memoryId: number, version: number) => ({
    memoryId,
    version,
    subject: `s${version}`,
    content: `content ${version}`,
    contentSha: `sha${version}`,
    tags: ["t", `v${version}`],
    status: "active" as const,
    changedAt: AT,
    changedBy: "agent",
    changedByClient: "client",
    reason: version === 2 ? null : `reason ${version}`,
    validFrom: version === 1 ? "2024-03-01T00:00:00.000Z" : null,
    validTo: version === 1 ? "2024-06-30T00:00:00.000Z" : null,
  });
  await store.write(async (tx) => {
    await tx.appendHistory(entry(id, 2));
    await tx.appendHistory(entry(id, 1));
    await tx.appendHistory(entry(other, 1));
  });
  assert.deepEqual(await store.listHistory(id), [entry(id, 1), entry(id, 2)]);
  assert.equal(await store.countHistory(), 3);
  const of = await store.historyOf([id, other, 12345]);
  assert.deepEqual([...of.keys()].sort((a, b) => a - b), [id, other]);
  assert.deepEqual(of.get(other), [entry(other, 1)]);
  // A version appended twice is refused: history is never overwritten.
  await assert.rejects(store.write((tx) => tx.appendHistory(entry(id, 1))));
  const removed = await store.write((tx) => tx.deleteHistory(id, [2, 7, 1, 2]));
  assert.deepEqual(removed, [2, 1]);
  assert.deepEqual(await store.listHistory(id), []);
  assert.equal(await store.countHistory(), 1);
});

backendTest("the workspace registry: register once, confirm, review, redirect", async (store) => {
  const defaults = await store.listWorkspaces();
  assert.deepEqual(defaults.map((w) => [w.canonical, w.state, w.reviewed]), [
    ["default", "active", true],
  ]);
  const change = { at: AT, by: "client/agent" };
  await store.write(async (tx) => {
    await tx.registerWorkspace({ canonical: "proj", display: "Proj", state: "pending", ...change });
    // Registering a known name changes nothing.
    await tx.registerWorkspace({ canonical: "proj", display: "PROJ", state: "active", ...change });
    await tx.registerWorkspace({ canonical: "old", display: "Old", state: "active", ...change });
  });
  let proj = (await store.getWorkspace("proj"))!;
  assert.deepEqual(proj, {
    canonical: "proj",
    display: "Proj",
    state: "pending",
    redirectTo: null,
    reviewed: false,
    createdAt: AT,
    createdBy: "client/agent",
    confirmedAt: null,
    confirmedBy: null,
  });
  assert.equal(await store.getWorkspace("missing"), undefined);

  const later = { at: "2026-03-05T00:00:00.000Z", by: "person" };
  await store.write((tx) => tx.confirmWorkspace("proj", later));
  proj = (await store.getWorkspace("proj"))!;
  assert.equal(proj.state, "active");
  assert.equal(proj.confirmedBy, "person");
  await store.write((tx) => tx.markWorkspacesReviewed(["proj", "old"], change));
  proj = (await store.getWorkspace("proj"))!;
  assert.equal(proj.reviewed, true);
  // Reviewing keeps the first confirmation.
  assert.equal(proj.confirmedAt, later.at);
  assert.equal((await store.getWorkspace("old"))!.confirmedBy, "client/agent");

  // old → mid, then mid → new: the redirect left at old follows to new (no chain).
  await store.write((tx) =>
    tx.redirectWorkspace("old", { canonical: "mid", display: "Mid" }, later)
  );
  await store.write((tx) =>
    tx.redirectWorkspace("mid", { canonical: "new", display: "New" }, later)
  );
  const byName = new Map((await store.listWorkspaces()).map((w) => [w.canonical, w]));
  assert.deepEqual([...byName.keys()], ["default", "mid", "new", "old", "proj"]);
  assert.equal(byName.get("old")!.redirectTo, "new");
  assert.equal(byName.get("mid")!.state, "redirect");
  assert.equal(byName.get("new")!.state, "active");
  assert.equal(byName.get("new")!.reviewed, true);
});

backendTest("workspace summaries count memories, last write and writers", async (store) => {
  await store.write(async (tx) => {
    await tx.registerWorkspace({
      canonical: "team_a",
      display: "Team-A",
      state: "active",
      at: AT,
      by: "x",
    });
    await tx.insertMemory(newMemory("1", { agentId: "ann", updatedAt: "2026-03-03T00:00:00Z" }));
    await tx.insertMemory(newMemory("2", { agentId: "ann" }));
    await tx.insertMemory(newMemory("3", { agentId: "bob" }));
    const gone = await tx.insertMemory(newMemory("4", { agentId: "cid" }));
    await tx.setStatus(gone, { status: "deleted", supersededBy: null, now: "2027-01-01" });
  });
  const summaries = await store.workspaceSummaries();
  const teamA = summaries.find((s) => s.canonical === "team_a")!;
  assert.deepEqual(teamA.counts, { active: 3 });
  assert.equal(teamA.lastWrite, "2026-03-03T00:00:00Z");
  assert.deepEqual(teamA.writers, ["client/ann", "client/bob"]);
  const defaults = summaries.find((s) => s.canonical === "default")!;
  assert.deepEqual(defaults.counts, {});
  assert.equal(defaults.lastWrite, null);
});

backendTest(
  "moving a memory: a twin supersedes it, and cross-workspace links are cut",
  async (store) => {
    const to = { canonical: "team_b", display: "Team-B" };
    const ids = await store.write(async (tx) => {
      const twin = await tx.insertMemory(
        newMemory("twin", { workspace: to.display, workspaceCanonical: to.canonical }),
      );
      const first = await tx.insertMemory(newMemory("first"));
      const moved = await tx.insertMemory(newMemory("twin", { follows: first }));
      const next = await tx.insertMemory(newMemory("next", { follows: moved }));
      return { twin, first, moved, next };
    });
    assert.deepEqual(await store.workspaceMemoryIds("team_a"), [ids.first, ids.moved, ids.next]);
    const memory = (await store.getMemory(ids.moved))!;
    const outcome = await store.write((tx) => tx.moveMemory(memory, to, "2026-04-01T00:00:00Z"));
    assert.deepEqual(outcome, { id: ids.moved, supersededBy: ids.twin });
    const moved = (await store.getMemory(ids.moved))!;
    assert.equal(moved.workspaceCanonical, "team_b");
    assert.equal(moved.workspace, "Team-B");
    assert.equal(moved.status, "superseded");
    assert.equal(moved.follows, null);
    assert.equal((await store.getMemory(ids.next))!.follows, null);
    assert.deepEqual(await store.workspaceMemoryIds("team_b"), [ids.twin, ids.moved]);
  },
);

backendTest("meta values are set, replaced and read", async (store) => {
  assert.equal(await store.getMeta("scan_epoch"), undefined);
  await store.write((tx) => tx.setMeta("scan_epoch", "1"));
  await store.write((tx) => tx.setMeta("scan_epoch", "2"));
  assert.equal(await store.getMeta("scan_epoch"), "2");
});

backendTest("a unit is all or nothing; a nested unit undoes only its own part", async (store) => {
  await assert.rejects(
    store.write(async (tx) => {
      await tx.insertMemory(newMemory("lost"));
      await tx.setMeta("lost", "yes");
      throw new Error("the body failed");
    }),
    /the body failed/,
  );
  assert.deepEqual(await store.countByStatus(), {});
  assert.equal(await store.getMeta("lost"), undefined);

  await store.write(async (tx) => {
    await tx.insertMemory(newMemory("kept"));
    await assert.rejects(store.withinUnit(async () => {
      await tx.insertMemory(newMemory("undone"));
      throw new Error("one file failed");
    }));
    await store.withinUnit(() => tx.setMeta("imported", "1"));
  });
  assert.ok(await store.findActiveByContent("team_a", "sha-kept"));
  assert.equal(await store.findActiveByContent("team_a", "sha-undone"), undefined);
  assert.equal(await store.getMeta("imported"), "1");
});

backendTest("a request outside a unit never sees its uncommitted rows", async (store) => {
  // The other request is set up here, outside the unit: a unit follows its body's async context,
  // and a promise continuation keeps the context it was registered in.
  let start!: () => void;
  const started = new Promise<void>((resolve) => start = resolve);
  const outside = started.then(() => store.findActiveByContent("team_a", "sha-pending"));
  await assert.rejects(store.write(async (tx) => {
    await tx.insertMemory(newMemory("pending"));
    start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw new Error("rolled back");
  }));
  // SQLite makes it wait for the unit to end; PostgreSQL answers from the last commit at once.
  assert.equal(await outside, undefined);
  const id = await store.write((tx) => tx.insertMemory(newMemory("kept")));
  assert.ok(await store.getMemory(id));
  // A read unit sees one snapshot.
  const count = await store.read(async (tx) => (await tx.countByStatus()).active);
  assert.equal(count, 1);
});

backendTest(
  "export pages walk memories by id; an import finds its source's memory",
  async (store) => {
    const ids = await store.write(async (tx) => {
      const a1 = await tx.insertMemory(newMemory("a1", { sourceRef: "notes.md#one" }));
      const b1 = await tx.insertMemory(
        newMemory("b1", {
          workspace: "B",
          workspaceCanonical: "team_b",
          sourceRef: "notes.md#one",
        }),
      );
      const a2 = await tx.insertMemory(newMemory("a2", { sourceRef: "notes.md#one" }));
      const gone = await tx.insertMemory(newMemory("gone"));
      await tx.setStatus(gone, { status: "deleted", supersededBy: null, now: AT });
      return { a1, b1, a2, gone };
    });
    const live = { statuses: ["active" as const] };
    const first = await store.memoryPage({ ...live, afterId: 0, limit: 2 });
    assert.deepEqual(first.map((m) => m.id), [ids.a1, ids.b1]);
    const next = await store.memoryPage({ ...live, afterId: first[1].id, limit: 2 });
    assert.deepEqual(next.map((m) => m.id), [ids.a2]);
    assert.deepEqual(next[0], await store.getMemory(ids.a2));
    const teamA = await store.memoryPage({
      ...live,
      workspaces: ["team_a"],
      afterId: 0,
      limit: 10,
    });
    assert.deepEqual(teamA.map((m) => m.id), [ids.a1, ids.a2]);
    assert.equal(await store.countMemories(live), 3);
    assert.equal(await store.countMemories({ statuses: ["active", "deleted"] }), 4);
    assert.equal(await store.countMemories({ ...live, workspaces: ["team_b", "nowhere"] }), 1);
    // The newest active memory from that source in that workspace.
    assert.equal((await store.findActiveBySourceRef("team_a", "notes.md#one"))?.id, ids.a2);
    assert.equal((await store.findActiveBySourceRef("team_b", "notes.md#one"))?.id, ids.b1);
    assert.equal(await store.findActiveBySourceRef("team_a", "notes.md#two"), undefined);
  },
);
