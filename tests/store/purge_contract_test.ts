/**
 * The store contract for purging a memory, run on every backend (tests/store/backends.ts): its
 * content leaves every table (history, index, rows, jobs, scan state and queue, the replay log's
 * saved input, links) and a tombstone stays; conflict groups and notices naming it are rewritten
 * or deleted; the owed scrub is recorded and cleared.
 */
import assert from "node:assert/strict";
import type { NewMemory } from "../../src/store/mod.ts";
import { indexTokens } from "../../src/text/index_terms.ts";
import { backendTest } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const AT = "2026-03-01T00:00:00.000Z";
const LATER = "2026-03-02T00:00:00.000Z";

function memory(content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return testMemory(content, {
    subject: `subject ${content}`,
    tags: ["secret-tag"],
    sourceRef: "notes.md",
    metadata: { private: true },
    ...overrides,
  });
}

backendTest(
  "a purge removes a memory's content everywhere and leaves a tombstone",
  async (store) => {
    const ids = await store.write(async (tx) => {
      const gone = await tx.insertMemory(memory("platypus password hunter2"));
      const next = await tx.insertMemory(memory("next turn", { follows: gone }));
      const older = await tx.insertMemory(memory("older claim"));
      await tx.setStatus(older, { status: "superseded", supersededBy: gone, now: AT });
      await tx.appendHistory({
        memoryId: gone,
        version: 1,
        subject: "s",
        content: "platypus old",
        contentSha: "old-sha",
        tags: [],
        status: "active",
        changedAt: AT,
        changedBy: "agent",
        changedByClient: "client",
        reason: null,
        validFrom: null,
        validTo: null,
      });
      await tx.changeMemory(gone, { version: 2, updatedAt: AT });
      await tx.replaceRows({ id: gone, version: 2 }, [
        { kind: "subject", text: "subject", startOffset: null, endOffset: null, rowIndex: 0 },
      ]);
      await tx.insertJob({ kind: "embed", payload: { memory_id: gone }, maxAttempts: 3, now: AT });
      await tx.insertJob({ kind: "embed", payload: { memory_id: next }, maxAttempts: 3, now: AT });
      await tx.conflicts.markScanned({ memoryId: gone, version: 2, round: "r", now: AT });
      await tx.conflicts.queueItem({
        candidateKey: "pair",
        memoryA: older,
        memoryB: gone,
        versionA: 1,
        versionB: 2,
        rowA: "a",
        rowB: "b",
        assessment: {},
        score: 1,
        roundId: "r",
        now: AT,
      });
      await tx.logReplay({
        entryId: "entry-9",
        at: AT,
        outcome: "applied",
        memoryId: gone,
        detail: { content: "platypus password hunter2" },
      });
      return { gone, next, older };
    });
    const before = (await store.getMemory(ids.gone))!;
    const purged = await store.write((tx) => tx.purgeMemoryContent(before, LATER));
    assert.deepEqual(purged, {
      history: [{ version: 1, contentSha: "old-sha" }],
      rows: 1,
      jobs: 1,
      scanItems: 1,
      replayEntryIds: ["entry-9"],
      followersUnlinked: 1,
      supersededUnlinked: 1,
    });
    const tombstone = (await store.getMemory(ids.gone))!;
    assert.deepEqual(
      [tombstone.subject, tombstone.content, tombstone.tags, tombstone.metadata, tombstone.status],
      ["", "", [], {}, "deleted"],
    );
    assert.deepEqual([tombstone.sourceRef, tombstone.updatedAt], [null, LATER]);
    assert.deepEqual(await store.listHistory(ids.gone), []);
    assert.deepEqual(await store.rowsOfMemory(ids.gone), []);
    assert.equal((await store.getMemory(ids.next))!.follows, null);
    assert.equal((await store.getMemory(ids.older))!.supersededBy, null);
    assert.deepEqual(await store.countJobs(), { embed: { pending: 1 } });
    assert.deepEqual(await store.conflicts.queueItems({ limit: 10 }), []);
    assert.equal(await store.replayOutcome("entry-9"), "applied");
    // Its words no longer find anything, nor count.
    const platypus = indexTokens("platypus")[0];
    assert.deepEqual(await store.termHits([platypus], { statuses: ["deleted", "active"] }, 5), []);
    assert.equal((await store.tokenFrequencies([platypus])).get(platypus), 0);
    assert.equal(await store.indexedMemories(), 2);
  },
);

backendTest("groups and notices naming a purged memory are rewritten or deleted", async (store) => {
  const ids = await store.write(async (tx) => ({
    a: await tx.insertMemory(memory("a")),
    b: await tx.insertMemory(memory("b")),
    c: await tx.insertMemory(memory("c")),
  }));
  const member = (id: number) => ({
    memory_id: id,
    version: 1,
    row_text: "t",
    start_offset: 0,
    end_offset: 1,
  });
  const group = (key: string, members: number[]) =>
    store.write(async (tx) =>
      (await tx.conflicts.insert({
        workspaceCanonical: "w",
        status: "open",
        source: "scan",
        candidateKey: key,
        members: members.map(member),
        valueGroups: [],
        detection: {},
        createdAt: AT,
      }))!
    );
  const pair = await group("ab", [ids.a, ids.b]);
  const trio = await group("abc", [ids.a, ids.b, ids.c]);
  await store.write(async (tx) => {
    await tx.conflicts.addKey("ab-2", pair);
    await tx.conflicts.markStale({
      memoryId: ids.c,
      conflictId: trio,
      memoryVersion: 1,
      holderIds: [ids.a, ids.b],
      chosenValue: "v",
      now: AT,
    });
    for (const [key, memoryIds] of [["n1", [ids.a]], ["n2", [ids.b, ids.c]]] as const) {
      await tx.conflicts.insertNotice({
        kind: "conflict",
        severity: "normal",
        conflictId: key === "n1" ? pair : null,
        dedupeKey: key,
        title: "t",
        message: "m",
        payload: { memory_ids: memoryIds },
        createdAt: AT,
      });
    }
  });
  assert.deepEqual(await store.conflictIdsOf(ids.b), [pair, trio]);
  await store.write(async (tx) => {
    await tx.deleteConflict(pair);
    await tx.rewriteConflictWithout(trio, ids.b, {
      status: "open",
      candidateKey: "ac",
      members: [member(ids.a), member(ids.c)],
      valueGroups: [],
      detection: { rewritten: true },
      chosenValue: null,
      decisionReason: null,
      plan: [],
      planHistory: [],
      staleClaims: "keep",
      memoryId: ids.b,
      now: LATER,
    });
  });
  assert.equal(await store.conflicts.get(pair), undefined);
  assert.equal(await store.conflicts.byKey("ab-2"), undefined);
  const rewritten = (await store.conflicts.get(trio))!;
  assert.deepEqual([rewritten.candidateKey, rewritten.revision], ["ac", 2]);
  assert.deepEqual(await store.conflictIdsOf(ids.b), []);
  const stale = await store.conflicts.staleClaimsOf([ids.c]);
  assert.deepEqual(stale.get(ids.c)?.[0].holderIds, [ids.a]);
  // The pair's own notice went with it; the other one names b.
  assert.equal(await store.write((tx) => tx.deleteNoticesNaming(ids.b)), 1);
  assert.equal((await store.conflicts.countNotices({ statuses: ["pending"] })).total, 0);
});

backendTest("an owed scrub is recorded, merged and cleared by its value", async (store) => {
  assert.equal(await store.owedScrub(), undefined);
  await store.write((tx) => tx.markScrubOwed(["b1"]));
  await store.write((tx) => tx.markScrubOwed(["b2", "b1"]));
  const owed = (await store.owedScrub())!;
  assert.deepEqual(owed.backupIds, ["b1", "b2"]);
  await store.write((tx) => tx.clearOwedScrub("something else"));
  assert.ok(await store.owedScrub());
  await store.write((tx) => tx.clearOwedScrub(owed.value));
  assert.equal(await store.owedScrub(), undefined);
});
