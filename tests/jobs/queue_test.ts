import assert from "node:assert/strict";
import { claimJobs, completeJob, enqueueJob, failJob, retryDelayMs } from "../../src/jobs/queue.ts";
import { startJobWorker } from "../../src/jobs/worker.ts";
import { openStore } from "../../src/store/mod.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("jobs are claimed once, retried with backoff, then poisoned", async () => {
  const t = await openTestContext();
  try {
    const { store } = t;
    const id = (await store.write(async () =>
      await enqueueJob(store, { kind: "k", payload: { n: 1 }, maxAttempts: 2 })
    ))!;
    const t0 = new Date();
    const first = await claimJobs(store, { kinds: ["k"], owner: "a", limit: 5 }, t0);
    assert.deepEqual(
      first.map((j) =>
        j.id
      ),
      [id],
    );
    assert.equal(
      (await claimJobs(store, { kinds: ["k"], owner: "b", limit: 5 }, t0)).length,
      0,
      "a leased job is not claimed twice",
    );
    assert.equal(
      await failJob(store, first[0], { owner: "a", error: new Error("boom") }, t0),
      "pending",
    );
    assert.equal(
      (await claimJobs(store, { kinds: ["k"], owner: "b", limit: 5 }, t0)).length,
      0,
      "backoff delays the retry",
    );
    const later = new Date(t0.getTime() + retryDelayMs(1) + 1);
    const second = await claimJobs(store, { kinds: ["k"], owner: "b", limit: 5 }, later);
    assert.equal(second[0].attempts, 2);
    assert.equal(
      await failJob(store, second[0], { owner: "b", error: "again" }, later),
      "poisoned",
    );
    const poisoned = (await store.getJob(id))!;
    assert.equal(poisoned.status, "poisoned");
    assert.equal(poisoned.lastError, "again");
    assert.equal(
      (await claimJobs(
        store,
        { kinds: ["k"], owner: "c", limit: 5 },
        new Date(later.getTime() + 3_600_000),
      )).length,
      0,
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("a crashed worker's lease expires and another worker finishes the job", async () => {
  const t = await openTestContext();
  try {
    const { store } = t;
    await store.write(async () => await enqueueJob(store, { kind: "k", payload: {} }));
    const t0 = new Date();
    const [lost] = await claimJobs(
      store,
      { kinds: ["k"], owner: "crashed", limit: 1, leaseMs: 1000 },
      t0,
    );
    const [taken] = await claimJobs(
      store,
      { kinds: ["k"], owner: "rescuer", limit: 1 },
      new Date(t0.getTime() + 1001),
    );
    assert.equal(taken.id, lost.id);
    assert.equal(
      await completeJob(store, lost, "crashed"),
      false,
      "the old owner cannot complete it",
    );
    assert.equal(await completeJob(store, taken, "rescuer"), true);
    assert.equal(await store.getJob(taken.id), undefined, "a finished job leaves the queue");
  } finally {
    t.cleanup();
  }
});

Deno.test("a pending job with the same key absorbs a duplicate; a running one does not", async () => {
  const t = await openTestContext();
  try {
    const { store } = t;
    const a = await store.write(async () =>
      await enqueueJob(store, { kind: "k", dedupeKey: "m1", payload: {} })
    );
    assert.equal(
      await store.write(async () =>
        await enqueueJob(store, { kind: "k", dedupeKey: "m1", payload: {} })
      ),
      undefined,
    );
    await claimJobs(store, { kinds: ["k"], owner: "w", limit: 1 });
    const b = await store.write(async () =>
      await enqueueJob(store, { kind: "k", dedupeKey: "m1", payload: {} })
    );
    assert.ok(b !== undefined && b !== a);
  } finally {
    t.cleanup();
  }
});

Deno.test("the worker drains the queue and survives a restart of the store", async () => {
  const t = await openTestContext();
  try {
    const { store } = t;
    await store.write(async () => {
      for (let i = 0; i < 20; i++) await enqueueJob(store, { kind: "count", payload: { i } });
    });
    store.close();
    const reopened = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache` });
    const seen: number[] = [];
    const worker = startJobWorker(reopened, {
      count: (job) => void seen.push(job.payload.i as number),
    }, { manual: true });
    assert.equal(await worker.drain(), 20);
    await worker.stop();
    assert.deepEqual(seen.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
    assert.deepEqual(await reopened.countJobs(), {}, "finished jobs leave the queue");
    reopened.close();
  } finally {
    Deno.removeSync(t.dir, { recursive: true });
  }
});

Deno.test("two processes claiming from one queue run every job exactly once", async () => {
  const t = await openTestContext();
  try {
    const { store } = t;
    const total = 200;
    await store.write(async () => {
      for (let i = 0; i < total; i++) await enqueueJob(store, { kind: "race", payload: { i } });
    });
    const script = (name: string) => `
      import { openStore } from ${
      JSON.stringify(new URL("../../src/store/mod.ts", import.meta.url).href)
    };
      import { claimJobs, completeJob } from ${
      JSON.stringify(new URL("../../src/jobs/queue.ts", import.meta.url).href)
    };
      const store = await openStore(${JSON.stringify(t.dbPath)}, { cacheDir: ${
      JSON.stringify(`${t.dir}/cache`)
    }, skipVec: true });
      const OWNER = ${JSON.stringify(name)};
      const done = [];
      for (;;) {
        const jobs = await claimJobs(store, { kinds: ["race"], owner: OWNER, limit: 3 });
        if (jobs.length === 0) break;
        for (const job of jobs) {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // work takes time
          if (await completeJob(store, job, OWNER)) done.push(job.payload.i);
        }
      }
      console.log(JSON.stringify(done));
      store.close();
    `;
    const run = (name: string) =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", script(name)],
        stdout: "piped",
        stderr: "inherit",
      }).output();
    const [a, b] = await Promise.all([run("p1"), run("p2")]);
    const doneA = JSON.parse(new TextDecoder().decode(a.stdout)) as number[];
    const doneB = JSON.parse(new TextDecoder().decode(b.stdout)) as number[];
    const all = [...doneA, ...doneB].sort((x, y) => x - y);
    assert.deepEqual(all, Array.from({ length: total }, (_, i) => i), "every job once, none twice");
    assert.ok(
      doneA.length > 0 && doneB.length > 0,
      `both processes worked (${doneA.length}/${doneB.length})`,
    );
  } finally {
    t.cleanup();
  }
});
