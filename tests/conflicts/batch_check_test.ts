/**
 * The planned check of a bulk import (src/conflicts/batch_check.ts), on both backends: an
 * import queues one check per chunk instead of one per memory, the checks still find a
 * contradiction inside the import and one with a fact already stored, they find exactly what
 * checking every imported memory on its own finds, and a run killed half way resumes without
 * losing a member or checking again one whose findings committed.
 */
import assert from "node:assert/strict";
import {
  createDetectionMemo,
  runBatchCheck,
  runPlanCheck,
} from "../../src/conflicts/batch_check.ts";
import {
  DETECT_BATCH_JOB_KIND,
  DETECT_JOB_KIND,
  DETECT_PLAN_JOB_KIND,
  DETECT_UNPLANNED_JOB_KIND,
} from "../../src/conflicts/constants_pipeline.ts";
import { detectConflicts, type DetectionStages } from "../../src/conflicts/detect.ts";
import { memberRuns } from "../../src/conflicts/batch_runs.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import { claimJobs } from "../../src/jobs/queue.ts";
import { startJobWorker } from "../../src/jobs/worker.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import type { Store } from "../../src/store/mod.ts";
import {
  type BackendContext,
  onBothBackends,
  openBackendContext,
} from "../helpers/backend_context.ts";
import { importLines } from "../helpers/import_lines.ts";
import { loadCorpus } from "./corpus.ts";

function fillerLine(index: number): object {
  return {
    type: "memory",
    subject: `Station log ${index}`,
    content: `Station ${index} reported steady readings and a calm sea at noon.`,
    workspace: "ocean",
  };
}

/** `count` services on ports 8000 and up, then service 3 on another port (one contradiction). */
function portLines(count: number): object[] {
  const lines = Array.from({ length: count }, (_, k) => ({
    type: "memory",
    subject: `service ${k}`,
    content: `Service ${k} runs on port ${8000 + k}.`,
    workspace: "ports",
  }));
  return [...lines, {
    type: "memory",
    subject: "service 3",
    content: "Service 3 runs on port 9100.",
    workspace: "ports",
  }];
}

async function drainChecks(t: BackendContext, stages: DetectionStages = defaultStages()) {
  const memo = createDetectionMemo();
  const worker = startJobWorker(t.store, {
    [DETECT_JOB_KIND]: async (job) => {
      await detectConflicts(t.ctx, Number(job.payload.memory_id), stages);
    },
    [DETECT_BATCH_JOB_KIND]: async (job) => {
      await runBatchCheck(t.ctx, job, { stages, memo });
    },
    [DETECT_PLAN_JOB_KIND]: async (job) => {
      await runPlanCheck(t.ctx, job, { stages, memo });
    },
  }, { manual: true });
  await worker.drain();
  await worker.stop();
}

/**
 * The rows in an open conflict, sorted. Which event a pair joins depends on the order pairs
 * are recorded in (a batch's continuation waits behind the other chunks), so two runs that find
 * the same pairs may group them differently; the rows found in conflict are the same.
 */
async function rowsInConflict(store: Store): Promise<string[]> {
  const open = await store.read(async () =>
    await store.conflicts.list({ statuses: ["open"], limit: 1_000, offset: 0 })
  );
  return [...new Set(open.rows.flatMap((row) => row.members.map((member) => member.row_text)))]
    .sort();
}

/** Each open conflict as its members' row texts, sorted, the list sorted too. */
async function conflictTexts(store: Store): Promise<string[]> {
  const open = await store.read(async () =>
    await store.conflicts.list({ statuses: ["open"], limit: 1_000, offset: 0 })
  );
  return open.rows.map((row) => row.members.map((member) => member.row_text).sort().join(" | "))
    .sort();
}

onBothBackends(
  "an import queues one check per chunk, and it finds contradictions inside the import and with the library",
  async (t) => {
    await rememberMemory(t.ctx, {
      subject: "deploy day",
      content: "We deploy on Fridays.",
      workspace: "infra",
    });
    const filler = Array.from({ length: 1_200 }, (_, k) => fillerLine(k));
    const report = await importLines(t.ctx, [
      ...filler.slice(0, 100),
      { type: "memory", subject: "atlas deadline", content: "The Atlas deadline is Friday." },
      ...filler.slice(100, 700),
      {
        type: "memory",
        subject: "deploy day",
        content: "We don't deploy on Fridays.",
        workspace: "infra",
      },
      ...filler.slice(700),
      { type: "memory", subject: "atlas deadline", content: "The Atlas deadline moved to Monday." },
    ]);
    assert.equal(report.created, 1_203);
    const jobs = await t.store.read(async () => await t.store.countJobs());
    // 1,203 memories in chunks of 500: two chunks wait for the plan (one job for the plan), the
    // last 203 (below DETECT_VECTOR_BACKLOG_MAX, so still looked up by meaning) one batch job.
    assert.equal(jobs[DETECT_PLAN_JOB_KIND]?.pending, 1);
    assert.equal(jobs[DETECT_UNPLANNED_JOB_KIND]?.pending, 2);
    assert.equal(jobs[DETECT_BATCH_JOB_KIND]?.pending, 1);
    assert.equal(jobs[DETECT_JOB_KIND]?.pending ?? 0, 1, "the remembered fact's own check");
    await drainChecks(t);
    assert.deepEqual(await conflictTexts(t.store), [
      "The Atlas deadline is Friday. | The Atlas deadline moved to Monday.",
      "We deploy on Fridays. | We don't deploy on Fridays.",
    ]);
    const left = await t.store.read(async () => await t.store.countJobs());
    assert.equal(left[DETECT_PLAN_JOB_KIND]?.pending ?? 0, 0);
    assert.equal(left[DETECT_UNPLANNED_JOB_KIND]?.pending ?? 0, 0);
    assert.equal(left[DETECT_BATCH_JOB_KIND]?.pending ?? 0, 0);
    assert.deepEqual(await t.store.read(async () => await t.store.plannedChecks(1)), []);
  },
);

onBothBackends(
  "the planned checks of an import find what checking each imported memory alone finds",
  async (t) => {
    const corpus = (await loadCorpus()).filter((pair) => pair.lang === "en");
    const lines = corpus.flatMap((pair) =>
      [pair.a, pair.b].map((side) => ({
        type: "memory",
        subject: side.subject ?? pair.domain,
        content: side.text,
        workspace: pair.domain,
      }))
    );
    const report = await importLines(t.ctx, lines);
    assert.ok(report.created > 500, "more than one chunk");
    await drainChecks(t);
    const planned = await rowsInConflict(t.store);
    assert.ok(planned.length > 50, `the corpus holds conflicts (${planned.length})`);
    // The same import, each memory checked on its own in id order (what one job per memory did).
    const alone = await openBackendContext(
      t.store.backend?.kind === "postgresql" ? "postgres" : "sqlite",
    );
    try {
      const again = await importLines(alone.ctx, lines);
      const ids = await alone.store.read(async () =>
        await alone.store.browse({ statuses: ["active"] }, { limit: 10_000, offset: 0 })
      );
      assert.equal(ids.length, again.created);
      for (const id of [...ids].sort((a, b) => a - b)) {
        await detectConflicts(alone.ctx, id, defaultStages());
      }
      assert.deepEqual(planned, await rowsInConflict(alone.store));
    } finally {
      await alone.close();
    }
  },
);

onBothBackends(
  "a batch check killed half way resumes without losing or repeating a member's check",
  async (t) => {
    await importLines(t.ctx, portLines(40));
    // Every member check with claims looks up neighbours by meaning first: that call counts the
    // checks, and fails once on demand, the way a process dies mid-run.
    const checks = new Map<string, number>();
    let failNext = false;
    const stages: DetectionStages = {
      ...defaultStages(),
      vectors: {
        near(text) {
          if (failNext) {
            failNext = false;
            throw new Error("killed");
          }
          checks.set(text, (checks.get(text) ?? 0) + 1);
          return Promise.resolve([]);
        },
      },
    };
    const memo = createDetectionMemo();
    const claim = async (owner: string, at = new Date()) =>
      (await claimJobs(t.store, {
        kinds: [DETECT_BATCH_JOB_KIND],
        owner,
        limit: 1,
        leaseMs: 1_000,
      }, at))[0];
    // A first worker checks a few members (a run of 0 ms checks one) and commits each.
    let job = await claim("first");
    for (let run = 0; run < 5; run++) {
      const report = await runBatchCheck(t.ctx, job, { stages, memo, sliceMs: 0, runMs: 0 });
      assert.equal(report.checked, 1);
      job = await claim("first");
    }
    // Its next run dies before committing anything: its job stays claimed.
    failNext = true;
    await assert.rejects(
      runBatchCheck(t.ctx, job, { stages, memo, sliceMs: 0, runMs: 0 }),
      /killed/,
    );
    assert.equal(await claim("second"), undefined, "the lease still holds the job");
    // Once the lease expires a second worker (fresh memo) takes the job over and finishes.
    const later = new Date(Date.now() + 5_000);
    const taken = await claim("second", later);
    assert.equal(taken.id, job.id);
    const report = await runBatchCheck(t.ctx, taken, {
      stages,
      memo: createDetectionMemo(),
      sliceMs: 60_000,
      runMs: 60_000,
    });
    assert.equal(report.left, 0);
    assert.equal(checks.size, 41, "every member was checked");
    assert.deepEqual([...checks.values()].filter((count) => count !== 1), [], "none twice");
    const found = await conflictTexts(t.store);
    assert.ok(
      found.some((text) => text.includes("port 8003.") && text.includes("port 9100.")),
      JSON.stringify(found),
    );
    const jobs = await t.store.read(async () => await t.store.countJobs());
    assert.equal(jobs[DETECT_BATCH_JOB_KIND]?.pending ?? 0, 0);
    assert.equal(jobs[DETECT_BATCH_JOB_KIND]?.running ?? 0, 0);
  },
);

onBothBackends(
  "a member changed after its run read it ahead is never recorded at the version it no longer has",
  async (t) => {
    await importLines(t.ctx, portLines(20));
    const ids = await t.store.read(async () =>
      await t.store.browse({ statuses: ["active"] }, { limit: 100, offset: 0 })
    );
    const service3 = [...ids].sort((a, b) => a - b)[3];
    const [job] = await claimJobs(t.store, {
      kinds: [DETECT_BATCH_JOB_KIND],
      owner: "unit",
      limit: 1,
    });
    // The run reads its first members ahead, checks one, and gives requests a turn: that turn
    // rewrites service 3 before its check comes.
    let turns = 0;
    const report = await runBatchCheck(t.ctx, job, {
      stages: defaultStages(),
      memo: createDetectionMemo(),
      sliceMs: 0,
      runMs: 60_000,
      yieldTurn: async () => {
        if (turns++ > 0) return;
        await updateMemory(t.ctx, {
          memoryId: service3,
          edit: { kind: "new_content", content: "Service 3 was retired last spring." },
        });
      },
    });
    assert.equal(report.left, 0);
    const open = await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 100, offset: 0 })
    );
    const members = open.rows.flatMap((row) => row.members);
    assert.ok(members.length > 0, "the run recorded what it found");
    const stale = members.filter((member) => member.memory_id === service3 && member.version === 1);
    assert.deepEqual(stale, [], "no conflict quotes the text service 3 no longer holds");
  },
);

Deno.test("a chunk's members travel as runs of consecutive ids: an import chunk is one run", () => {
  const chunk = Array.from({ length: 500 }, (_, k) => [1_000 + k, 1] as [number, number]);
  assert.deepEqual(memberRuns(chunk), [[1_000, 500, 1]]);
  // An updated memory (version 2) and a gap start new runs; the order is kept.
  assert.deepEqual(memberRuns([[5, 1], [6, 1], [7, 2], [9, 1], [10, 1]]), [
    [5, 2, 1],
    [7, 1, 2],
    [9, 2, 1],
  ]);
});
