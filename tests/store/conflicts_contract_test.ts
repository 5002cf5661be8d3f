/**
 * The store contract for conflict groups and notices, run on every backend
 * (tests/store/backends.ts): groups recorded once per candidate, revisioned updates, members,
 * pair keys, stale claims and the backlog; notices deduplicated, filtered (by memory, workspace,
 * source, time), counted and moved between statuses.
 */
import assert from "node:assert/strict";
import type { ConflictMember, NewMemory, NoticeFilter } from "../../src/store/mod.ts";
import { backendTest, type RoomsStore } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const AT = "2026-03-01T00:00:00.000Z";
const LATER = "2026-03-02T00:00:00.000Z";

function memory(content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return testMemory(content, overrides);
}

function member(id: number, text: string): ConflictMember {
  return { memory_id: id, version: 1, row_text: text, start_offset: 0, end_offset: text.length };
}

async function memories(store: RoomsStore) {
  return await store.write(async (tx) => ({
    a: await tx.insertMemory(memory("port is 5432", { sourceRef: "docs/db.md#port" })),
    b: await tx.insertMemory(memory("port is 6543", { agentId: "other" })),
    c: await tx.insertMemory(memory("port is 7000")),
    x: await tx.insertMemory(memory("elsewhere", { workspace: "x", workspaceCanonical: "x" })),
  }));
}

backendTest(
  "a conflict group: recorded once, updated by revision, members and keys",
  async (store) => {
    const ids = await memories(store);
    const group = {
      workspaceCanonical: "w",
      status: "open" as const,
      source: "write_time" as const,
      candidateKey: "pair:a:b",
      members: [member(ids.a, "port is 5432"), member(ids.b, "port is 6543")],
      valueGroups: [{ value: "5432", memory_ids: [ids.a] }, { value: "6543", memory_ids: [ids.b] }],
      detection: { rule: "number", z: 1, a: 2 },
      createdAt: AT,
    };
    const id = (await store.write((tx) => tx.conflicts.insert(group)))!;
    assert.equal(await store.write((tx) => tx.conflicts.insert(group)), undefined);
    const stored = (await store.conflicts.get(id))!;
    assert.deepEqual(stored, {
      ...group,
      id,
      revision: 1,
      chosenValue: null,
      decidedBy: null,
      decisionRef: null,
      decisionReason: null,
      plan: [],
      planHistory: [],
      resolutionMemoryId: null,
      updatedAt: AT,
    });
    assert.equal(JSON.stringify(stored.detection), '{"rule":"number","z":1,"a":2}');
    // The open groups of each memory.
    const open = await store.conflicts.openOf([ids.a, ids.c]);
    assert.deepEqual([...open], [[ids.a, [{ conflictId: id, status: "open", revision: 1 }]]]);
    // A revisioned change: the stale revision changes nothing.
    const plan = [{
      memory_id: ids.b,
      action: "update_current_claim" as const,
      status: "pending" as const,
    }];
    assert.equal(
      await store.write((tx) =>
        tx.conflicts.update(id, 1, {
          status: "applying",
          chosenValue: "5432",
          decidedBy: "person",
          plan,
          members: [...group.members, member(ids.c, "port is 7000")],
          now: LATER,
        })
      ),
      true,
    );
    assert.equal(
      await store.write((tx) => tx.conflicts.update(id, 1, { status: "resolved", now: LATER })),
      false,
    );
    const applying = (await store.conflicts.get(id))!;
    assert.deepEqual(
      [applying.status, applying.revision, applying.chosenValue, applying.plan, applying.updatedAt],
      ["applying", 2, "5432", plan, LATER],
    );
    // The member that joined is one of the group's now.
    assert.equal((await store.conflicts.openOf([ids.c])).get(ids.c)?.[0].conflictId, id);
    // Pair keys: a key joins one event; a group's own candidate key is taken.
    assert.equal(await store.write((tx) => tx.conflicts.addKey("pair:a:c", id)), true);
    assert.equal(await store.write((tx) => tx.conflicts.addKey("pair:a:c", id)), false);
    assert.equal(await store.write((tx) => tx.conflicts.addKey("pair:a:b", id)), false);
    assert.equal(await store.conflicts.byKey("pair:a:c"), id);
    assert.equal(await store.conflicts.byKey("pair:a:b"), id);
    assert.equal(await store.conflicts.byKey("pair:none"), undefined);
    assert.deepEqual(await store.conflicts.backlog(), {
      openConflicts: 0,
      applyingConflicts: 1,
      pendingNotices: 0,
      scanQueuePending: 0,
    });
  },
);

backendTest("conflict lists: by status, newest first, wholly inside a workspace", async (store) => {
  const ids = await memories(store);
  const add = (key: string, members: number[], status: "open" | "resolved" = "open") =>
    store.write((tx) =>
      tx.conflicts.insert({
        workspaceCanonical: "w",
        status,
        source: "scan",
        candidateKey: key,
        members: members.map((m) => member(m, "text")),
        valueGroups: [],
        detection: {},
        createdAt: AT,
      })
    );
  const first = (await add("k1", [ids.a, ids.b]))!;
  const crossing = (await add("k2", [ids.a, ids.x]))!;
  const closed = (await add("k3", [ids.b, ids.c], "resolved"))!;
  const open = await store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 });
  assert.deepEqual([open.total, open.rows.map((r) => r.id)], [2, [crossing, first]]);
  const inW = await store.conflicts.list({
    statuses: ["open", "resolved"],
    limit: 1,
    offset: 0,
    workspace: "w",
  });
  assert.deepEqual([inW.total, inW.rows.map((r) => r.id)], [2, [closed]]);
});

backendTest(
  "stale claims hold while the member keeps the version the resolution left",
  async (store) => {
    const ids = await memories(store);
    const conflictId = (await store.write((tx) =>
      tx.conflicts.insert({
        workspaceCanonical: "w",
        status: "resolved",
        source: "agent",
        candidateKey: "k",
        members: [member(ids.a, "a"), member(ids.b, "b")],
        valueGroups: [],
        detection: {},
        createdAt: AT,
      })
    ))!;
    const claim = {
      memoryId: ids.b,
      conflictId,
      memoryVersion: 1,
      holderIds: [ids.a],
      chosenValue: "5432",
    };
    await store.write((tx) => tx.conflicts.markStale({ ...claim, now: AT }));
    await store.write((tx) =>
      tx.conflicts.markStale({ ...claim, holderIds: [ids.a, ids.c], now: AT })
    );
    assert.deepEqual([...await store.conflicts.staleClaimsOf([ids.a, ids.b])], [
      [ids.b, [{ ...claim, holderIds: [ids.a, ids.c] }]],
    ]);
    await store.write((tx) => tx.changeMemory(ids.b, { version: 2, updatedAt: LATER }));
    assert.equal((await store.conflicts.staleClaimsOf([ids.b])).size, 0);
  },
);

backendTest(
  "notices: deduplicated, filtered, counted and moved between statuses",
  async (store) => {
    const ids = await memories(store);
    const notice = (
      key: string,
      memoryIds: number[],
      extra: Partial<{ severity: "info" | "normal"; kind: string; createdAt: string }> = {},
    ) =>
      store.write((tx) =>
        tx.conflicts.insertNotice({
          kind: extra.kind ?? "conflict",
          severity: extra.severity ?? "normal",
          conflictId: null,
          dedupeKey: key,
          title: `title ${key}`,
          message: "message",
          payload: { memory_ids: memoryIds, z: 1, a: 2 },
          createdAt: extra.createdAt ?? AT,
        })
      );
    assert.equal(await store.hasPendingNotices(), false);
    const one = (await notice("n1", [ids.a, ids.b]))!;
    assert.equal(await notice("n1", [ids.a]), undefined);
    const two = (await notice("n2", [ids.c], { severity: "info", createdAt: LATER }))!;
    const three = (await notice("n3", [ids.a, ids.x], { kind: "duplicate" }))!;
    assert.equal(await store.hasPendingNotices(), true);
    const read = (await store.conflicts.notice(one))!;
    assert.equal(JSON.stringify(read.payload), `{"memory_ids":[${ids.a},${ids.b}],"z":1,"a":2}`);
    assert.equal(read.status, "pending");
    const where = async (filter: Partial<NoticeFilter>) =>
      (await store.conflicts.noticesWhere({ statuses: ["pending"], ...filter }, {
        limit: 10,
        offset: 0,
      }))
        .map((n) => n.id);
    assert.deepEqual(await where({}), [one, two, three]);
    assert.deepEqual(await where({ memoryId: ids.a }), [one, three]);
    assert.deepEqual(await where({ workspace: "w" }), [one, two]);
    assert.deepEqual(await where({ severity: "info" }), [two]);
    assert.deepEqual(await where({ kind: "duplicate" }), [three]);
    assert.deepEqual(await where({ createdAfter: LATER }), [two]);
    assert.deepEqual(await where({ createdBefore: LATER }), [one, three]);
    assert.deepEqual(await where({ sourceRefPrefix: "docs/" }), [one, three]);
    assert.deepEqual(await where({ agentId: "other" }), [one]);
    assert.deepEqual(await where({ client: "client", memoryId: ids.c }), [two]);
    assert.deepEqual(await store.conflicts.countNotices({ statuses: ["pending"] }), {
      total: 3,
      bySeverity: { normal: 2, info: 1 },
      byKind: { conflict: 2, duplicate: 1 },
    });
    // Delivered, then dismissed only from delivered.
    assert.equal(
      await store.write((tx) =>
        tx.conflicts.setNoticeStatus([one, two], { status: "delivered", now: LATER })
      ),
      2,
    );
    assert.equal(
      await store.write((tx) =>
        tx.conflicts.setNoticeStatus([one, three], {
          status: "dismissed",
          from: ["delivered"],
          now: LATER,
        })
      ),
      1,
    );
    assert.deepEqual(
      (await store.conflicts.notices({ statuses: ["pending", "delivered"], limit: 10, offset: 0 }))
        .map((n) => n.id),
      [two, three],
    );
    assert.equal(
      await store.write((tx) =>
        tx.conflicts.setNoticesWhere({ statuses: ["pending", "delivered"] }, {
          status: "resolved",
          now: LATER,
          limit: 1,
        })
      ),
      1,
    );
    assert.equal((await store.conflicts.notice(two))!.status, "resolved");
    assert.equal(await store.hasPendingNotices(), true);
    assert.deepEqual(await store.conflicts.noticesOf(12345), []);
  },
);

backendTest("the scan: what a round still has to read, and its queue of pairs", async (store) => {
  const ids = await memories(store);
  const round = { afterId: 0, full: false, round: "r1" };
  const toScan = async (query: typeof round) =>
    (await store.conflicts.memoriesToScan({ ...query, limit: 10 })).map((m) => m.id);
  assert.deepEqual(await toScan(round), [ids.a, ids.b, ids.c, ids.x]);
  await store.write(async (tx) => {
    await tx.conflicts.markScanned({ memoryId: ids.a, version: 1, round: "r1", now: AT });
    await tx.conflicts.markScanned({ memoryId: ids.b, version: 1, round: "r0", now: AT });
  });
  // a was read this round; b in an earlier one and unchanged since: an incremental round skips it.
  assert.deepEqual(await toScan(round), [ids.c, ids.x]);
  assert.deepEqual(await toScan({ ...round, full: true }), [ids.b, ids.c, ids.x]);
  assert.deepEqual(await toScan({ ...round, afterId: ids.c }), [ids.x]);
  await store.write((tx) => tx.changeMemory(ids.b, { version: 2, updatedAt: LATER }));
  assert.deepEqual(await toScan(round), [ids.b, ids.c, ids.x]);
  assert.equal(await store.conflicts.countToScan(round), 3);
  // In round r0, b counts as read already (and a is unchanged since its scan).
  assert.equal(await store.conflicts.countToScan({ ...round, round: "r0" }), 2);

  const item = (key: string, score: number) => ({
    candidateKey: key,
    memoryA: ids.a,
    memoryB: ids.b,
    versionA: 1,
    versionB: 2,
    rowA: "port is 5432",
    rowB: "port is 6543",
    assessment: { kind: "number", b: 1, a: 2 },
    score,
    roundId: "r1",
    now: AT,
  });
  await store.write(async (tx) => {
    assert.equal(await tx.conflicts.queueItem(item("p1", 0.5)), true);
    assert.equal(await tx.conflicts.queueItem(item("p1", 0.9)), false);
    await tx.conflicts.queueItem(item("p2", 0.9));
    await tx.conflicts.queueItem(item("p3", 0.5));
  });
  const page = await store.conflicts.queueItems({ limit: 2 });
  assert.deepEqual(page.map((i) => [i.candidateKey, i.score]), [["p2", 0.9], ["p1", 0.5]]);
  assert.equal(JSON.stringify(page[0].assessment), '{"kind":"number","b":1,"a":2}');
  const next = await store.conflicts.queueItems({
    limit: 2,
    after: { score: page[1].score, id: page[1].id },
  });
  assert.deepEqual(next.map((i) => i.candidateKey), ["p3"]);
  const decided = await store.write((tx) =>
    tx.conflicts.decideItem(page[0].id, {
      status: "confirmed",
      by: "person",
      now: LATER,
      conflictId: 9,
    })
  );
  assert.equal(decided, true);
  assert.equal(
    await store.write((tx) =>
      tx.conflicts.decideItem(page[0].id, { status: "dismissed", by: "x", now: LATER })
    ),
    false,
  );
  const stored = (await store.conflicts.queueItemById(page[0].id))!;
  assert.deepEqual([stored.status, stored.conflictId], ["confirmed", 9]);
  assert.equal(await store.conflicts.queueItemById(99_999), undefined);
  assert.equal((await store.conflicts.backlog()).scanQueuePending, 2);
});
