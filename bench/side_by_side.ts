/**
 * Side by side with a peer (issue 11): the same LoCoMo-derived library (chat turns replayed
 * with renamed speakers, bench/helpers/locomo_library.ts) is built through MCP stdio in mema
 * (lexical, and hybrid with the built-in static model) and in `@ai-devkit/memory` (an MCP
 * memory server on SQLite FTS5, bench/helpers/ai_devkit.ts), at each size, in one run on one
 * machine. Per size and server, each on a fresh database in a temporary directory, one server
 * after the other. With `--interleave`, sizes up to `--sequential-max` run the servers at the
 * same time, taking turns call by call (each memory of the build, each query, each `remember`
 * of the sample goes to every server, the first one rotating), so every server meets the same
 * minute of a machine whose speed drifts; the ratios then hold from run to run, while the
 * absolute figures of every server are lower (three processes alternate on the CPU caches).
 * Larger sizes always run one server at a time (a bulk build and its backlog would compete
 * with the other servers):
 *
 * - ingest: the library one `remember` / `memory_storeKnowledge` call at a time (memories/s).
 *   Above `--sequential-max` (default 10,000) the build takes a faster way, named in the
 *   output: mema's bulk path when the server offers one, otherwise `--concurrency` calls in
 *   flight at once (pipelined, default 8), for both servers. Hybrid then waits up to
 *   `--index-wait-s` for its vectors (the state is printed);
 * - `find` / `memory_searchKnowledge` p50/p95 over `--queries` renamed LoCoMo questions
 *   (limit 10; `--warmup` queries first, not counted), right after the build (mema's
 *   background jobs may still be running; their count is reported; `--drain` waits for them);
 * - R@10 at library scale: `--recall-questions` of the library's scored LoCoMo questions,
 *   renamed like their round, spread over the rounds stored; a question scores the share of
 *   its own round's evidence turns among the 10 results (subjects / titles name the turn);
 * - `remember` p50/p95 over `--remember-sample` new memories, one call at a time;
 * - `find` right after a `remember`, as an agent that stores a fact and then searches does:
 *   `--remember-sample` more new memories, each followed by one query the `find` phase did not
 *   ask (the `find` is timed; at 1k there are ~180 such questions, so a few repeat);
 * - at the largest size, pathological queries (`--pathological-reps` timed repetitions after
 *   one warm-up): 4,000 characters of library text, its first 500 characters (the peer's
 *   maximum query length), 100 distinct short words, and a Chinese query that matches nothing;
 * - disk bytes per memory: main file + WAL after the server exited and the WAL was
 *   checkpointed (bench/helpers/disk.ts);
 * - mema's bulk path, when `memory help` shows an action taking many facts in one call: the
 *   same library into a fresh lexical database, `n/a` otherwise.
 *
 *   deno task bench:side-by-side [--sizes 1000,10000,100000] [--queries 300] [--recall-questions 300] [--mema-env KEY=VALUE]
 *     [--remember-sample 200] [--systems mema_lexical,mema_hybrid,peer] [--drain] [--interleave] [--seed 7]
 *     [--sequential-max 10000] [--concurrency 8] [--pathological-reps 5] [--index-wait-s 900]
 *     [--models-dir DIR] [--peer-dir DIR] [--label side_by_side]
 *
 * Needs node and npm for the peer (installed once into $TMPDIR, see ai_devkit.ts). Prints one
 * Markdown table per size (ratios are mema ÷ peer: above 1 means mema takes longer or more
 * bytes; below 1 means fewer memories/s) and writes bench/results/side_by_side.json. Never
 * asserts timings.
 * @module
 */
import { parseArgs } from "node:util";
import {
  AI_DEVKIT_VERSION,
  defaultAiDevkitDir,
  ensureAiDevkit,
  startAiDevkitServer,
} from "./helpers/ai_devkit.ts";
import { sqliteBytesAfterCheckpoint } from "./helpers/disk.ts";
import {
  buildLocomoLibrary,
  type LibraryMemory,
  type LocomoLibrary,
} from "./helpers/locomo_library.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import {
  BULK_BATCH_DEFAULT,
  type BulkPath,
  detectBulkPath,
  memaRememberData as rememberData,
  rememberInBulk,
  runConcurrently,
} from "./helpers/mema_loader.ts";
import { seededRandom } from "../tests/helpers/random.ts";
import { ensureStaticModel, STATIC_MODEL_ID } from "./helpers/static_model.ts";
import {
  type LatencySummary,
  machineFacts,
  markdownTable,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";

/** The workspace (mema) and scope (peer) every memory goes into. */
const WORKSPACE = "locomo";
const PEER_SCOPE = `project:${WORKSPACE}`;
const FIND_LIMIT = 10;
/** A query in a script the library does not contain. */
const CJK_NO_MATCH = "量子纠缠的猫在月球上跳舞吗";
const SYSTEMS = ["mema_lexical", "mema_hybrid", "peer"] as const;
type SystemName = typeof SYSTEMS[number];
const LABEL: Record<SystemName, string> = {
  mema_lexical: "mema lexical",
  mema_hybrid: `mema hybrid (${STATIC_MODEL_ID})`,
  peer: `ai-devkit ${AI_DEVKIT_VERSION}`,
};

interface Options {
  queries: number;
  recallQuestions: number;
  /** Extra environment for every mema server (`--mema-env KEY=VALUE`, repeatable). */
  memaEnv: Record<string, string>;
  warmup: number;
  rememberSample: number;
  pathologicalReps: number;
  sequentialMax: number;
  concurrency: number;
  indexWaitS: number;
  drain: boolean;
  seed: number;
  modelsDir: string;
  peerDir: string;
  systems: SystemName[];
  /** Sizes built one call at a time run the servers together, taking turns call by call. */
  interleave: boolean;
}

/** One server under test, whatever its tools are called. */
interface Target {
  remember(memory: LibraryMemory): Promise<void>;
  /** Returns the titles (mema: subjects) of the results, best first. */
  find(query: string): Promise<string[]>;
  bulk?: (memories: LibraryMemory[]) => Promise<void>;
  bulkBatch?: number;
  /** Waits up to `timeoutMs` for the vector index (mema); returns its state. */
  ready(timeoutMs: number): Promise<string>;
  jobsOpen(): Promise<number | undefined>;
  /** Active memories the server reports (mema), to check the build stored everything. */
  countActive(): Promise<number | undefined>;
  waitForJobs(): Promise<string>;
  dbPath: string;
  peakRss(): number | undefined;
  /** What the server last wrote to stderr (mema), printed when a call fails. */
  stderrTail(): string;
  close(): Promise<void>;
}

/**
 * Recall at library scale: `count` of the library's scored LoCoMo questions (spread evenly
 * over the rounds stored), each asked once; a question scores the share of its evidence turns
 * (of its own round: the subject ends with "<conversation>-r<round> <dia id>") in the top 10.
 */
async function measureRecall(
  target: Target,
  library: LocomoLibrary,
  count: number,
): Promise<SystemResult["recall_at_10"]> {
  const step = Math.max(1, Math.floor(library.labelled.length / Math.max(1, count)));
  const sample = library.labelled.filter((_, i) => i % step === 0).slice(0, count);
  const sums = new Map<string, [number, number]>();
  let total = 0;
  for (const question of sample) {
    const titles = await target.find(question.question);
    const found = question.evidence.filter((ending) =>
      titles.some((title) =>
        title.endsWith(ending) || title.includes(`${ending} #`)
      )
    ).length / question.evidence.length;
    total += found;
    const sum = sums.get(question.category) ?? [0, 0];
    sums.set(question.category, [sum[0] + found, sum[1] + 1]);
  }
  const round = (x: number) => Number(x.toFixed(3));
  return {
    questions: sample.length,
    overall: round(total / Math.max(1, sample.length)),
    by_category: Object.fromEntries([...sums].map(([k, [sum, n]]) => [k, round(sum / n)])),
  };
}

interface PathologicalResult {
  chars: number;
  ms?: LatencySummary;
  rejected?: string;
}

interface SystemResult {
  system: SystemName;
  ingest: {
    mode: string;
    memories: number;
    seconds: number;
    per_s: number;
    /** Active memories the server reported afterwards (mema only). */
    stored_active?: number;
  };
  index_state: string;
  index_wait_s: number;
  jobs_open_at_measure?: number;
  drain?: string;
  find_ms: LatencySummary;
  find_results_mean: number;
  /** R@10 of renamed LoCoMo questions (evidence turns of their own round), by category. */
  recall_at_10: { questions: number; overall: number; by_category: Record<string, number> };
  remember_ms: LatencySummary;
  /** `find` timed right after a `remember` of a new memory. */
  find_after_remember_ms: LatencySummary;
  pathological?: Record<string, PathologicalResult>;
  disk: {
    memories: number;
    main_bytes: number;
    wal_bytes: number;
    bytes_per_memory: number;
    checkpointed: boolean;
  };
  server_peak_rss_mb?: number;
}

interface BulkResult {
  available: boolean;
  action?: string;
  batch?: number;
  memories?: number;
  seconds?: number;
  per_s?: number;
}

function log(message: string): void {
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

function mb(bytes: number | undefined): number | undefined {
  return bytes === undefined ? undefined : Number((bytes / 2 ** 20).toFixed(1));
}

function memaRememberData(memory: LibraryMemory): Record<string, unknown> {
  return rememberData(memory, WORKSPACE);
}

async function startMemaTarget(
  dir: string,
  env: Record<string, string>,
  withBulk: boolean,
): Promise<{ target: Target; bulkPath?: BulkPath }> {
  const dbPath = `${dir}/mema.sqlite3`;
  const server = await startMemaServer({ home: `${dir}/home`, dbPath, env, keepStderr: true });
  const bulkPath = withBulk ? await detectBulkPath(server.call) : undefined;
  const target: Target = {
    async remember(memory) {
      await server.call("memory", "remember", memaRememberData(memory));
    },
    async find(query) {
      const envelope = await server.call("memory", "find", { query, limit: FIND_LIMIT });
      return ((envelope.data?.results ?? []) as { subject?: string }[]).map((r) =>
        String(r.subject ?? "")
      );
    },
    ready: (timeoutMs) => server.waitForIndex(timeoutMs),
    async jobsOpen() {
      const status = await server.call("memory", "status", {});
      const jobs = (status.data?.jobs ?? {}) as Record<string, Record<string, number>>;
      return Object.values(jobs).reduce(
        (sum, byStatus) => sum + (byStatus.pending ?? 0) + (byStatus.running ?? 0),
        0,
      );
    },
    waitForJobs: () => server.waitForJobs(),
    async countActive() {
      const status = await server.call("memory", "status", {});
      return status.data?.memories?.active;
    },
    dbPath,
    peakRss: () => server.peakRss(),
    stderrTail: () => server.stderrTail(),
    close: () => server.close(),
  };
  if (bulkPath) {
    target.bulkBatch = bulkPath.maxItems;
    target.bulk = (memories) =>
      rememberInBulk(server.call, bulkPath, { memories, workspace: WORKSPACE });
  }
  return { target, bulkPath };
}

async function startPeerTarget(dir: string, peerDir: string): Promise<Target> {
  const peer = await startAiDevkitServer({ home: `${dir}/home`, installDir: peerDir });
  let checked = false;
  return {
    async remember(memory) {
      await peer.store({
        title: memory.subject,
        content: memory.content,
        tags: memory.tags,
        scope: PEER_SCOPE,
      });
      if (!checked) {
        // Its database must be the temporary one, never the user's ~/.ai-devkit/memory.db.
        Deno.statSync(peer.dbPath);
        checked = true;
      }
    },
    async find(query) {
      const found = await peer.search({ query, limit: FIND_LIMIT });
      return found.results.map((r) => r.title);
    },
    ready: () => Promise.resolve("n/a"),
    jobsOpen: () => Promise.resolve(undefined),
    waitForJobs: () => Promise.resolve("n/a"),
    countActive: () => Promise.resolve(undefined),
    dbPath: peer.dbPath,
    peakRss: () => peer.peakRss(),
    stderrTail: () => "",
    close: () => peer.close(),
  };
}

/** Builds `memories` into `target` the way `mode` says; returns the ingest figures. */
async function ingest(
  target: Target,
  memories: readonly LibraryMemory[],
  mode: "pipelined" | "bulk",
  concurrency: number,
  name: string,
): Promise<SystemResult["ingest"]> {
  const step = Math.max(1, Math.floor(memories.length / 10));
  let done = 0;
  const progress = (count: number) => {
    const before = done;
    done += count;
    if (Math.floor(done / step) > Math.floor(before / step)) {
      log(`${name}: ${done} / ${memories.length} stored`);
    }
  };
  const { ms } = await timedAsync(async () => {
    if (mode === "pipelined") {
      await runConcurrently(memories, concurrency, async (memory) => {
        await target.remember(memory);
        progress(1);
      });
    } else {
      const batch = target.bulkBatch ?? BULK_BATCH_DEFAULT;
      for (let start = 0; start < memories.length; start += batch) {
        const slice = memories.slice(start, start + batch);
        await target.bulk!(slice);
        progress(slice.length);
      }
    }
  });
  const label = mode === "pipelined"
    ? `pipelined, ${concurrency} calls in flight`
    : `bulk, ${target.bulkBatch ?? BULK_BATCH_DEFAULT} per call`;
  return {
    mode: label,
    memories: memories.length,
    seconds: Number((ms / 1000).toFixed(1)),
    per_s: Math.round(memories.length / (ms / 1000)),
  };
}

/** The pathological queries, built from the library. */
function pathologicalQueries(library: LocomoLibrary, seed: number): Record<string, string> {
  let text = "";
  for (const memory of library.memories) {
    if (text.length >= 4_000) break;
    text += (text ? " " : "") + memory.content;
  }
  const random = seededRandom(seed + 1);
  const short = library.vocabulary.filter((word) => word.length >= 3 && word.length <= 4);
  const pool = short.length >= 100 ? short : library.vocabulary;
  const words = new Set<string>();
  while (words.size < Math.min(100, pool.length)) {
    words.add(pool[Math.floor(random() * pool.length)]);
  }
  return {
    "4,000-character query": text.slice(0, 4_000),
    "500-character query": text.slice(0, 500),
    "100 distinct words": [...words].join(" "),
    "CJK, no match": CJK_NO_MATCH,
  };
}

async function measurePathological(
  target: Target,
  queries: Record<string, string>,
  reps: number,
): Promise<Record<string, PathologicalResult>> {
  const out: Record<string, PathologicalResult> = {};
  for (const [name, query] of Object.entries(queries)) {
    try {
      await target.find(query);
      const ms: number[] = [];
      for (let i = 0; i < reps; i++) ms.push((await timedAsync(() => target.find(query))).ms);
      out[name] = { chars: query.length, ms: summarize(ms) };
    } catch (error) {
      // The peer answers an over-long query with a validation error; keep its message.
      const text = String(error);
      const message = /"message":\s*"([^"]+)"/.exec(text)?.[1] ?? text;
      out[name] = { chars: query.length, rejected: message.slice(0, 200) };
    }
  }
  return out;
}

/** One server under test at one size. */
interface Run {
  system: SystemName;
  name: string;
  dir: string;
  target: Target;
  bulkPath?: BulkPath;
}

/** Starts one server on a fresh database in a temporary directory. */
async function startRun(system: SystemName, size: number, options: Options): Promise<Run> {
  const dir = Deno.makeTempDirSync({ prefix: `mema-sbs-${system}-${size}-` });
  const name = `${size} ${system}`;
  try {
    if (system === "peer") {
      return { system, name, dir, target: await startPeerTarget(dir, options.peerDir) };
    }
    const env: Record<string, string> = system === "mema_hybrid"
      ? {
        ...options.memaEnv,
        MEMA_EMBEDDING_MODEL: STATIC_MODEL_ID,
        MEMA_MODELS_DIR: options.modelsDir,
      }
      : { ...options.memaEnv };
    const { target, bulkPath } = await startMemaTarget(dir, env, true);
    return { system, name, dir, target, bulkPath };
  } catch (error) {
    Deno.removeSync(dir, { recursive: true });
    throw error;
  }
}

/** Stops the server, measures its database on disk and removes its directory. */
async function closeRun(run: Run, memories: number): Promise<SystemResult["disk"]> {
  try {
    await run.target.close();
    const disk = sqliteBytesAfterCheckpoint(run.target.dbPath);
    return {
      memories,
      main_bytes: disk.mainBytes,
      wal_bytes: disk.walBytes,
      bytes_per_memory: Math.round(disk.totalBytes / memories),
      checkpointed: disk.checkpointed,
    };
  } finally {
    Deno.removeSync(run.dir, { recursive: true });
  }
}

/** Checks that the server holds what it was given (mema reports its active memories). */
async function checkBuilt(run: Run, built: SystemResult["ingest"]): Promise<void> {
  built.stored_active = await run.target.countActive();
  log(`${run.name}: ingest ${built.per_s}/s (${built.mode}), active ${built.stored_active ?? "?"}`);
  if (built.stored_active !== undefined && built.stored_active !== built.memories) {
    log(`${run.name}: WARNING the server holds ${built.stored_active} of ${built.memories}`);
  }
}

/** What comes between the build and the measurements: the vector index, the backlog. */
async function settle(
  run: Run,
  options: Options,
): Promise<{ index: string; indexWaitS: number; drain?: string; jobsOpen?: number }> {
  const index = await timedAsync(() => run.target.ready(options.indexWaitS * 1000));
  let drain: string | undefined;
  if (options.drain) {
    const drained = await timedAsync(() => run.target.waitForJobs());
    drain = `${drained.value} in ${(drained.ms / 1000).toFixed(1)} s`;
    log(`${run.name}: jobs ${drain}`);
  }
  return {
    index: index.value,
    indexWaitS: Number((index.ms / 1000).toFixed(1)),
    drain,
    jobsOpen: await run.target.jobsOpen(),
  };
}

/** The servers in turn, starting one further on each time, so none is always first. */
function rotation<T>(items: readonly T[], turn: number): T[] {
  const at = turn % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}

/**
 * Times `call` on every run for each item, the runs taking turns item by item (with one run,
 * one after the other): interleaved, every server meets the same minute of the machine,
 * whose speed on a shared VM drifts by ±30–40%. Items before `skip` are not counted.
 */
async function timeInTurn<T>(
  runs: readonly Run[],
  items: readonly T[],
  call: (run: Run, item: T) => Promise<unknown>,
  options: { skip?: number; progress?: (done: number) => void } = {},
): Promise<Map<Run, { ms: number[]; values: unknown[] }>> {
  const out = new Map(runs.map((run) => [run, { ms: [] as number[], values: [] as unknown[] }]));
  for (const [i, item] of items.entries()) {
    for (const run of rotation(runs, i)) {
      const { value, ms } = await timedAsync(() => call(run, item));
      if (i < (options.skip ?? 0)) continue;
      out.get(run)!.ms.push(ms);
      out.get(run)!.values.push(value);
    }
    options.progress?.(i + 1);
  }
  return out;
}

/**
 * Builds and measures every system at one size, one server after the other. With
 * `--interleave`, up to `--sequential-max` (one call at a time) the servers run together and
 * take turns call by call through the build, the `find` calls and the `remember` sample; past
 * it each builds and is measured alone, so a bulk build and the backlog it leaves never share
 * the machine with another server's.
 */
async function runSize(
  size: number,
  library: LocomoLibrary,
  options: Options,
  pathological: Record<string, string> | undefined,
): Promise<{ results: Partial<Record<SystemName, SystemResult>>; bulkPath?: BulkPath }> {
  const sequential = size <= options.sequentialMax;
  const groups = sequential && options.interleave
    ? [options.systems]
    : options.systems.map((system) => [system]);
  const results: Partial<Record<SystemName, SystemResult>> = {};
  let bulkPath: BulkPath | undefined;
  for (const group of groups) {
    const runs: Run[] = [];
    try {
      for (const system of group) runs.push(await startRun(system, size, options));
      bulkPath ??= runs.find((run) => run.bulkPath)?.bulkPath;
      for (
        const [system, result] of await measureRuns(runs, size, library, options, pathological)
      ) {
        results[system] = result;
      }
    } catch (error) {
      for (const run of runs) {
        const tail = run.target.stderrTail();
        if (tail) console.error(`${run.name}: the server's last stderr lines:\n${tail}`);
      }
      throw error;
    } finally {
      // closeRun fills in the disk figures of results that got that far.
      const memories = library.memories.length + library.extra.length;
      for (const run of runs) {
        const disk = await closeRun(run, memories);
        const result = results[run.system];
        if (result) result.disk = disk;
      }
    }
  }
  return { results, bulkPath };
}

/** Builds and measures `runs` together (interleaved) and returns a result per system. */
async function measureRuns(
  runs: Run[],
  size: number,
  library: LocomoLibrary,
  options: Options,
  pathological: Record<string, string> | undefined,
): Promise<Map<SystemName, SystemResult>> {
  const built = new Map<Run, SystemResult["ingest"]>();
  const names = runs.map((run) => run.name).join(", ");
  if (size <= options.sequentialMax) {
    // One call at a time; with several runs they take turns memory by memory.
    const step = Math.max(1, Math.floor(library.memories.length / 10));
    const times = await timeInTurn(
      runs,
      library.memories,
      (run, memory) => run.target.remember(memory),
      {
        progress: (done) => {
          if (done % step === 0) log(`${names}: ${done} / ${library.memories.length} stored`);
        },
      },
    );
    for (const run of runs) {
      const ms = times.get(run)!.ms.reduce((sum, x) => sum + x, 0);
      built.set(run, {
        mode: "one call at a time",
        memories: library.memories.length,
        seconds: Number((ms / 1000).toFixed(1)),
        per_s: Math.round(library.memories.length / (ms / 1000)),
      });
    }
  } else {
    for (const run of runs) {
      const mode = run.target.bulk ? "bulk" : "pipelined";
      built.set(
        run,
        await ingest(run.target, library.memories, mode, options.concurrency, run.name),
      );
    }
  }
  for (const run of runs) await checkBuilt(run, built.get(run)!);
  const settled = new Map<Run, Awaited<ReturnType<typeof settle>>>();
  for (const run of runs) settled.set(run, await settle(run, options));
  const queries = library.queries.slice(0, options.warmup + options.queries);
  const finds = await timeInTurn(runs, queries, (run, query) => run.target.find(query), {
    skip: options.warmup,
  });
  log(`${names}: find done`);
  const recall = new Map<Run, SystemResult["recall_at_10"]>();
  for (const run of runs) {
    recall.set(run, await measureRecall(run.target, library, options.recallQuestions));
  }
  const sample = library.extra.length / 2;
  const remembers = await timeInTurn(
    runs,
    library.extra.slice(0, sample),
    (run, memory) => run.target.remember(memory),
  );
  log(`${names}: remember done`);
  // Questions the `find` phase did not ask (repeated from the start when there are too few).
  const unasked = library.queries.slice(queries.length);
  const fresh = unasked.length > 0 ? unasked : queries;
  const pairs = library.extra.slice(sample).map((memory, i) => ({
    memory,
    query: fresh[i % fresh.length],
  }));
  const afterRemember = await timeInTurn(runs, pairs, async (run, { memory, query }) => {
    await run.target.remember(memory);
    return (await timedAsync(() => run.target.find(query))).ms;
  });
  log(`${names}: find after remember done`);
  const out = new Map<SystemName, SystemResult>();
  for (const run of runs) {
    const found = finds.get(run)!;
    const results = found.values.reduce<number>(
      (sum, value) => sum + (value as string[]).length,
      0,
    );
    const state = settled.get(run)!;
    out.set(run.system, {
      system: run.system,
      ingest: built.get(run)!,
      index_state: state.index,
      index_wait_s: state.indexWaitS,
      jobs_open_at_measure: state.jobsOpen,
      drain: state.drain,
      find_ms: summarize(found.ms),
      find_results_mean: Number((results / Math.max(1, found.ms.length)).toFixed(2)),
      recall_at_10: recall.get(run)!,
      remember_ms: summarize(remembers.get(run)!.ms),
      find_after_remember_ms: summarize(afterRemember.get(run)!.values as number[]),
      pathological: pathological
        ? await measurePathological(run.target, pathological, options.pathologicalReps)
        : undefined,
      disk: { memories: 0, main_bytes: 0, wal_bytes: 0, bytes_per_memory: 0, checkpointed: false },
      server_peak_rss_mb: mb(run.target.peakRss()),
    });
  }
  return out;
}

/** mema's bulk path on a fresh lexical database (when the server has one). */
async function runBulk(
  size: number,
  library: LocomoLibrary,
  memaEnv: Record<string, string>,
): Promise<BulkResult> {
  const dir = Deno.makeTempDirSync({ prefix: `mema-sbs-bulk-${size}-` });
  try {
    const { target, bulkPath } = await startMemaTarget(dir, { ...memaEnv }, true);
    try {
      if (!bulkPath) return { available: false };
      const built = await ingest(target, library.memories, "bulk", 1, `${size} mema bulk`);
      return {
        available: true,
        action: `${bulkPath.action}.${bulkPath.field}`,
        batch: bulkPath.maxItems,
        memories: built.memories,
        seconds: built.seconds,
        per_s: built.per_s,
      };
    } finally {
      await target.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

// ---- the report ----

function pair(summary: LatencySummary | undefined): string {
  return summary ? `${summary.p50} / ${summary.p95}` : "—";
}

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) {
    return "—";
  }
  const value = a / b;
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(value >= 1 ? 1 : 2)}×`;
}

function pairRatio(a: LatencySummary | undefined, b: LatencySummary | undefined): string {
  if (!a || !b) return "—";
  return `${ratio(a.p50, b.p50)} / ${ratio(a.p95, b.p95)}`;
}

type SizeResult = {
  size: number;
  library: { memories: number; extra: number; content_chars_mean: number; queries: number };
  systems: Partial<Record<SystemName, SystemResult>>;
  bulk: BulkResult;
};

function sizeTable(r: SizeResult): string {
  const lex = r.systems.mema_lexical;
  const hyb = r.systems.mema_hybrid;
  const peer = r.systems.peer;
  const rows: Record<string, string>[] = [];
  const row = (
    metric: string,
    cell: (s: SystemResult | undefined) => string,
    ratios: (s: SystemResult | undefined) => string,
  ) =>
    rows.push({
      metric,
      "mema lexical": cell(lex),
      [`mema hybrid`]: cell(hyb),
      [LABEL.peer]: cell(peer),
      "lexical ÷ peer": ratios(lex),
      "hybrid ÷ peer": ratios(hyb),
    });
  const none = () => "—";
  row(
    "ingest, memories/s",
    (s) => s ? `${s.ingest.per_s} (${s.ingest.mode})` : "—",
    (s) => ratio(s?.ingest.per_s, peer?.ingest.per_s),
  );
  row(
    "remember p50 / p95 ms",
    (s) => pair(s?.remember_ms),
    (s) => pairRatio(s?.remember_ms, peer?.remember_ms),
  );
  row("find p50 / p95 ms", (s) => pair(s?.find_ms), (s) => pairRatio(s?.find_ms, peer?.find_ms));
  row(
    "find right after a remember p50 / p95 ms",
    (s) => pair(s?.find_after_remember_ms),
    (s) => pairRatio(s?.find_after_remember_ms, peer?.find_after_remember_ms),
  );
  row("find results per query", (s) => s ? String(s.find_results_mean) : "—", none);
  row(
    `R@10, ${(lex ?? hyb ?? peer)?.recall_at_10.questions ?? 0} renamed LoCoMo questions`,
    (s) => s ? s.recall_at_10.overall.toFixed(3) : "—",
    (s) => ratio(s?.recall_at_10.overall, peer?.recall_at_10.overall),
  );
  row(
    "disk bytes per memory",
    (s) => s ? `${s.disk.bytes_per_memory}${s.disk.checkpointed ? "" : " (no checkpoint)"}` : "—",
    (s) => ratio(s?.disk.bytes_per_memory, peer?.disk.bytes_per_memory),
  );
  row(
    "server peak RSS MB",
    (s) => s?.server_peak_rss_mb?.toString() ?? "—",
    (s) => ratio(s?.server_peak_rss_mb, peer?.server_peak_rss_mb),
  );
  rows.push({
    metric: "bulk ingest, memories/s",
    "mema lexical": r.bulk.available
      ? `${r.bulk.per_s} (${r.bulk.action}, ${r.bulk.batch} per call)`
      : "n/a",
    "mema hybrid": hyb?.ingest.mode.startsWith("bulk") ? `${hyb.ingest.per_s}` : "—",
    [LABEL.peer]: "n/a (no bulk tool)",
    "lexical ÷ peer": "—",
    "hybrid ÷ peer": "—",
  });
  row(
    "mema jobs open when measured",
    (s) => s?.jobs_open_at_measure?.toString() ?? (s ? "n/a" : "—"),
    none,
  );
  row("vector index", (s) => {
    if (!s || s.index_state === "n/a") return s ? "n/a" : "—";
    return `${s.index_state} (waited ${s.index_wait_s} s)`;
  }, none);
  const names = Object.keys(lex?.pathological ?? hyb?.pathological ?? peer?.pathological ?? {});
  for (const name of names) {
    const cell = (s: SystemResult | undefined) => {
      const p = s?.pathological?.[name];
      if (!p) return "—";
      return p.rejected ? `rejected (${p.rejected})` : pair(p.ms);
    };
    row(
      `${name} p50 / p95 ms`,
      cell,
      (s) => pairRatio(s?.pathological?.[name]?.ms, peer?.pathological?.[name]?.ms),
    );
  }
  return markdownTable(rows);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "1000,10000,100000" },
      queries: { type: "string", default: "300" },
      "recall-questions": { type: "string", default: "300" },
      "mema-env": { type: "string", multiple: true, default: [] },
      warmup: { type: "string", default: "20" },
      "remember-sample": { type: "string", default: "200" },
      "pathological-reps": { type: "string", default: "5" },
      "sequential-max": { type: "string", default: "10000" },
      concurrency: { type: "string", default: "8" },
      "index-wait-s": { type: "string", default: "900" },
      systems: { type: "string", default: SYSTEMS.join(",") },
      drain: { type: "boolean", default: false },
      interleave: { type: "boolean", default: false },
      seed: { type: "string", default: "7" },
      "models-dir": { type: "string" },
      "peer-dir": { type: "string" },
      label: { type: "string", default: "side_by_side" },
    },
    strict: true,
  });
  const systems = values.systems.split(",").map((s) => s.trim()) as SystemName[];
  for (const system of systems) {
    if (!SYSTEMS.includes(system)) throw new Error(`unknown system ${system}: ${SYSTEMS}`);
  }
  const modelsDir = values["models-dir"] ?? Deno.makeTempDirSync({ prefix: "mema-sbs-models-" });
  const options: Options = {
    queries: Number(values.queries),
    recallQuestions: Number(values["recall-questions"]),
    memaEnv: Object.fromEntries(
      (values["mema-env"] as string[]).map((pair) => {
        const at = pair.indexOf("=");
        if (at <= 0) throw new Error(`--mema-env takes KEY=VALUE (got "${pair}")`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    ),
    warmup: Number(values.warmup),
    rememberSample: Number(values["remember-sample"]),
    pathologicalReps: Number(values["pathological-reps"]),
    sequentialMax: Number(values["sequential-max"]),
    concurrency: Number(values.concurrency),
    indexWaitS: Number(values["index-wait-s"]),
    drain: values.drain,
    interleave: values.interleave,
    seed: Number(values.seed),
    modelsDir,
    peerDir: values["peer-dir"] ?? defaultAiDevkitDir(),
    systems,
  };
  const sizes = values.sizes.split(",").map(Number);
  const largest = Math.max(...sizes);
  if (systems.includes("mema_hybrid")) await ensureStaticModel(modelsDir);
  if (systems.includes("peer")) await ensureAiDevkit(options.peerDir);
  const results: SizeResult[] = [];
  try {
    for (const size of sizes) {
      const library = buildLocomoLibrary({
        size,
        // The remember sample, then as many remembered each before a `find`.
        extra: 2 * options.rememberSample,
        seed: options.seed,
      });
      const pathological = size === largest
        ? pathologicalQueries(library, options.seed)
        : undefined;
      log(
        `size ${size}: ${library.memories.length} memories (+${library.extra.length}), ` +
          `${library.queries.length} queries, mean ${library.contentCharsMean} chars`,
      );
      const sizeResult: SizeResult = {
        size,
        library: {
          memories: library.memories.length,
          extra: library.extra.length,
          content_chars_mean: library.contentCharsMean,
          queries: Math.min(options.queries, library.queries.length - options.warmup),
        },
        systems: {},
        bulk: { available: false },
      };
      const { results: measured, bulkPath: bulkSeen } = await runSize(
        size,
        library,
        options,
        pathological,
      );
      sizeResult.systems = measured;
      const lexical = sizeResult.systems.mema_lexical;
      if (lexical?.ingest.mode.startsWith("bulk")) {
        sizeResult.bulk = {
          available: true,
          action: bulkSeen ? `${bulkSeen.action}.${bulkSeen.field}` : undefined,
          batch: bulkSeen?.maxItems,
          memories: lexical.ingest.memories,
          seconds: lexical.ingest.seconds,
          per_s: lexical.ingest.per_s,
        };
      } else if (systems.some((s) => s !== "peer")) {
        sizeResult.bulk = await runBulk(size, library, options.memaEnv);
      }
      results.push(sizeResult);
      console.log(
        `\n### ${size.toLocaleString("en-US")} memories (LoCoMo turns, renamed speakers; ` +
          `${sizeResult.library.content_chars_mean} characters mean; through MCP stdio)\n`,
      );
      console.log(sizeTable(sizeResult));
    }
  } finally {
    if (!values["models-dir"]) Deno.removeSync(modelsDir, { recursive: true });
  }
  const machine = machineFacts();
  console.log(
    `\nratios are mema ÷ ai-devkit: above 1 = mema slower / bigger, below 1 for memories/s = ` +
      `mema slower. find limit ${FIND_LIMIT}; ${options.queries} queries after ${options.warmup} ` +
      `warm-up; remember sample ${options.rememberSample}; pathological queries at ` +
      `${largest.toLocaleString("en-US")} (${options.pathologicalReps} reps after one warm-up).`,
  );
  console.log(`machine: ${JSON.stringify(machine)}`);
  const { modelsDir: _m, peerDir: _p, ...reported } = options;
  const path = writeResult(values.label, {
    machine,
    peer: `@ai-devkit/memory@${AI_DEVKIT_VERSION}`,
    options: reported,
    results,
  });
  console.log(`wrote ${path}`);
}

if (import.meta.main) await main();
