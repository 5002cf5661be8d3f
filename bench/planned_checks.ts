/**
 * The conflict checks a bulk import leaves, checked one memory at a time (one `detect_conflicts`
 * job each, as before issue 38's plan) and as planned batches (one `detect_conflicts_batch` job
 * per import chunk, src/conflicts/batch_check.ts), in process on an existing library, in the same
 * run: chunks of consecutive memories (what one import batch stores) alternate between the two
 * ways, so both see the same cache state and the same machine load.
 *
 *   deno run -A bench/planned_checks.ts --db PATH [--chunks 6] [--chunk 500] [--from ID]
 *
 * It records conflicts and jobs in the database: run it on a copy. Prints memories checked per
 * second (wall and per CPU-second of this process) for each way and their ratio; writes
 * bench/results/planned_checks.json. Never asserts.
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import { createDetectionMemo, runBatchCheck } from "../src/conflicts/batch_check.ts";
import { DETECT_BATCH_JOB_KIND } from "../src/conflicts/constants_pipeline.ts";
import { detectConflicts } from "../src/conflicts/detect.ts";
import { scheduleBatchCheck } from "../src/conflicts/schedule.ts";
import { defaultStages } from "../src/conflicts/stages.ts";
import { startJobWorker } from "../src/jobs/worker.ts";
import { openStore } from "../src/store/mod.ts";
import { machineFacts, markdownTable, writeResult } from "./helpers/stats.ts";

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    db: { type: "string" },
    chunks: { type: "string", default: "6" },
    chunk: { type: "string", default: "500" },
    from: { type: "string" },
    /** Only one way (for a profile): alone or planned. */
    only: { type: "string" },
  },
});
if (!values.db) throw new Error("--db PATH (a copy of a library: the checks write to it)");
const store = await openStore(values.db, { cacheDir: `${values.db}.cache` });
const ctx = {
  store,
  caller: { client: "bench", agentId: "planned-checks" },
  settings: { workspaceIsolation: "none" as const, includeSize: false },
  events: composeMemoryEvents(),
};
const stages = defaultStages();
const chunk = Number(values.chunk);
const chunks = Number(values.chunks);
// By default the chunks start at 90% of the library (ids follow the import order).
const from = values.from
  ? Number(values.from)
  : Math.max(1, Math.floor((await store.read(() => store.indexedMemories())) * 0.9));
const memo = createDetectionMemo();
const totals = {
  alone: { memories: 0, wallMs: 0, cpuMs: 0 },
  planned: { memories: 0, wallMs: 0, cpuMs: 0 },
};

async function versionsOf(ids: number[]): Promise<[number, number][]> {
  const records = await store.read(async () => await store.getMemories(ids));
  return ids.flatMap((id) => {
    const record = records.get(id);
    return record ? [[id, record.version] as [number, number]] : [];
  });
}

for (let k = 0; k < chunks; k++) {
  const ids = Array.from({ length: chunk }, (_, i) => from + k * chunk + i);
  const members = await versionsOf(ids);
  const planned = values.only ? values.only === "planned" : k % 2 === 1;
  const wall0 = performance.now();
  const cpu0 = cpuMs();
  if (planned) {
    await store.write(async () =>
      await scheduleBatchCheck(
        store,
        members.map(([memoryId, version]) => ({ memoryId, version })),
      )
    );
    // The worker as a server runs it: slices of JOB_SLICE_MS, each its own job and transaction.
    const worker = startJobWorker(store, {
      [DETECT_BATCH_JOB_KIND]: async (job) => {
        await runBatchCheck(ctx, job, { stages, memo });
      },
    }, { manual: true });
    await worker.drain();
    await worker.stop();
  } else {
    for (const [memoryId] of members) await detectConflicts(ctx, memoryId, stages);
  }
  const way = planned ? totals.planned : totals.alone;
  way.memories += members.length;
  way.wallMs += performance.now() - wall0;
  way.cpuMs += cpuMs() - cpu0;
  console.error(`chunk ${k} (${planned ? "planned" : "alone"}): ${members.length} memories`);
}
store.close();

const rows = Object.entries(totals).map(([way, total]) => ({
  way,
  memories: total.memories,
  per_s_wall: Math.round(total.memories / (total.wallMs / 1000)),
  per_cpu_s: Math.round(total.memories / (total.cpuMs / 1000)),
}));
const ratio = Number((rows[1].per_cpu_s / Math.max(1, rows[0].per_cpu_s)).toFixed(2));
console.log(markdownTable(rows));
console.log(`planned / alone, per CPU-second: ${ratio}×; load average ${Deno.loadavg().join(" ")}`);
writeResult("planned_checks", { machine: machineFacts(), from, chunk, rows, ratio });
