/**
 * `find` while a bulk import's conflict checks drain, against `find` idle, through MCP in one
 * run (issue 38: p95 during the drain ≤ 1.5× idle). A real `mema serve` on an existing library
 * (e.g. the 1M one `bench/million.ts --keep` leaves; it is changed: run it on a copy) answers
 * LoCoMo questions in passes: a warm-up, then twice in turn: idle (no background work), while the
 * checks of an import wait as planned chunk jobs (`detect_conflicts_batch`, what `mema import`
 * queues now), and while the same number wait one job per memory (`detect_conflicts`, what it
 * queued before). Then each backlog drains for `--drain-seconds` with no request, to count how
 * fast the server works through it. The backlogs are written by this process into the database,
 * as a concurrent `mema import` would; the server's worker picks them up; what is left after a
 * pass is deleted from the file (a copy) so the next pass sees only its own.
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
import { DETECT_BATCH_JOB_KIND, DETECT_JOB_KIND } from "../src/conflicts/constants_pipeline.ts";
import { scheduleBatchCheck, scheduleConflictCheck } from "../src/conflicts/schedule.ts";
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
 * Members (memory, version) still queued, by kind: read straight from the SQLite file, since the
 * store says how many jobs wait, not how many members a batch job still holds.
 */
function queuedMembers(): { planned: number; alone: number } {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const open = "status IN ('pending', 'running')";
    const alone = db.prepare(`SELECT count(*) AS n FROM jobs WHERE kind = ? AND ${open}`)
      .get(DETECT_JOB_KIND) as { n: number };
    const planned = db.prepare(
      `SELECT coalesce(sum(json_extract(run.value, '$[1]')), 0) AS n
       FROM jobs, json_each(jobs.payload, '$.runs') AS run WHERE kind = ? AND ${open}`,
    ).get(DETECT_BATCH_JOB_KIND) as { n: number };
    return { planned: Number(planned.n), alone: Number(alone.n) };
  } finally {
    db.close();
  }
}

/** Queues the checks of `chunks` chunks of the newest memories, planned or one job each. */
async function queueBacklog(store: Store, planned: boolean, offset: number): Promise<number> {
  const newest = await store.read(() => store.indexedMemories());
  const first = Math.max(1, newest - (offset + chunks) * CHUNK);
  let queued = 0;
  for (let k = 0; k < chunks; k++) {
    const ids = Array.from({ length: CHUNK }, (_, i) => first + k * CHUNK + i);
    const records = await store.read(async () => await store.getMemories(ids));
    const facts = [...records.values()].filter((record) => record.status === "active")
      .map((record) => ({ memoryId: record.id, version: record.version }));
    await store.write(async () => {
      if (planned) await scheduleBatchCheck(store, facts);
      else {for (const fact of facts) {
          await scheduleConflictCheck(store, fact.memoryId, fact.version);
        }}
    });
    queued += facts.length;
  }
  return queued;
}

/** Drops every queued conflict check (this copy only), so the next pass sees its own backlog. */
function clearChecks(): void {
  const db = new DatabaseSync(dbPath);
  try {
    // The server may be committing a run's findings: wait for its write lock, as mema does.
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare("DELETE FROM jobs WHERE kind IN (?, ?)").run(DETECT_JOB_KIND, DETECT_BATCH_JOB_KIND);
  } finally {
    db.close();
  }
}

const home = Deno.makeTempDirSync({ prefix: "mema-drain-find-" });
const store = await openStore(dbPath, { cacheDir: `${home}/cache` });
const server = await startMemaServer({ home, dbPath });
const rows: Record<string, unknown>[] = [];
const drains: Record<string, unknown>[] = [];
let offset = 0;
try {
  const pass = async (name: string, planned?: boolean) => {
    const queued = planned === undefined ? 0 : await queueBacklog(store, planned, offset);
    offset += chunks;
    const before = queuedMembers();
    const times: number[] = [];
    const started = performance.now();
    for (const query of questions) {
      times.push((await timedAsync(() => server.call("memory", "find", { query, limit: 10 }))).ms);
    }
    const seconds = (performance.now() - started) / 1000;
    const after = queuedMembers();
    const drained = before.planned + before.alone - after.planned - after.alone;
    clearChecks();
    const summary = summarize(times);
    rows.push({
      pass: name,
      queued,
      find_p50_ms: summary.p50,
      find_p95_ms: summary.p95,
      find_max_ms: summary.max,
      checked_per_s: Math.round(drained / seconds),
    });
    console.error(JSON.stringify(rows.at(-1)));
  };
  /** Members the server checks in `seconds` with no request in flight. */
  const drainAlone = async (name: string, planned: boolean, seconds: number) => {
    await queueBacklog(store, planned, offset);
    offset += chunks;
    const before = queuedMembers();
    // The server's own CPU time as well: on a loaded machine its wall rate carries the wait for
    // a core, its rate per CPU-second does not.
    const cpu0 = server.pid === undefined ? undefined : processCpuMs(server.pid);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const cpu1 = server.pid === undefined ? undefined : processCpuMs(server.pid);
    const after = queuedMembers();
    clearChecks();
    const drained = before.planned + before.alone - after.planned - after.alone;
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
    await pass(`drain ${round}: planned chunk jobs`, true);
    await pass(`drain ${round}: one job per memory`, false);
  }
  await drainAlone("planned chunk jobs", true, drainSeconds);
  await drainAlone("one job per memory", false, drainSeconds);
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
writeResult("drain_find", { machine: machineFacts(), rows, drains });
