import process from "node:process";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import { createDetectionMemo, runPlanCheck } from "../src/conflicts/batch_check.ts";
import { queuePlanJob } from "../src/conflicts/check_plan.ts";
import { DETECT_PLAN_JOB_KIND, DETECT_UNPLANNED_JOB_KIND } from "../src/conflicts/constants_pipeline.ts";
import { defaultStages } from "../src/conflicts/stages.ts";
import { startJobWorker } from "../src/jobs/worker.ts";
import { openStore } from "../src/store/mod.ts";
const [db, secondsS] = Deno.args;
const store = await openStore(db, { cacheDir: `${db}.cache` });
const ctx = { store, caller: { client: "bench", agentId: "plan" }, settings: { workspaceIsolation: "none" as const, includeSize: false }, events: composeMemoryEvents() };
const stages = defaultStages();
const memo = createDetectionMemo();
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
await store.write(async () => await queuePlanJob(store));
let w0 = 0, c0 = 0, done = 0, folding = true;
const t0 = performance.now();
const worker = startJobWorker(store, { [DETECT_PLAN_JOB_KIND]: async (job) => {
  if (!folding && performance.now() - w0 > Number(secondsS) * 1000) return;
  const r = await runPlanCheck(ctx, job, { stages, memo });
  if (folding && r.checked > 0) { folding = false; w0 = performance.now(); c0 = cpu(); console.log("folded in", Math.round(w0 - t0), "ms"); }
  if (!folding) done += r.checked;
} }, { manual: true });
await worker.drain(); await worker.stop();
const wall = performance.now() - w0, c = cpu() - c0;
console.log("checked", done, "per wall s", Math.round(done / wall * 1000), "per cpu s", Math.round(done / c * 1000));
store.close();
