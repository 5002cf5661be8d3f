/**
 * `find` while a bulk import's conflict checks drain, against `find` idle, through MCP in one
 * run (issue 38: p95 during the drain ≤ 1.5× idle). A real `mema serve` on an existing library
 * (e.g. the 1M one `bench/million.ts --keep` leaves; it is changed: run it on a copy) answers
 * LoCoMo questions four times: once to warm up, once with no background work (idle), once while
 * the checks of an import are queued as planned chunk jobs (`detect_conflicts_batch`, what `mema
 * import` queues now), and once while the same memories are queued one job each
 * (`detect_conflicts`, what it queued before). The backlogs are written by this process into
 * the same database, as a concurrent `mema import` would; the server's worker picks them up.
 *
 *   deno run -A bench/drain_find.ts --db PATH [--queries 200] [--chunks 40]
 *
 * Prints p50/p95/max per pass, the ratio of each drain pass's p95 to idle, how many members
 * the server checked during each pass, and how fast it drained the rest once the pass ended (no
 * requests; the planned count is estimated from jobs × 500, continuations hold fewer). Writes bench/results/drain_find.json. Never asserts.
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
  },
});
if (!values.db) throw new Error("--db PATH (a copy of a library: the checks write to it)");
const dbPath = values.db;
const questions = loadLocomo(LOCOMO_DEV).flatMap((conversation) =>
  scoredQuestions(conversation).map((entry) => entry.question.question)
).slice(0, Number(values.queries));
const chunks = Number(values.chunks);

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
      `SELECT coalesce(sum(json_array_length(payload, '$.members')), 0) AS n FROM jobs
       WHERE kind = ? AND ${open}`,
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

const home = Deno.makeTempDirSync({ prefix: "mema-drain-find-" });
const store = await openStore(dbPath, { cacheDir: `${home}/cache` });
const server = await startMemaServer({ home, dbPath });
const rows: Record<string, unknown>[] = [];
try {
  const pass = async (name: string, backlog?: { planned: boolean; offset: number }) => {
    const queued = backlog ? await queueBacklog(store, backlog.planned, backlog.offset) : 0;
    const before = queuedMembers();
    const times: number[] = [];
    const started = performance.now();
    for (const query of questions) {
      times.push((await timedAsync(() => server.call("memory", "find", { query, limit: 10 }))).ms);
    }
    const seconds = (performance.now() - started) / 1000;
    const after = queuedMembers();
    const drained = backlog
      ? (backlog.planned ? before.planned - after.planned : before.alone - after.alone)
      : 0;
    const summary = summarize(times);
    rows.push({
      pass: name,
      queued,
      find_p50_ms: summary.p50,
      find_p95_ms: summary.p95,
      find_max_ms: summary.max,
      checked_during_pass: drained,
      checked_per_s: Math.round(drained / seconds),
    });
    console.error(JSON.stringify(rows.at(-1)));
  };
  /** Waits for the backlog to drain (so the next pass sees only its own), and says how fast. */
  const drainRest = async (name: string) => {
    const started = performance.now();
    const first = queuedMembers();
    let left = first;
    while (left.planned + left.alone > 0) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      left = queuedMembers();
    }
    const seconds = (performance.now() - started) / 1000;
    const row = rows.find((entry) => entry.pass === name)!;
    row.rest_drained_per_s = Math.round((first.planned + first.alone) / seconds);
  };
  await pass("warm-up");
  console.error(`jobs after warm-up: ${JSON.stringify(await store.read(() => store.countJobs()))}`);
  await pass("idle");
  await pass("drain: planned chunk jobs", { planned: true, offset: 0 });
  await drainRest("drain: planned chunk jobs");
  await pass("drain: one job per memory", { planned: false, offset: chunks });
  await drainRest("drain: one job per memory");
} finally {
  await server.close();
  store.close();
  Deno.removeSync(home, { recursive: true });
}
const idle = rows.find((row) => row.pass === "idle")!.find_p95_ms as number;
for (const row of rows) row.p95_vs_idle = Number(((row.find_p95_ms as number) / idle).toFixed(2));
console.log(markdownTable(rows));
console.log(`load average ${Deno.loadavg().join(" ")}`);
writeResult("drain_find", { machine: machineFacts(), rows });
