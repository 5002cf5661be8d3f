/**
 * Hybrid recall on a large library with the built-in static model (issue 38: at 1M, hybrid
 * `find` p95 ≤ 80 ms and the vector copy ≤ 150 MB). Takes a library a user already has (e.g.
 * one `bench/million.ts --keep` imported) and, on it:
 *
 * 1. embeds every evidence row with the static model in process, as the serve's background
 *    job does (`SemanticIndex.embedPendingRows`, batches committed one by one): rows/s;
 * 2. loads the process's vector copy (the first lookup) and times nearest-row lookups for the
 *    LoCoMo questions: load time, the copy's bytes, RSS, lookup p50/p95;
 * 3. starts a real `mema serve` with the static model and asks the same questions through MCP
 *    right after it starts (cold: the copy loads in the background meanwhile, and the answers
 *    given before it completes say so), then, once the copy is complete, again (warm): `find`
 *    p50/p95/max, the first find's time, how many answers came while the copy loaded and when
 *    it was complete, the answers' modes, server peak RSS.
 *
 *   deno run -A bench/million_hybrid.ts --db PATH [--queries 200] [--skip-embed]
 *     [--skip-in-process] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes the server's CPU profile there (`python3 /work/wt/prof/top.py` or
 * Chrome's DevTools read it); `--skip-in-process` goes straight to the server.
 *
 * Besides wall times it reports the server's CPU time a find (Linux), which on a shared machine
 * says more than the wall time; it includes whatever background jobs the server ran meanwhile.
 *
 * The library at PATH is changed (vectors are written into it): give it a copy.
 * Never asserts timings.
 * @module
 */
import { parseArgs } from "node:util";
import { SemanticIndex } from "../src/evidence/semantic.ts";
import { openStore } from "../src/store/mod.ts";
import { loadLocomo, LOCOMO_DEV, scoredQuestions } from "./helpers/locomo.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import { ensureStaticModel, STATIC_MODEL_ID } from "./helpers/static_model.ts";
import { machineFacts, summarize, timedAsync } from "./helpers/stats.ts";

function questions(count: number): string[] {
  return loadLocomo(LOCOMO_DEV).flatMap((conversation) =>
    scoredQuestions(conversation).map((entry) => entry.question.question)
  ).slice(0, count);
}

const log = (message: string) =>
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);

async function embedInProcess(dbPath: string, modelsDir: string, skip: boolean) {
  const store = await openStore(dbPath, { cacheDir: `${modelsDir}/../cache` });
  const semantic = new SemanticIndex(store, { modelId: STATIC_MODEL_ID, modelsDir });
  try {
    let embedded = 0;
    let seconds = 0;
    if (!skip) {
      await semantic.switchToConfiguredSpace();
      const start = performance.now();
      for (;;) {
        const done = await semantic.embedPendingRows(50_000);
        if (done === 0) break;
        embedded += done;
        seconds = (performance.now() - start) / 1000;
        log(`embedded ${embedded} rows, ${Math.round(embedded / seconds)} rows/s`);
      }
    }
    const asked = questions(200);
    const vectors: Float32Array[] = [];
    for (const query of asked) {
      const vector = await semantic.embedQuery(query);
      if (vector) vectors.push(vector);
    }
    const rssBefore = Deno.memoryUsage().rss;
    const load = await timedAsync(() => store.nearestRows(vectors[0], 100));
    const size = await store.vectorMirrorSize();
    const rssAdded = (Deno.memoryUsage().rss - rssBefore) / 1e6;
    const lookups: number[] = [];
    for (const vector of vectors) {
      lookups.push((await timedAsync(() => store.nearestRows(vector, 100))).ms);
    }
    const summary = summarize(lookups);
    return {
      rows_embedded: embedded,
      embed_s: Math.round(seconds),
      embed_rows_per_s: seconds > 0 ? Math.round(embedded / seconds) : undefined,
      copy_vectors: size.vectors,
      copy_mb: Number((size.bytes / 1e6).toFixed(1)),
      copy_load_ms: Math.round(load.ms),
      copy_rss_added_mb: Math.round(rssAdded),
      lookup_p50_ms: summary.p50,
      lookup_p95_ms: summary.p95,
    };
  } finally {
    await semantic.unload();
    store.close();
  }
}

/** CPU milliseconds process `pid` has used (Linux), or NaN. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function findThroughMcp(
  dbPath: string,
  home: string,
  options: { modelsDir: string; count: number; cpuProfDir?: string },
) {
  const asked = questions(options.count);
  const started = await timedAsync(() =>
    startMemaServer({
      home,
      dbPath,
      env: { MEMA_EMBEDDING_MODEL: STATIC_MODEL_ID, MEMA_MODELS_DIR: options.modelsDir },
      denoFlags: options.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`] : [],
    })
  );
  const server = started.value;
  const startedAt = performance.now() - started.ms;
  try {
    const modes = new Map<string, number>();
    const cpu: number[] = [];
    // Answers given while the vector copy was still loading in the background, and when the
    // first one came that no longer said so (ms after the server was started).
    let partial = 0;
    let completeAt: number | undefined;
    let firstFindMs: number | undefined;
    const pass = async () => {
      const cpuStart = cpuMsOf(server.pid);
      const times: number[] = [];
      for (const query of asked) {
        const timed = await timedAsync(() => server.call("memory", "find", { query, limit: 10 }));
        times.push(timed.ms);
        firstFindMs ??= timed.ms;
        const mode = String(timed.value?.mode ?? "?");
        modes.set(mode, (modes.get(mode) ?? 0) + 1);
        if (loading(timed.value?.warnings)) partial++;
        else completeAt ??= performance.now() - startedAt;
      }
      cpu.push((cpuMsOf(server.pid) - cpuStart) / asked.length);
      return times;
    };
    const loading = (warnings: string[] = []) =>
      warnings.some((w) => w.startsWith("semantic recall is starting"));
    const cold = summarize(await pass());
    // The warm pass measures a server whose copy is complete: wait for it (status answers say).
    while (completeAt === undefined && performance.now() - startedAt < 600_000) {
      const status = await server.call("memory", "status", {});
      if (!loading(status.warnings)) completeAt = performance.now() - startedAt;
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const warm = summarize(await pass());
    return {
      initialize_ms: Math.round(started.ms),
      first_find_ms: Math.round(firstFindMs ?? 0),
      finds_while_copy_loading: partial,
      copy_complete_after_start_ms: completeAt === undefined ? undefined : Math.round(completeAt),
      find_cold_p50_ms: cold.p50,
      find_cold_p95_ms: cold.p95,
      find_cold_max_ms: cold.max,
      find_warm_p50_ms: warm.p50,
      find_warm_p95_ms: warm.p95,
      // The server's CPU a find (its background jobs included), steadier than wall time here.
      server_cpu_ms_per_find_cold: Number(cpu[0].toFixed(1)),
      server_cpu_ms_per_find_warm: Number(cpu[1].toFixed(1)),
      modes: Object.fromEntries(modes),
      server_rss_mb: Math.round((server.peakRss() ?? 0) / 1024 / 1024),
    };
  } finally {
    await server.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      db: { type: "string" },
      queries: { type: "string", default: "200" },
      "skip-embed": { type: "boolean", default: false },
      "skip-in-process": { type: "boolean", default: false },
      "cpu-prof": { type: "string" },
    },
  });
  if (!values.db) throw new Error("--db PATH: a copy of a library (it gets vectors written)");
  const home = Deno.makeTempDirSync({ prefix: "mema-million-hybrid-" });
  const modelsDir = `${home}/models`;
  await ensureStaticModel(modelsDir);
  log(`load average ${Deno.loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  const inProcess = values["skip-in-process"]
    ? undefined
    : await embedInProcess(values.db, modelsDir, values["skip-embed"]);
  if (inProcess) log(JSON.stringify(inProcess));
  log(`load average ${Deno.loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  const mcp = await findThroughMcp(values.db, home, {
    modelsDir,
    count: Number(values.queries),
    cpuProfDir: values["cpu-prof"],
  });
  log(JSON.stringify(mcp));
  log(`load average ${Deno.loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  console.log(JSON.stringify({ machine: machineFacts(), inProcess, mcp }, null, 2));
  Deno.removeSync(home, { recursive: true });
}
