/**
 * Team load (issue 33): one mema HTTP server on a SQLite file against four mema HTTP servers on
 * one PostgreSQL database, in one run on one machine. Both hold the same `--size` memories
 * (a LoCoMo-derived library, bench/helpers/locomo_library.ts, loaded through the bulk path of
 * `memory help`), then `--clients` concurrent MCP clients (streamable HTTP, all on the SQLite
 * server, or spread evenly over the PostgreSQL servers) call `find` (renamed LoCoMo questions,
 * limit 10), then `remember` (new memories of the same library), back to back for `--seconds`
 * per phase. The phases alternate between the backends for `--rounds` rounds, the first backend
 * changing each round, so both meet the same minutes of a machine whose speed drifts.
 *
 * Prints the machine, `find` and `remember` p50/p95, writes/s over all servers, the ratios
 * (PostgreSQL ÷ SQLite) and the issue's targets beside them: PostgreSQL `find` p95 ≤ 2× SQLite's,
 * `remember` p95 ≤ 30 ms, the four servers together ≥ 1,000 writes/s. `--recall` adds LoCoMo
 * dev R@10 on both backends (bench/locomo_recall.ts, once on a SQLite file and once with
 * `MEMA_DB_URL` of a fresh database). Writes bench/results/team_load.json. Never asserts.
 *
 *   deno task bench:team [--size 100000] [--clients 8] [--pg-servers 4] [--seconds 10]
 *     [--rounds 2] [--settle-s 900] [--recall] [--seed 7] [--label team_load] [--keep-db]
 *
 * PostgreSQL is a throwaway cluster the benchmark starts itself (Debian's `postgresql` package,
 * as the tests use: scripts/test_postgres.ts), with `fsync` on as in production, on a unix
 * socket; `MEMA_BENCH_PG_URL` names another server instead (its role must hold CREATEDB). The
 * clients run in this process, on the same machine as the servers and the database.
 * `--keep-db` leaves the PostgreSQL library in `MEMA_BENCH_PG_URL`'s server afterwards, for
 * `EXPLAIN` or `pg_stat_statements` (a throwaway cluster goes anyway).
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { serverBinDir, startCluster, type TestCluster } from "../scripts/test_postgres.ts";
import { createScratchDatabase, type ScratchDatabase } from "../src/store/postgres/scratch.ts";
import { buildLocomoLibrary, type LibraryMemory } from "./helpers/locomo_library.ts";
import { machineCpuMs, postmasterOf, processCpuMs, ProcessTreeCpu } from "./helpers/process_cpu.ts";
import { connectHttp, type HttpServer, startHttpServer } from "./helpers/mema_http.ts";
import {
  type BulkPath,
  detectBulkPath,
  memaRememberData,
  rememberInBulk,
  type VerbCall,
} from "./helpers/mema_loader.ts";
import {
  type LatencySummary,
  machineFacts,
  markdownTable,
  ROOT,
  summarize,
  writeResult,
} from "./helpers/stats.ts";

const WORKSPACE = "team";
const FIND_LIMIT = 10;
/** New memories built beyond the preload for the `remember` phases (reused with a suffix after). */
const REMEMBER_POOL = 20_000;
/** The targets (issue 33). */
const TARGET_FIND_P95_RATIO = 2;
const TARGET_REMEMBER_P95_MS = 30;
const TARGET_WRITES_PER_S = 1_000;

type Backend = "sqlite" | "postgresql";
type Operation = "find" | "remember";

interface Options {
  size: number;
  clients: number;
  pgServers: number;
  seconds: number;
  rounds: number;
  settleS: number;
  recall: boolean;
  seed: number;
  label: string;
  /** Leave the PostgreSQL library in place (with `MEMA_BENCH_PG_URL`), to look into it after. */
  keepDb: boolean;
}

/** One backend under load: its servers, and one client per simulated agent. */
interface Side {
  backend: Backend;
  servers: HttpServer[];
  clients: Client[];
  /** Index of the next memory of the remember pool this side stores. */
  nextRemember: number;
  latencies: Record<Operation, number[]>;
  /** Calls and seconds of the remember phases, for writes/s over all servers. */
  remembered: { calls: number; seconds: number };
  found: { calls: number; seconds: number };
  errors: Record<Operation, number>;
  preload?: { memories: number; seconds: number; per_s: number; active?: number };
  settle?: string;
  /** CPU milliseconds used during each operation's phases, by who used them. */
  cpu: Record<Operation, CpuTally>;
}

/** CPU milliseconds spent during the phases of one operation. */
interface CpuTally {
  /** Each mema server of the side. */
  servers: number[];
  /** The PostgreSQL cluster (postmaster and every backend). */
  postgres: number;
  /** This process: the benchmark's MCP clients. */
  client: number;
  /** The whole machine: busy, and busy plus idle (every core). */
  machineBusy: number;
  machineTotal: number;
}

/** Where the CPU readings come from: the PostgreSQL cluster, when it runs on this machine. */
let postgresCpu: ProcessTreeCpu | undefined;

function cpuReading(side: Side): CpuTally {
  const machine = machineCpuMs();
  return {
    servers: side.servers.map((server) => processCpuMs(server.child.pid)),
    postgres: postgresCpu?.read() ?? 0,
    client: processCpuMs(Deno.pid),
    machineBusy: machine.busy,
    machineTotal: machine.total,
  };
}

function addCpu(into: CpuTally, before: CpuTally, after: CpuTally): void {
  into.servers = after.servers.map((ms, i) => (into.servers[i] ?? 0) + ms - before.servers[i]);
  into.postgres += after.postgres - before.postgres;
  into.client += after.client - before.client;
  into.machineBusy += after.machineBusy - before.machineBusy;
  into.machineTotal += after.machineTotal - before.machineTotal;
}

/** CPU per call of one operation: each server's, PostgreSQL's, the clients', the machine's. */
function cpuPerCall(side: Side, operation: Operation): Record<string, unknown> {
  const tally = side.cpu[operation];
  const calls = operation === "find" ? side.found.calls : side.remembered.calls;
  const per = (ms: number) => Number((ms / Math.max(1, calls)).toFixed(2));
  return {
    calls,
    servers_ms: per(tally.servers.reduce((sum, ms) => sum + ms, 0)),
    each_server_ms: tally.servers.map(per),
    postgres_ms: per(tally.postgres),
    client_ms: per(tally.client),
    machine_busy_share: Number((tally.machineBusy / Math.max(1, tally.machineTotal)).toFixed(2)),
    machine_busy_ms: per(tally.machineBusy),
  };
}

function log(message: string): void {
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** `tools/call` of a verb tool on `client`, as the loader helpers want it. */
function verbCall(client: Client): VerbCall {
  return async (tool, verb, data) => {
    const result = await client.callTool({ name: tool, arguments: { action: verb, data } });
    // deno-lint-ignore no-explicit-any
    const envelope = result.structuredContent as any;
    if (!envelope?.ok) throw new Error(`${tool}.${verb} failed: ${JSON.stringify(envelope?.data)}`);
    return envelope;
  };
}

/** Open background jobs (pending or running) a server reports. */
async function openJobs(call: VerbCall): Promise<number> {
  const status = await call("memory", "status", {});
  const jobs = (status.data?.jobs ?? {}) as Record<string, Record<string, number>>;
  return Object.values(jobs).reduce(
    (sum, byStatus) => sum + (byStatus.pending ?? 0) + (byStatus.running ?? 0),
    0,
  );
}

/** Loads the library through the first server's bulk path, one call at a time. */
async function preload(side: Side, memories: readonly LibraryMemory[]): Promise<void> {
  const call = verbCall(side.clients[0]);
  const bulkPath: BulkPath | undefined = await detectBulkPath(call);
  if (bulkPath === undefined) throw new Error("this mema offers no bulk path to preload with");
  const started = performance.now();
  const step = Math.max(bulkPath.maxItems, Math.floor(memories.length / 10));
  for (let at = 0; at < memories.length; at += bulkPath.maxItems) {
    const slice = memories.slice(at, at + bulkPath.maxItems);
    await rememberInBulk(call, bulkPath, { memories: slice, workspace: WORKSPACE });
    if (Math.floor((at + slice.length) / step) > Math.floor(at / step)) {
      log(`${side.backend}: ${at + slice.length} / ${memories.length} preloaded`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const status = await call("memory", "status", {});
  side.preload = {
    memories: memories.length,
    seconds: Number(seconds.toFixed(1)),
    per_s: Math.round(memories.length / seconds),
    active: status.data?.memories?.active,
  };
  if (side.preload.active !== memories.length) {
    log(`${side.backend}: WARNING holds ${side.preload.active} active of ${memories.length}`);
  }
}

/** Waits (up to `seconds`) until the background jobs the preload queued are done. */
async function settle(side: Side, seconds: number): Promise<void> {
  const call = verbCall(side.clients[0]);
  const started = performance.now();
  for (;;) {
    const open = await openJobs(call);
    const waited = (performance.now() - started) / 1000;
    if (open === 0 || waited > seconds) {
      side.settle = open === 0
        ? `drained in ${waited.toFixed(1)} s`
        : `${open} jobs still open after ${waited.toFixed(0)} s`;
      log(`${side.backend}: jobs ${side.settle}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The arguments of one call: a question to find, or the side's next new memory. */
function argumentsFor(
  side: Side,
  operation: Operation,
  pool: { queries: string[]; extra: LibraryMemory[] },
  n: number,
): Record<string, unknown> {
  if (operation === "find") {
    return {
      action: "find",
      data: { query: pool.queries[n % pool.queries.length], limit: FIND_LIMIT },
    };
  }
  const index = side.nextRemember++;
  const memory = pool.extra[index % pool.extra.length];
  // Past the pool, the same turns again, made distinct (a repeat would be a duplicate).
  const again = index >= pool.extra.length
    ? ` (again ${Math.floor(index / pool.extra.length)})`
    : "";
  const data = memaRememberData(
    { ...memory, content: memory.content + again, subject: memory.subject + again },
    WORKSPACE,
  );
  return { action: "remember", data };
}

/** Every client of `side` calls `operation` back to back for `seconds`. */
async function measure(
  side: Side,
  operation: Operation,
  options: { seconds: number; pool: { queries: string[]; extra: LibraryMemory[] } },
): Promise<void> {
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  let calls = 0;
  let n = Math.floor(Math.random() * 1_000);
  const before = cpuReading(side);
  await Promise.all(side.clients.map(async (client) => {
    while (performance.now() < deadline) {
      const args = argumentsFor(side, operation, options.pool, n++);
      const t0 = performance.now();
      const result = await client.callTool({ name: "memory", arguments: args });
      side.latencies[operation].push(performance.now() - t0);
      calls++;
      // deno-lint-ignore no-explicit-any
      if (result.isError || !(result.structuredContent as any)?.ok) side.errors[operation]++;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  addCpu(side.cpu[operation], before, cpuReading(side));
  const tally = operation === "find" ? side.found : side.remembered;
  tally.calls += calls;
  tally.seconds += seconds;
  log(
    `${side.backend} ${operation}: ${calls} calls in ${seconds.toFixed(1)} s ` +
      `(${(calls / seconds).toFixed(0)}/s)`,
  );
}

/** `--recall`: LoCoMo dev R@10 through bench/locomo_recall.ts, on a file or on `dbUrl`. */
async function recallAt10(label: string, dbUrl?: string): Promise<number | undefined> {
  const args = ["run", "--allow-all", `${ROOT}/bench/locomo_recall.ts`, "--label", label];
  if (dbUrl) args.push("--env", `MEMA_DB_URL=${dbUrl}`);
  const output = await new Deno.Command(Deno.execPath(), { args, stdout: "null", stderr: "piped" })
    .output();
  if (!output.success) {
    log(
      `locomo_recall (${label}) failed: ${new TextDecoder().decode(output.stderr).slice(-2_000)}`,
    );
    return undefined;
  }
  const summary = JSON.parse(Deno.readTextFileSync(`${ROOT}/bench/results/locomo_${label}.json`));
  return (summary.table as { category: string; recall_at_10: number }[])
    .find((row) => row.category === "overall")?.recall_at_10;
}

function ratio(pg: number, sqlite: number): string {
  return Number.isFinite(pg / sqlite) ? `${(pg / sqlite).toFixed(2)}×` : "n/a";
}

function verdict(met: boolean): string {
  return met ? "met" : "MISSED";
}

function perSecond(tally: { calls: number; seconds: number }): number {
  return Math.round(tally.calls / Math.max(0.001, tally.seconds));
}

/** The figures beside the targets. */
function resultRows(
  sqlite: Side,
  pg: Side,
  stats: Record<Backend, Record<Operation, LatencySummary>>,
  recall: Record<Backend, number | undefined> | undefined,
): Record<string, unknown>[] {
  const s = stats.sqlite;
  const p = stats.postgresql;
  const pgWrites = perSecond(pg.remembered);
  const rows: Record<string, unknown>[] = [
    {
      figure: "find p50 ms",
      sqlite: s.find.p50,
      postgresql: p.find.p50,
      ratio: ratio(p.find.p50, s.find.p50),
      target: "",
      verdict: "",
    },
    {
      figure: "find p95 ms",
      sqlite: s.find.p95,
      postgresql: p.find.p95,
      ratio: ratio(p.find.p95, s.find.p95),
      target: `PG ≤ ${TARGET_FIND_P95_RATIO}× SQLite`,
      verdict: verdict(p.find.p95 <= TARGET_FIND_P95_RATIO * s.find.p95),
    },
    {
      figure: "finds/s (all servers)",
      sqlite: perSecond(sqlite.found),
      postgresql: perSecond(pg.found),
      ratio: ratio(perSecond(pg.found), perSecond(sqlite.found)),
      target: "",
      verdict: "",
    },
    {
      figure: "remember p50 ms",
      sqlite: s.remember.p50,
      postgresql: p.remember.p50,
      ratio: ratio(p.remember.p50, s.remember.p50),
      target: "",
      verdict: "",
    },
    {
      figure: "remember p95 ms",
      sqlite: s.remember.p95,
      postgresql: p.remember.p95,
      ratio: ratio(p.remember.p95, s.remember.p95),
      target: `PG ≤ ${TARGET_REMEMBER_P95_MS} ms`,
      verdict: verdict(p.remember.p95 <= TARGET_REMEMBER_P95_MS),
    },
    {
      figure: "writes/s (all servers)",
      sqlite: perSecond(sqlite.remembered),
      postgresql: pgWrites,
      ratio: ratio(pgWrites, perSecond(sqlite.remembered)),
      target: `PG ≥ ${TARGET_WRITES_PER_S}`,
      verdict: verdict(pgWrites >= TARGET_WRITES_PER_S),
    },
    {
      figure: "errors (find / remember)",
      sqlite: `${sqlite.errors.find} / ${sqlite.errors.remember}`,
      postgresql: `${pg.errors.find} / ${pg.errors.remember}`,
      ratio: "",
      target: "",
      verdict: "",
    },
    {
      figure: "preload memories/s (bulk)",
      sqlite: sqlite.preload?.per_s,
      postgresql: pg.preload?.per_s,
      ratio: ratio(pg.preload?.per_s ?? NaN, sqlite.preload?.per_s ?? NaN),
      target: "",
      verdict: "",
    },
  ];
  if (recall) {
    rows.push({
      figure: "LoCoMo dev R@10",
      sqlite: recall.sqlite,
      postgresql: recall.postgresql,
      ratio: "",
      target: "PG within 0.02",
      verdict: recall.sqlite === undefined || recall.postgresql === undefined
        ? "n/a"
        : verdict(Math.abs(recall.sqlite - recall.postgresql) <= 0.02),
    });
  }
  return rows;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      size: { type: "string", default: "100000" },
      clients: { type: "string", default: "8" },
      "pg-servers": { type: "string", default: "4" },
      seconds: { type: "string", default: "10" },
      rounds: { type: "string", default: "2" },
      "settle-s": { type: "string", default: "900" },
      recall: { type: "boolean", default: false },
      seed: { type: "string", default: "7" },
      label: { type: "string", default: "team_load" },
      "keep-db": { type: "boolean", default: false },
    },
  });
  const number = (name: keyof typeof values, min: number) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`--${name} wants an integer ≥ ${min}, got ${values[name]}`);
    }
    return value;
  };
  return {
    size: number("size", 1),
    clients: number("clients", 1),
    pgServers: number("pg-servers", 1),
    seconds: number("seconds", 1),
    rounds: number("rounds", 1),
    settleS: number("settle-s", 0),
    recall: values.recall,
    seed: number("seed", 0),
    label: values.label,
    keepDb: values["keep-db"],
  };
}

/** The PostgreSQL server to use: `MEMA_BENCH_PG_URL`, or a durable throwaway cluster. */
async function openDatabase(): Promise<{ url: string; cluster?: TestCluster }> {
  const given = Deno.env.get("MEMA_BENCH_PG_URL");
  if (given) return { url: given };
  const bin = serverBinDir();
  if (bin === undefined) {
    throw new Error("PostgreSQL not found: apt-get install postgresql, or set MEMA_BENCH_PG_URL");
  }
  const cluster = await startCluster(bin, { durable: true });
  log(`started a throwaway PostgreSQL cluster (${bin}, fsync on)`);
  return { url: cluster.url, cluster };
}

function newSide(backend: Backend): Side {
  return {
    backend,
    servers: [],
    clients: [],
    nextRemember: 0,
    latencies: { find: [], remember: [] },
    remembered: { calls: 0, seconds: 0 },
    found: { calls: 0, seconds: 0 },
    errors: { find: 0, remember: 0 },
    cpu: { find: emptyCpu(), remember: emptyCpu() },
  };
}

function emptyCpu(): CpuTally {
  return { servers: [], postgres: 0, client: 0, machineBusy: 0, machineTotal: 0 };
}

async function main(): Promise<void> {
  const options = parseOptions();
  log(`building a library of ${options.size} memories`);
  const library = buildLocomoLibrary({
    size: options.size,
    extra: REMEMBER_POOL,
    seed: options.seed,
  });
  const pool = { queries: library.queries, extra: library.extra };
  const dir = Deno.makeTempDirSync({ prefix: "mema-team-load-" });
  const { url, cluster } = await openDatabase();
  const scratches: ScratchDatabase[] = [];
  const sqlite = newSide("sqlite");
  const pg = newSide("postgresql");
  try {
    const scratch = await createScratchDatabase(url);
    if (options.keepDb && cluster === undefined) {
      log(`--keep-db: the library stays in database ${new URL(scratch.url).pathname.slice(1)}`);
    } else scratches.push(scratch);
    const socketDir = new URL(url).searchParams.get("host");
    const postmaster = socketDir ? postmasterOf(socketDir) : undefined;
    if (postmaster !== undefined) postgresCpu = new ProcessTreeCpu(postmaster);
    else log("PostgreSQL's processes not found on this machine: its CPU is not counted");
    sqlite.servers.push(await startHttpServer({ MEMA_DB_PATH: `${dir}/mema.sqlite3` }));
    for (let i = 0; i < options.pgServers; i++) {
      pg.servers.push(await startHttpServer({ MEMA_DB_URL: scratch.url }));
    }
    log(`servers up: 1 on SQLite, ${options.pgServers} on PostgreSQL`);
    for (const side of [sqlite, pg]) {
      for (let i = 0; i < options.clients; i++) {
        side.clients.push(await connectHttp(side.servers[i % side.servers.length].url));
      }
    }
    for (const side of [sqlite, pg]) await preload(side, library.memories);
    for (const side of [sqlite, pg]) await settle(side, options.settleS);
    // Warm-up on both (JIT, caches, connection pools); not counted.
    for (const side of [sqlite, pg]) {
      await measure(side, "find", { seconds: 2, pool });
      side.latencies.find = [];
      side.found = { calls: 0, seconds: 0 };
      side.cpu.find = emptyCpu();
    }
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? [sqlite, pg] : [pg, sqlite];
      for (const operation of ["find", "remember"] as const) {
        for (const side of order) {
          await measure(side, operation, { seconds: options.seconds, pool });
        }
      }
    }
    const stats = {
      sqlite: {
        find: summarize(sqlite.latencies.find),
        remember: summarize(sqlite.latencies.remember),
      },
      postgresql: {
        find: summarize(pg.latencies.find),
        remember: summarize(pg.latencies.remember),
      },
    };
    let recall: Record<Backend, number | undefined> | undefined;
    if (options.recall) {
      for (const side of [sqlite, pg]) {
        for (const client of side.clients) await client.close();
        side.clients = [];
      }
      log("LoCoMo dev R@10 on both backends (bench/locomo_recall.ts)");
      const recallDb = await createScratchDatabase(url);
      scratches.push(recallDb);
      recall = {
        sqlite: await recallAt10(`${options.label}_sqlite`),
        postgresql: await recallAt10(`${options.label}_postgresql`, recallDb.url),
      };
    }
    const machine = machineFacts();
    const rows = resultRows(sqlite, pg, stats, recall);
    console.log(
      `\nTeam load: ${options.size} memories; ${options.clients} clients on 1 SQLite server vs ` +
        `${options.pgServers} PostgreSQL servers; ${options.rounds} × ${options.seconds} s per ` +
        `phase and backend`,
    );
    console.log(`machine: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadavg_at_end}`);
    console.log(`settle: SQLite ${sqlite.settle}; PostgreSQL ${pg.settle}\n`);
    console.log(markdownTable(rows));
    const cpu = {
      sqlite: { find: cpuPerCall(sqlite, "find"), remember: cpuPerCall(sqlite, "remember") },
      postgresql: { find: cpuPerCall(pg, "find"), remember: cpuPerCall(pg, "remember") },
    };
    console.log(
      "\nCPU ms per call (servers summed; machine = every process, busy share of all cores)\n",
    );
    console.log(markdownTable(
      (["sqlite", "postgresql"] as const).flatMap((backend) =>
        (["find", "remember"] as const).map((operation) => {
          const { each_server_ms: _each, ...row } = cpu[backend][operation];
          return { backend, operation, ...row };
        })
      ),
    ));
    const path = writeResult(options.label, {
      benchmark: "team_load",
      options,
      postgresql: cluster ? "throwaway cluster (fsync on, unix socket)" : "MEMA_BENCH_PG_URL",
      machine,
      preload: { sqlite: sqlite.preload, postgresql: pg.preload },
      settle: { sqlite: sqlite.settle, postgresql: pg.settle },
      latency_ms: stats,
      rows,
      cpu_ms_per_call: cpu,
      recall_at_10: recall,
    });
    log(`wrote ${path}`);
  } finally {
    for (const side of [sqlite, pg]) {
      await Promise.all(side.clients.map((client) => client.close().catch(() => {})));
      await Promise.all(side.servers.map((server) => server.stop()));
    }
    for (const scratch of scratches) await scratch.drop().catch(() => {});
    await cluster?.stop();
    Deno.removeSync(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
