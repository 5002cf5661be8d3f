/**
 * The plan of a bulk write's conflict checks (src/conflicts/check_plan.ts), on both backends: a
 * big import's checks wait as batches the plan's job takes into the plan, where alike memories
 * are next to each other; a run of the plan's job killed before its commit leaves the plan as it
 * was and the next run finishes it with every member checked once; a purged memory leaves the
 * plan; members joining one event in a run are all in it once the run commits.
 */
import assert from "node:assert/strict";
import { createDetectionMemo, runPlanCheck } from "../../src/conflicts/batch_check.ts";
import { planKey } from "../../src/conflicts/check_plan.ts";
import {
  DETECT_PLAN_JOB_KIND,
  DETECT_UNPLANNED_JOB_KIND,
} from "../../src/conflicts/constants_pipeline.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import type { DetectionStages } from "../../src/conflicts/detect.ts";
import { purgeMemories } from "../../src/govern/purge.ts";
import { claimJobs } from "../../src/jobs/queue.ts";
import type { Store } from "../../src/store/mod.ts";
import { type BackendContext, onBothBackends } from "../helpers/backend_context.ts";
import { importLines } from "../helpers/import_lines.ts";

/** Six kinds of note, each told by `crews` crews in turn (so a kind's copies are far apart). */
const KINDS = [
  "checked the hull pumps and logged the bilge level before the night watch",
  "painted the mooring bollards yellow after the harbour inspection asked for it",
  "replaced the radio antenna cable that chafed against the mast bracket",
  "counted the life jackets in the forward locker and found two missing straps",
  "moved the spare anchor chain to the aft hold to trim the vessel",
  "cleaned the galley stove burners and ordered a new gas regulator",
];

function crewLines(crews: number): object[] {
  return Array.from({ length: crews }, (_, crew) =>
    KINDS.map((kind) => ({
      type: "memory",
      subject: `crew ${crew} log`,
      content: `Crew ${crew} ${kind}.`,
      workspace: "harbour",
    }))).flat();
}

async function plan(store: Store) {
  return await store.read(async () => await store.plannedChecks(100_000));
}

/** Runs the plan's job until the batches waiting for the plan are in it. */
async function takeIntoPlan(t: BackendContext) {
  for (;;) {
    const jobs = await t.store.read(async () => await t.store.countJobs());
    if (!jobs[DETECT_UNPLANNED_JOB_KIND]?.pending) return;
    const job = await claimPlanJob(t.store, "taker");
    assert.ok(job, "batches wait for the plan: its job is queued");
    const report = await runPlanCheck(t.ctx, job, {
      stages: defaultStages(),
      memo: createDetectionMemo(),
    });
    assert.equal(report.checked, 0, "a run that takes batches into the plan checks nothing");
  }
}

async function claimPlanJob(store: Store, owner: string, at = new Date()) {
  return (await claimJobs(store, {
    kinds: [DETECT_PLAN_JOB_KIND],
    owner,
    limit: 1,
    leaseMs: 1_000,
  }, at))[0];
}

onBothBackends(
  "an import's checks wait in the plan with alike memories side by side",
  async (t) => {
    // 50 crews × 6 kinds: 300 memories in one chunk, more than a batch job takes.
    const report = await importLines(t.ctx, crewLines(50));
    assert.equal(report.created, 300);
    const jobs = await t.store.read(async () => await t.store.countJobs());
    assert.equal(jobs[DETECT_PLAN_JOB_KIND]?.pending, 1, "one job for the whole plan");
    assert.equal(jobs[DETECT_UNPLANNED_JOB_KIND]?.pending, 1, "the chunk waits to join the plan");
    assert.deepEqual(await plan(t.store), []);
    await takeIntoPlan(t);
    const planned = await plan(t.store);
    assert.equal(planned.length, 300);
    // In import order a kind's copies are six memories apart; in plan order each kind is one run.
    const kindOf = new Map<number, number>();
    const records = await t.store.read(async () =>
      await t.store.getMemories(planned.map((check) => check.memoryId))
    );
    for (const [id, record] of records) {
      kindOf.set(id, KINDS.findIndex((kind) => record.content.includes(kind)));
    }
    const runs = planned.map((check) => kindOf.get(check.memoryId)!)
      .filter((kind, index, all) => index === 0 || all[index - 1] !== kind);
    assert.equal(runs.length, KINDS.length, `kinds in plan order: ${runs.join(",")}`);
    // The key ignores numbers: the crews' copies of a kind share it.
    assert.equal(
      planKey(["crew", "12", "checked", "hull"]),
      planKey(["crew", "7", "checked", "hull"]),
    );
  },
);

onBothBackends(
  "a run of the plan killed before its commit leaves the plan as it was; every member is checked once",
  async (t) => {
    const lines = crewLines(45);
    lines.splice(
      100,
      0,
      { type: "memory", subject: "atlas deadline", content: "The Atlas deadline is Friday." },
    );
    lines.push({
      type: "memory",
      subject: "atlas deadline",
      content: "The Atlas deadline moved to Monday.",
    });
    await importLines(t.ctx, lines);
    await takeIntoPlan(t);
    const total = (await plan(t.store)).length;
    assert.equal(total, 272);
    let failNext = false;
    const stages: DetectionStages = {
      ...defaultStages(),
      assess(a, b) {
        if (failNext) {
          failNext = false;
          throw new Error("killed");
        }
        return defaultStages().assess(a, b);
      },
    };
    const memo = createDetectionMemo();
    let checked = 0;
    // A first worker's runs of 0 ms check one member each, and commit.
    let job = await claimPlanJob(t.store, "first");
    for (let run = 0; run < 5; run++) {
      const report = await runPlanCheck(t.ctx, job, { stages, memo, sliceMs: 0, runMs: 0 });
      checked += report.checked;
      assert.equal((await plan(t.store)).length, total - checked);
      job = await claimPlanJob(t.store, "first");
    }
    // Its next run dies before committing (in the rule stage of a member with claims).
    failNext = true;
    const before = await plan(t.store);
    await assert.rejects(
      runPlanCheck(t.ctx, job, { stages, memo, sliceMs: 60_000, runMs: 60_000 }),
      /killed/,
    );
    assert.deepEqual(await plan(t.store), before, "nothing of the dead run committed");
    assert.equal(await claimPlanJob(t.store, "second"), undefined, "the lease still holds it");
    // Once the lease expires a second worker takes the plan over and finishes it.
    job = await claimPlanJob(t.store, "second", new Date(Date.now() + 5_000));
    assert.ok(job);
    while (job) {
      const report = await runPlanCheck(t.ctx, job, {
        stages,
        memo: createDetectionMemo(),
        sliceMs: 60_000,
        runMs: 60_000,
      });
      checked += report.checked;
      job = await claimPlanJob(t.store, "second", new Date(Date.now() + 5_000));
    }
    assert.equal(checked, total, "each member checked in exactly one committed run");
    assert.deepEqual(await plan(t.store), []);
    const open = await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 100, offset: 0 })
    );
    const texts = open.rows.map((row) => row.members.map((member) => member.row_text).join(" | "));
    assert.ok(
      texts.some((text) => text.includes("Friday") && text.includes("Monday")),
      JSON.stringify(texts),
    );
  },
);

onBothBackends("a purged memory leaves the plan of checks", async (t) => {
  await importLines(t.ctx, crewLines(50));
  await takeIntoPlan(t);
  const [first] = await plan(t.store);
  await purgeMemories(t.ctx, { memoryId: first.memoryId, reason: "test", authorized: true });
  const after = await plan(t.store);
  assert.equal(after.length, 299);
  assert.ok(!after.some((check) => check.memoryId === first.memoryId));
});

onBothBackends(
  "members that join one event during a planned run are all in it, and found by it, once the run commits",
  async (t) => {
    const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
    const lines = crewLines(45);
    // Seven memories give the Atlas deadline, one day each, among the crews' logs.
    for (let k = 0; k < 7; k++) {
      lines.splice(k * 37, 0, {
        type: "memory",
        subject: "atlas deadline",
        content: `The Atlas deadline is ${days[k % 7]}.`,
      });
    }
    await importLines(t.ctx, lines);
    for (let job = await claimPlanJob(t.store, "w"); job; job = await claimPlanJob(t.store, "w")) {
      await runPlanCheck(t.ctx, job, { stages: defaultStages(), memo: createDetectionMemo() });
    }
    assert.deepEqual(await plan(t.store), []);
    const open = await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 100, offset: 0 })
    );
    const atlas = open.rows.filter((row) => row.members.some((m) => m.row_text.includes("Atlas")));
    const members = new Set(atlas.flatMap((row) => row.members.map((m) => m.memory_id)));
    assert.equal(members.size, 7, "every stated deadline is in an open event");
    assert.ok(atlas.some((row) => row.members.length > 2), "events were joined, not only opened");
    // Each event is found from each of its members (the index of members was written too).
    const found = await t.store.read(async () => await t.store.conflicts.openOf([...members]));
    for (const row of atlas) {
      for (const member of row.members) {
        assert.ok(
          found.get(member.memory_id)?.some((entry) => entry.conflictId === row.id),
          `memory ${member.memory_id} finds event ${row.id}`,
        );
      }
    }
  },
);
