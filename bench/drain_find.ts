/**
 * `find` while a bulk import's conflict checks drain, against `find` idle, through MCP in one
 * run (issue 38: p95 during the drain ≤ 1.5× idle). A real `mema serve` on an existing library
 * (e.g. the 1M one `bench/million.ts --keep` leaves; it is changed: run it on a copy) answers
 * LoCoMo questions in passes: a warm-up, then twice in turn: idle (no background work), while
 * every memory of the library waits in the plan of checks (`check_plan`, what `mema import`
 * leaves now: src/conflicts/check_plan.ts), and while the checks of the newest `--chunks`
 * chunks wait as chunk jobs (`detect_conflicts_batch`, what it queued before). Then each backlog
 * drains for `--drain-seconds` with no request, to count how fast the server works through it.
 * The backlogs are written by this process into the database, as a concurrent `mema import`
 * would (every memory queued for the plan a chunk at a time, which the server takes into the plan
 * before the passes, timed; the plan's job is taken away for the passes without it); the
 * server's worker picks them up.
 *
 *   deno run -A bench/drain_find.ts --db PATH [--queries 200] [--chunks 40] [--drain-seconds 60]
 *
 * Prints p50/p95/max per pass and each pass's p95 against the mean of the idle passes', members
 * checked per second during each pass and in the drains without requests (there per second and
 * per CPU-second of the server). Writes
 * bench/results/drain_find.json. Never asserts.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { queueForPlan, queuePlanJob } from "../src/conflicts/check_plan.ts";
import {
  DETECT_BATCH_JOB_KIND,
  DETECT_JOB_KIND,
  DETECT_PLAN_JOB_KIND,
  DETECT_UNPLANNED_JOB_KIND,
} from "../src/conflicts/constants_pipeline.ts";
import { memberRuns } from "../src/conflicts/batch_runs.ts";
import { openStore, type Store } from "../src/store/mod.ts";
import { loadLocomo, LOCOMO_DEV, scoredQuestions } from "./helpers/locomo.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import {
  machineFacts,
  markdownTable,
  processCpuMs,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";

const CHUNK = 500;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    db: { type: "string" },
    queries: { type: "string", default: "200" },
    chunks: { type: "string", default: "40" },
    "drain-seconds": { type: "string", default: "60" },
  },
});
if (!values.db) throw new Error("--db PATH (a copy of a library: the checks write to it)");
const dbPath = values.db;
const questions = loadLocomo(LOCOMO_DEV).flatMap((conversation) =>
  scoredQuestions(conversation).map((entry) => entry.question.question)
).slice(0, Number(values.queries));
const chunks = Number(values.chunks);
const drainSeconds = Number(values["drain-seconds"]);

/**
 * Members (memory, version) still queued: planned, waiting for the plan, and in chunk jobs. Read
 * straight from the SQLite file, since the store says how many jobs wait, not how many members
 * they hold.
 */
function queuedMembers(): { planned: number; unplanned: number; chunked: number } {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const open = "status IN ('pending', 'running')";
    const members = (kind: string) =>
      Number(
        (db.prepare(
          `SELECT coalesce(sum(json_extract(run.value, '$[1]')), 0) AS n
           FROM jobs, json_each(jobs.payload, '$.runs') AS run WHERE kind = ? AND ${open}`,
        ).get(kind) as { n: number }).n,
      );
    const planned = db.prepare("SELECT count(*) AS n FROM check_plan").get() as { n: number };
    return {
      planned: Number(planned.n),
      unplanned: members(DETECT_UNPLANNED_JOB_KIND),
      chunked: members(DETECT_BATCH_JOB_KIND),
    };
  } finally {
    db.close();
  }
}

function queuedTotal(): number {
  const queued = queuedMembers();
  return queued.planned + queued.unplanned + queued.chunked;
}

/** Queues every active memory's check for the plan, a chunk at a time, as an import does. */
async function planLibrary(store: Store): Promise<number> {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  let planned = 0;
  try {
    for (let after = 0;;) {
      // By id alone (the status index would have the planner sort every active memory).
      const page = db.prepare(
        `SELECT id, version, status FROM memories WHERE id > ? ORDER BY id LIMIT ${CHUNK}`,
      ).all(after) as { id: number; version: number; status: string }[];
      if (page.length === 0) break;
      after = page.at(-1)!.id;
      const active = page.filter((memory) => memory.status === "active");
      await store.write(async () =>
        await queueForPlan(store, active.map((memory) => [memory.id, memory.version] as const))
      );
      planned += active.length;
    }
  } finally {
    db.close();
  }
  return planned;
}

/** Queues the plan's job (the plan), or the newest `chunks` chunks as chunk jobs. */
async function queueBacklog(store: Store, kind: "plan" | "chunks", offset: number) {
  if (kind === "plan") {
    await store.write(async () => await queuePlanJob(store));
    return;
  }
  const newest = await store.read(() => store.indexedMemories());
  const first = Math.max(1, newest - (offset + chunks) * CHUNK);
  for (let k = 0; k < chunks; k++) {
    const ids = Array.from({ length: CHUNK }, (_, i) => first + k * CHUNK + i);
    const records = await store.read(async () => await store.getMemories(ids));
    const members = [...records.values()].filter((record) => record.status === "active")
      .map((record) => [record.id, record.version] as [number, number]);
    // What a chunk queued before the plan: one job holding its members.
    await store.write(async () =>
      await store.insertJob({
        kind: DETECT_BATCH_JOB_KIND,
        dedupeKey: `bench:${first + k * CHUNK}`,
        payload: { runs: memberRuns(members) },
        maxAttempts: 5,
        now: new Date().toISOString(),
      })
    );
  }
}

/** Takes every queued check's job away (this copy only); the plan's rows stay for later passes. */
function clearChecks(): void {
  const db = new DatabaseSync(dbPath);
  try {
    // The server may be committing a run's findings: wait for its write lock, as mema does.
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare("DELETE FROM jobs WHERE kind IN (?, ?, ?)").run(
      DETECT_JOB_KIND,
      DETECT_BATCH_JOB_KIND,
      DETECT_PLAN_JOB_KIND,
    );
  } finally {
    db.close();
  }
}

const home = Deno.makeTempDirSync({ prefix: "mema-drain-find-" });
const store = await openStore(dbPath, { cacheDir: `${home}/cache` });
clearChecks();
const plannedMembers = await planLibrary(store);
// The server takes the waiting batches into the plan first (its plan job, queued with them),
// with no request in flight; then the plan's job is taken away for the first pass.
const server = await startMemaServer({ home, dbPath });
const takeStarted = performance.now();
while (queuedMembers().unplanned > 0) await new Promise((resolve) => setTimeout(resolve, 500));
const takeSeconds = (performance.now() - takeStarted) / 1000;
clearChecks();
console.error(`${plannedMembers} checks taken into the plan in ${takeSeconds.toFixed(1)} s`);
const rows: Record<string, unknown>[] = [];
const drains: Record<string, unknown>[] = [];
let offset = 0;
try {
  const pass = async (name: string, kind?: "plan" | "chunks") => {
    if (kind !== undefined) await queueBacklog(store, kind, offset);
    if (kind === "chunks") offset += chunks;
    const before = queuedTotal();
    const times: number[] = [];
    const started = performance.now();
    for (const query of questions) {
      times.push((await timedAsync(() => server.call("memory", "find", { query, limit: 10 }))).ms);
    }
    const seconds = (performance.now() - started) / 1000;
    const drained = before - queuedTotal();
    clearChecks();
    const summary = summarize(times);
    rows.push({
      pass: name,
      find_p50_ms: summary.p50,
      find_p95_ms: summary.p95,
      find_max_ms: summary.max,
      checked_per_s: Math.round(drained / seconds),
    });
    console.error(JSON.stringify(rows.at(-1)));
  };
  /** Members the server checks in `seconds` with no request in flight. */
  const drainAlone = async (name: string, kind: "plan" | "chunks", seconds: number) => {
    await queueBacklog(store, kind, offset);
    if (kind === "chunks") offset += chunks;
    const before = queuedTotal();
    // The server's own CPU time as well: on a loaded machine its wall rate carries the wait for
    // a core, its rate per CPU-second does not.
    const cpu0 = server.pid === undefined ? undefined : processCpuMs(server.pid);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const cpu1 = server.pid === undefined ? undefined : processCpuMs(server.pid);
    const drained = before - queuedTotal();
    clearChecks();
    const cpuSeconds = cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / 1000;
    drains.push({
      backlog: name,
      seconds,
      checked: drained,
      per_s: Math.round(drained / seconds),
      server_cpu_s: cpuSeconds === undefined ? null : Number(cpuSeconds.toFixed(1)),
      per_cpu_s: cpuSeconds ? Math.round(drained / cpuSeconds) : null,
    });
    console.error(JSON.stringify(drains.at(-1)));
  };
  await pass("warm-up");
  console.error(`jobs after warm-up: ${JSON.stringify(await store.read(() => store.countJobs()))}`);
  // Interleaved, twice: the machine's load moves more between passes than the drain does.
  for (const round of [1, 2]) {
    await pass(`idle ${round}`);
    await pass(`drain ${round}: the plan (${plannedMembers} planned)`, "plan");
    await pass(`drain ${round}: chunk jobs`, "chunks");
  }
  await drainAlone("the plan", "plan", drainSeconds);
  await drainAlone("chunk jobs", "chunks", drainSeconds);
} finally {
  await server.close();
  store.close();
  Deno.removeSync(home, { recursive: true });
}
const idle = rows.filter((row) => String(row.pass).startsWith("idle"))
  .map((row) => row.find_p95_ms as number);
const idleP95 = idle.reduce((sum, value) => sum + value, 0) / Math.max(1, idle.length);
for (const row of rows) {
  row.p95_vs_idle = Number(((row.find_p95_ms as number) / idleP95).toFixed(2));
}
console.log(markdownTable(rows));
console.log(markdownTable(drains));
console.log(`p95 ratios are to the mean of the idle passes' p95 (${idleP95.toFixed(1)} ms)`);
console.log(`load average ${Deno.loadavg().join(" ")}`);
console.log(`${plannedMembers} checks taken into the plan in ${takeSeconds.toFixed(1)} s`);
writeResult("drain_find", {
  machine: machineFacts(),
  planned: plannedMembers,
  take_s: takeSeconds,
  rows,
  drains,
});
