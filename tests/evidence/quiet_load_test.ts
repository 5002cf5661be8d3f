/**
 * Loading the embedding model holds the thread for up to ~140 ms at a time, so background work
 * does not start it while calls arrive back to back: the embedding job waits for a pause (at
 * most MODEL_LOAD_QUIET_MAX_MS), then embeds everything that waited.
 */
import assert from "node:assert/strict";
import { noteRequest } from "../../src/jobs/activity.ts";
import { buildStaticModel } from "../../src/models/static_model.ts";
import { JOB_FOREGROUND_WINDOW_MS } from "../../src/jobs/constants.ts";
import { runEvidenceJob } from "../../src/evidence/worker.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openStaticModelContext } from "../helpers/context.ts";

Deno.test("background embedding waits for calls to pause before it loads the model", async () => {
  const t = await openStaticModelContext();
  const { semantic } = t;
  // Built ahead, so what the job would do at once is only the load (a few hundred ms).
  await buildStaticModel(`${t.dir}/models/static-wink-100d`);
  // Calls every few ms, as a client storing facts one at a time makes them.
  let lastCall = performance.now();
  let widestGap = 0;
  const calls = setInterval(() => {
    const now = performance.now();
    widestGap = Math.max(widestGap, now - lastCall);
    lastCall = now;
    noteRequest();
  }, 5);
  noteRequest();
  try {
    for (const content of ["We deploy on Tuesdays.", "The staging database is in Frankfurt."]) {
      await rememberMemory(t.ctx, { content, subject: "ops", workspace: "infra" });
    }
    // A machine too busy to fire a 5 ms timer within half the window could leave the job a pause
    // it may rightly take; only a calm machine can show that it waits.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const calm = widestGap < JOB_FOREGROUND_WINDOW_MS / 2;
    let finished = false;
    const job = runEvidenceJob(t.store, semantic, { complete: true }).then(() => finished = true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    if (calm) {
      assert.equal(finished, false, "the job waits while calls keep coming");
      assert.equal(
        (await semantic.describe()).embeddedRows,
        0,
        "nothing embedded while calls flow",
      );
    }
    clearInterval(calls);
    await job;
    const report = await semantic.describe();
    assert.equal(report.embeddedRows, report.rows, JSON.stringify(report));
    assert.ok(report.rows > 0);
  } finally {
    clearInterval(calls);
    await semantic.unload();
    t.cleanup();
  }
});
