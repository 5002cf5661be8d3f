/**
 * The store contract for the job queue, the audit trail and the backup replay log, run on every
 * backend (tests/store/backends.ts). On PostgreSQL, servers sharing one database claim each job
 * exactly once.
 */
import assert from "node:assert/strict";
import type { AuditEntry } from "../../src/store/mod.ts";
import { backendTest, openScratchPostgres } from "./backends.ts";
import { openPostgresStore } from "../../src/store/postgres/mod.ts";

const T0 = "2026-03-01T10:00:00.000Z";
const T1 = "2026-03-01T10:01:00.000Z";
const T2 = "2026-03-01T10:02:00.000Z";
const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

backendTest("a pending job with a dedupe key absorbs its twin", async (store) => {
  const job = { kind: "embed", dedupeKey: "m1", payload: { id: 1 }, maxAttempts: 3, now: T0 };
  const id = await store.write((tx) => tx.insertJob(job));
  assert.ok(id !== undefined);
  assert.equal(await store.write((tx) => tx.insertJob(job)), undefined);
  const other = await store.write((tx) => tx.insertJob({ ...job, dedupeKey: undefined }));
  assert.ok(other !== undefined && other !== id);
  assert.deepEqual(await store.getJob(id), {
    id,
    kind: "embed",
    dedupeKey: "m1",
    payload: { id: 1 },
    status: "pending",
    attempts: 0,
    maxAttempts: 3,
    runAfter: T0,
    leaseOwner: null,
    leaseExpires: null,
    lastError: null,
  });
  assert.deepEqual(await store.countJobs(), { embed: { pending: 2 } });
  assert.equal(
    await store.write((tx) => tx.finishPendingJob({ kind: "embed", dedupeKey: "m1" })),
    true,
  );
  assert.equal(await store.getJob(id), undefined);
});

backendTest("claims take ready jobs in order, expired leases first, each once", async (store) => {
  const add = async (kind: string, runAfter: string): Promise<number> => {
    const id = await store.write((tx) =>
      tx.insertJob({ kind, payload: {}, maxAttempts: 2, now: runAfter })
    );
    assert.ok(id !== undefined);
    return id;
  };
  const late = await add("embed", T2);
  const early = await add("embed", T0);
  await add("judge", T0);
  const middle = await add("embed", T1);
  const claim = (owner: string, now: string, limit = 10) =>
    store.write((tx) =>
      tx.claimJobs({ kinds: ["embed"], owner, limit, now, leaseExpires: "2026-03-01T11:00:00Z" })
    );
  const first = await claim("a", T1, 1);
  assert.deepEqual(first.map((job) => [job.id, job.status, job.attempts, job.leaseOwner]), [
    [early, "running", 1, "a"],
  ]);
  const second = await claim("b", T1);
  assert.deepEqual(second.map((job) => job.id), [middle]);
  // Nothing else is ready at T1; the late one waits for its time.
  assert.deepEqual(await claim("c", T1), []);
  // After the leases expired, the running ones are claimed again before the late pending one.
  const later = await claim("d", "2026-03-01T12:00:00.000Z");
  assert.deepEqual(later.map((job) => [job.id, job.attempts]), [[early, 2], [middle, 2], [
    late,
    1,
  ]]);
  // The old owner lost its lease: its finish and failure change nothing.
  assert.equal(await store.write((tx) => tx.finishJob(early, "a")), false);
  assert.equal(
    await store.write((tx) =>
      tx.failJob({ id: early, owner: "a", error: "x", retryAt: T2, now: T2 })
    ),
    undefined,
  );
  assert.equal(await store.write((tx) => tx.finishJob(early, "d")), true);
  assert.equal(await store.getJob(early), undefined);
  // A failure past the last attempt poisons the job; before it, the job waits to retry.
  const poisoned = await store.write((tx) =>
    tx.failJob({ id: middle, owner: "d", error: "boom".repeat(1000), retryAt: T2, now: T2 })
  );
  assert.equal(poisoned, "poisoned");
  assert.equal((await store.getJob(middle))!.lastError!.length, 2000);
  const retried = await store.write((tx) =>
    tx.failJob({ id: late, owner: "d", error: "later", retryAt: "2026-03-02T00:00:00Z", now: T2 })
  );
  assert.equal(retried, "pending");
  const lateJob = (await store.getJob(late))!;
  assert.equal(lateJob.leaseOwner, null);
  assert.equal(lateJob.runAfter, "2026-03-02T00:00:00Z");
  assert.deepEqual(await store.countJobs(), {
    embed: { pending: 1, poisoned: 1 },
    judge: { pending: 1 },
  });
  assert.equal(await store.write((tx) => tx.pruneJobs(T2)), 0);
});

backendTest("the audit trail: appended, filtered, newest first, with its total", async (store) => {
  const memory = await store.write((tx) =>
    tx.insertMemory({
      subject: "s",
      content: "c",
      contentSha: "c",
      tags: [],
      workspace: "W",
      workspaceCanonical: "w",
      sourceType: "unknown",
      sourceRef: null,
      eventTime: null,
      ingestTime: T0,
      validFrom: null,
      validTo: null,
      confidence: 0.5,
      protectionLevel: "normal",
      status: "active",
      agentId: "a",
      client: "c",
      metadata: {},
      follows: null,
      createdAt: T0,
      updatedAt: T0,
    })
  );
  const entry = (action: string, at: string, memoryId: number | null): AuditEntry => ({
    at,
    action,
    memoryId,
    agentId: "agent",
    client: "client",
    reason: null,
    detail: { z: 1, a: [memoryId] },
  });
  await store.write(async (tx) => {
    await tx.appendAudit(entry("retire", T0, memory));
    await tx.appendAudit(entry("confirm", T1, memory));
    await tx.appendAudit(entry("retire", T2, null));
  });
  const all = await store.listAudit({ limit: 2, offset: 0 });
  assert.equal(all.total, 3);
  assert.deepEqual(all.rows.map((row) => [row.action, row.at]), [["retire", T2], ["confirm", T1]]);
  assert.equal(JSON.stringify(all.rows[0].detail), '{"z":1,"a":[null]}');
  const retired = await store.listAudit({ action: "retire", after: T1, limit: 10, offset: 0 });
  assert.deepEqual(retired.rows.map((row) => row.at), [T2]);
  const scoped = await store.listAudit({ workspace: "w", limit: 10, offset: 0 });
  assert.equal(scoped.total, 2);
  const page = await store.listAudit({ memoryId: memory, limit: 1, offset: 1 });
  assert.deepEqual([page.total, page.rows[0].action], [2, "retire"]);
});

backendTest("a refusal flood is coalesced into counted rows", async (store) => {
  const refusal = (at: string, peer: string): AuditEntry => ({
    at,
    action: "http_refused",
    memoryId: null,
    agentId: "agent",
    client: "client",
    reason: "bad token",
    detail: { peer, count: 1 },
  });
  const overflow: AuditEntry = { ...refusal(T0, "*"), reason: "flood", detail: { count: 1 } };
  const window = { since: T0, maxRows: 2, overflow };
  const record = (at: string, peer: string) =>
    store.write((tx) => tx.recordCoalescedAudit(refusal(at, peer), window));
  assert.equal(await record(T0, "10.0.0.1"), "added");
  assert.equal(await record(T1, "10.0.0.1"), "counted");
  assert.equal(await record(T1, "10.0.0.2"), "added");
  // Past two distinct rows in the window, every new peer counts in the one overflow row.
  assert.equal(await record(T1, "10.0.0.3"), "added");
  assert.equal(await record(T2, "10.0.0.4"), "counted");
  const { rows } = await store.listAudit({ action: "http_refused", limit: 10, offset: 0 });
  assert.deepEqual(
    rows.map((row) => [row.reason, row.detail]),
    [
      ["flood", { count: 2, last_at: T2 }],
      ["bad token", { peer: "10.0.0.2", count: 1 }],
      ["bad token", { peer: "10.0.0.1", count: 2, last_at: T1 }],
    ],
  );
});

backendTest(
  "audit rows that mention a memory or its conflicts; scrubbed in place",
  async (store) => {
    const row = (detail: Record<string, unknown>, memoryId: number | null = null): AuditEntry => ({
      at: T0,
      action: "merge",
      memoryId,
      agentId: "a",
      client: "c",
      reason: "why",
      detail,
    });
    await store.write(async (tx) => {
      await tx.appendAudit(row({}, 7)); // 1: about memory 7
      await tx.appendAudit(row({ survivor_id: 7 })); // 2
      await tx.appendAudit(row({ merged_ids: [3, 7] })); // 3
      await tx.appendAudit(row({ loser_versions: { "7": [1, 2] } })); // 4
      await tx.appendAudit(row({ conflict_id: 40 })); // 5
      await tx.appendAudit(row({ survivor_id: 70, note: "7", count: 7 })); // 6: not about 7
      await tx.appendAudit(row({ nested: { memory_id: 7 } })); // 7
      await tx.appendAudit(row({ conflict_id: 41 })); // 8: another group
    });
    const mentioning = await store.auditMentioning(7, [40]);
    assert.deepEqual(mentioning.map((record) => record.id), [1, 2, 3, 4, 5, 7]);
    await store.write((tx) => tx.scrubAuditRow(2, { reason: null, detail: { purged: true } }));
    const scrubbed = (await store.listAudit({ limit: 10, offset: 0 })).rows.find((r) =>
      r.id === 2
    )!;
    assert.deepEqual([scrubbed.reason, scrubbed.detail], [null, { purged: true }]);
  },
);

backendTest("each backup entry is logged once with its outcome", async (store) => {
  assert.equal(await store.replayOutcome("entry-1"), undefined);
  const entry = { entryId: "entry-1", at: T0, outcome: "applied" as const, memoryId: null };
  await store.write((tx) => tx.logReplay({ ...entry, detail: { line: 3 } }));
  assert.equal(await store.replayOutcome("entry-1"), "applied");
  await assert.rejects(store.write((tx) => tx.logReplay({ ...entry, detail: {} })));
});

Deno.test({
  name: `servers on one PostgreSQL database claim each job exactly once${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { store, url, close } = await openScratchPostgres();
    const others = await Promise.all([1, 2, 3].map(() => openPostgresStore(url, { poolMax: 3 })));
    try {
      const jobs = 60;
      await store.write(async (tx) => {
        for (let i = 0; i < jobs; i++) {
          await tx.insertJob({ kind: "embed", payload: { i }, maxAttempts: 3, now: T0 });
        }
      });
      const servers = [store, ...others];
      const claimed = new Map<number, string>();
      // Every server claims small batches at once, outside units too, until the queue is empty.
      await Promise.all(servers.map(async (server, index) => {
        const owner = `server-${index}`;
        for (;;) {
          const batch = await server.claimJobs({
            kinds: ["embed"],
            owner,
            limit: 3,
            now: T1,
            leaseExpires: "2026-03-01T11:00:00Z",
          });
          if (batch.length === 0) return;
          for (const job of batch) {
            assert.equal(claimed.get(job.id), undefined, `job ${job.id} claimed twice`);
            claimed.set(job.id, owner);
            assert.equal(await server.finishJob(job.id, owner), true);
          }
        }
      }));
      assert.equal(claimed.size, jobs);
      assert.deepEqual(await store.countJobs(), {});
    } finally {
      await Promise.all(others.map((other) => other.close()));
      await close();
    }
  },
});
