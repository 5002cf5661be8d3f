/**
 * Scale benchmark: 1k, 10k and 100k generated memories (seeded; English facts and Markdown
 * notes, Chinese facts and notes, mixed ones). Per size, in its own process (so peak RSS is
 * per size):
 *
 * - bulk ingest through `rememberInTransaction` (the body of `rememberMemory`, the real write
 *   path) in transactions of 1,000 (one fsync per batch instead of per memory), then
 *   `rememberMemory` p50/p95 one call per transaction, as an agent's write is;
 * - `rebuild_evidence` throughput (rows/s) with the built-in static model
 *   (`static-wink-100d`): `SemanticIndex.rebuild` batches of 500 (the MCP maximum) until
 *   complete, which is also how the vectors get there;
 * - `find` p50/p95 in-process through `findMemories`: lexical, and hybrid with a
 *   precomputed query vector (query embedding timed separately), plus the KNN alone;
 * - the same through MCP on a sample (a real `mema serve` on the same file, model
 *   configured): `find` (embedding included) and `remember`;
 * - database size (main file + WAL) and peak RSS of the benchmark process and the server.
 *
 *   deno run -A bench/scale.ts [--sizes 1000,10000,100000] [--queries 300] [--seed 7] [--drain]
 *
 * `--drain` measures the MCP sample a second time once the server's background job queue
 * (conflict detection and embedding of what the bulk ingest stored) is empty, so request cost
 * and queueing behind background work are reported apart.
 *
 * Prints a table and writes bench/results/scale.json. Never asserts timings.
 * @module
 */
import { parseArgs } from "node:util";
import { SemanticIndex } from "../src/evidence/semantic.ts";
import type { ServiceContext } from "../src/core/context.ts";
import {
  type RememberInput,
  rememberInTransaction,
  rememberMemory,
} from "../src/memory/remember.ts";
import { VECTOR_K_ROWS } from "../src/recall/constants.ts";
import { findMemories } from "../src/recall/find.ts";
import { openStore } from "../src/store/mod.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import { type GeneratedNote, NoteGenerator } from "./helpers/notes.ts";
import { ensureStaticModel, STATIC_MODEL_ID as MODEL_ID } from "./helpers/static_model.ts";
import {
  fileBytes,
  machineFacts,
  markdownTable,
  peakRssBytes,
  ROOT,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";

const INGEST_BATCH = 1_000;
const REBUILD_BATCH = 500;
const WARMUP_QUERIES = 20;

interface SizeOptions {
  size: number;
  queries: number;
  rememberSample: number;
  mcpSample: number;
  /** Also measure MCP once the background job queue is empty. */
  drain: boolean;
  seed: number;
  modelsDir: string;
}

function toInput(note: GeneratedNote): RememberInput {
  return {
    subject: note.subject,
    content: note.content,
    workspace: note.workspace,
    tags: note.tags,
    eventTime: note.eventTime,
    sourceType: "agent_generated",
  };
}

/** `find` then `remember` timings through MCP (warm-up queries not counted). */
async function mcpSample(
  server: Awaited<ReturnType<typeof startMemaServer>>,
  queries: readonly string[],
  notes: NoteGenerator,
  size: number,
): Promise<{ findMs: number[]; rememberMs: number[] }> {
  const findMs: number[] = [];
  const rememberMs: number[] = [];
  for (const [index, query] of queries.slice(0, size + WARMUP_QUERIES).entries()) {
    const { ms } = await timedAsync(() => server.call("memory", "find", { query, limit: 10 }));
    if (index >= WARMUP_QUERIES) findMs.push(ms);
  }
  for (let i = 0; i < size; i++) {
    const note = notes.next();
    const { ms } = await timedAsync(() =>
      server.call("memory", "remember", {
        subject: note.subject,
        content: note.content,
        workspace: note.workspace,
        tags: note.tags,
        event_time: note.eventTime,
      })
    );
    rememberMs.push(ms);
  }
  return { findMs, rememberMs };
}

/** Runs one size in this process and returns its measurements. */
async function runSize(options: SizeOptions): Promise<Record<string, unknown>> {
  const dir = Deno.makeTempDirSync({ prefix: `mema-scale-${options.size}-` });
  const dbPath = `${dir}/mema.sqlite3`;
  const log = (message: string) => console.error(`[${options.size}] ${message}`);
  try {
    const store = await openStore(dbPath, { cacheDir: `${dir}/cache` });
    const semantic = new SemanticIndex(store, { modelId: MODEL_ID, modelsDir: options.modelsDir });
    const ctx: ServiceContext = {
      store,
      semantic,
      caller: { client: "bench", agentId: "scale" },
      settings: { workspaceIsolation: "none", includeSize: true },
      events: composeMemoryEvents(),
    };
    const notes = new NoteGenerator(options.seed);
    const bulk = options.size - options.rememberSample;
    const kept: GeneratedNote[] = [];
    const keepEvery = Math.max(1, Math.floor(options.size / (options.queries * 2)));
    let contentChars = 0;
    const ingest = await timedAsync(async () => {
      for (let done = 0; done < bulk; done += INGEST_BATCH) {
        await store.write(async () => {
          for (let i = done; i < Math.min(bulk, done + INGEST_BATCH); i++) {
            const note = notes.next();
            contentChars += note.content.length;
            if (i % keepEvery === 0) kept.push(note);
            await rememberInTransaction(ctx, toInput(note));
          }
        });
      }
    });
    log(`ingested ${bulk} in ${(ingest.ms / 1000).toFixed(1)} s`);
    const rememberMs: number[] = [];
    for (let i = 0; i < options.rememberSample; i++) {
      const note = notes.next();
      contentChars += note.content.length;
      rememberMs.push((await timedAsync(() => rememberMemory(ctx, toInput(note)))).ms);
    }

    const modelLoad = await timedAsync(() => semantic.embedQuery("warm up the model"));
    let rebuildCalls = 0;
    let rowsEmbedded = 0;
    const rebuild = await timedAsync(async () => {
      for (;;) {
        const report = await semantic.rebuild({ dryRun: false, batchSize: REBUILD_BATCH });
        rebuildCalls++;
        rowsEmbedded += report.embeddedNow;
        if (report.complete) return report;
        if (report.embeddedNow === 0 && report.memoriesMissingRows === 0) return report;
      }
    });
    const evidence = await store.countEvidence(await store.getMeta("embedding_space"));
    log(
      `rebuild_evidence: ${rowsEmbedded} rows in ${
        (rebuild.ms / 1000).toFixed(1)
      } s (${rebuildCalls} calls), state ${(await semantic.describe()).state}`,
    );

    const queries = kept.slice(0, options.queries + WARMUP_QUERIES).map((note) =>
      notes.queryFor(note)
    );
    const embedMs: number[] = [];
    const vectors: Float32Array[] = [];
    for (const query of queries) {
      const { value, ms } = await timedAsync(() => semantic.embedQuery(query));
      embedMs.push(ms);
      vectors.push(value ?? new Float32Array(100));
    }
    const floor = semantic.similarityFloor;
    const lexicalMs: number[] = [];
    const hybridMs: number[] = [];
    const knnMs: number[] = [];
    let lexicalResults = 0;
    let hybridResults = 0;
    for (const [index, query] of queries.entries()) {
      const lexical = await timedAsync(async () => await findMemories(ctx, { query, limit: 10 }));
      const hybrid = await timedAsync(async () =>
        await findMemories(ctx, {
          query,
          limit: 10,
          queryVector: vectors[index],
          similarityFloor: floor,
        })
      );
      const knn = await timedAsync(async () =>
        await store.read(async () => await store.nearestRows(vectors[index], VECTOR_K_ROWS))
      );
      if (index < WARMUP_QUERIES) continue;
      lexicalMs.push(lexical.ms);
      hybridMs.push(hybrid.ms);
      knnMs.push(knn.ms);
      lexicalResults += lexical.value.items.length;
      hybridResults += hybrid.value.items.length;
    }
    log(`find: ${queries.length} queries`);
    store.close();
    const dbBytes = fileBytes(dbPath);
    const walBytes = fileBytes(`${dbPath}-wal`);
    const benchPeakRss = peakRssBytes();

    // What an agent sees: a real server on the same file, the static model configured.
    const home = `${dir}/home`;
    const server = await startMemaServer({
      home,
      dbPath,
      env: { MEMA_EMBEDDING_MODEL: MODEL_ID, MEMA_MODELS_DIR: options.modelsDir },
    });
    let mcp: Record<string, unknown>;
    try {
      const indexState = await server.waitForIndex();
      // First while the server still works through the jobs the bulk ingest queued (what a
      // freshly imported library feels like), then, with --drain, once the queue is empty.
      const busy = await mcpSample(server, queries, notes, options.mcpSample);
      let quiet: Record<string, unknown> | undefined;
      if (options.drain) {
        const drained = await timedAsync(() => server.waitForJobs());
        log(`job backlog drained in ${(drained.ms / 1000).toFixed(1)} s (${drained.value})`);
        const sample = await mcpSample(server, queries, notes, options.mcpSample);
        quiet = {
          drain_s: Number((drained.ms / 1000).toFixed(1)),
          drained: drained.value,
          find_ms: summarize(sample.findMs),
          remember_ms: summarize(sample.rememberMs),
        };
      }
      mcp = {
        index_state: indexState,
        find_ms: summarize(busy.findMs),
        remember_ms: summarize(busy.rememberMs),
        quiet,
        server_peak_rss_mb: Number(((server.peakRss() ?? NaN) / 2 ** 20).toFixed(1)),
      };
    } finally {
      await server.close();
    }
    log("mcp sample done");

    return {
      size: options.size,
      content_chars_mean: Math.round(contentChars / options.size),
      ingest_per_s: Math.round(bulk / (ingest.ms / 1000)),
      remember_ms: summarize(rememberMs),
      model_load_ms: Math.round(modelLoad.ms),
      rebuild_evidence: {
        rows: evidence.rows,
        embedded: evidence.embedded,
        rows_embedded_now: rowsEmbedded,
        calls: rebuildCalls,
        seconds: Number((rebuild.ms / 1000).toFixed(1)),
        rows_per_s: Math.round(rowsEmbedded / (rebuild.ms / 1000)),
      },
      query_embed_ms: summarize(embedMs.slice(WARMUP_QUERIES)),
      find_lexical_ms: summarize(lexicalMs),
      find_hybrid_ms: summarize(hybridMs),
      knn_ms: summarize(knnMs),
      results_per_query: {
        lexical: Number((lexicalResults / Math.max(1, lexicalMs.length)).toFixed(2)),
        hybrid: Number((hybridResults / Math.max(1, hybridMs.length)).toFixed(2)),
      },
      db_mb: Number((dbBytes / 2 ** 20).toFixed(1)),
      wal_mb: Number((walBytes / 2 ** 20).toFixed(1)),
      bench_peak_rss_mb: Number(((benchPeakRss ?? NaN) / 2 ** 20).toFixed(1)),
      mcp,
    };
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "1000,10000,100000" },
      queries: { type: "string", default: "300" },
      "remember-sample": { type: "string", default: "300" },
      "mcp-sample": { type: "string", default: "100" },
      drain: { type: "boolean", default: false },
      seed: { type: "string", default: "7" },
      "models-dir": { type: "string" },
      child: { type: "string" },
      label: { type: "string", default: "scale" },
    },
    strict: true,
  });
  const modelsDir = values["models-dir"] ??
    Deno.makeTempDirSync({ prefix: "mema-scale-models-" });
  const common = {
    queries: Number(values.queries),
    rememberSample: Number(values["remember-sample"]),
    mcpSample: Number(values["mcp-sample"]),
    drain: values.drain,
    seed: Number(values.seed),
    modelsDir,
  };
  if (values.child) {
    const result = await runSize({ ...common, size: Number(values.child) });
    console.log(JSON.stringify(result));
    return;
  }
  await ensureStaticModel(modelsDir);
  const results: Record<string, unknown>[] = [];
  for (const size of values.sizes.split(",").map(Number)) {
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--quiet",
        `${ROOT}/bench/scale.ts`,
        "--child",
        String(size),
        "--queries",
        values.queries,
        "--remember-sample",
        values["remember-sample"],
        "--mcp-sample",
        values["mcp-sample"],
        "--seed",
        values.seed,
        "--models-dir",
        modelsDir,
        ...(values.drain ? ["--drain"] : []),
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const lines = new TextDecoder().decode(child.stdout).trim().split("\n");
    if (!child.success) throw new Error(`size ${size} failed (exit ${child.code})`);
    results.push(JSON.parse(lines[lines.length - 1]));
  }
  // deno-lint-ignore no-explicit-any
  const row = (r: any) => ({
    memories: r.size,
    "remember p50/p95 ms": `${r.remember_ms.p50} / ${r.remember_ms.p95}`,
    "find lexical p50/p95": `${r.find_lexical_ms.p50} / ${r.find_lexical_ms.p95}`,
    "find hybrid p50/p95": `${r.find_hybrid_ms.p50} / ${r.find_hybrid_ms.p95}`,
    "knn p50/p95": `${r.knn_ms.p50} / ${r.knn_ms.p95}`,
    "embed query p50": r.query_embed_ms.p50,
    "rebuild rows/s": r.rebuild_evidence.rows_per_s,
    "db+wal MB": Number((r.db_mb + r.wal_mb).toFixed(1)),
    "peak RSS MB": r.bench_peak_rss_mb,
  });
  // deno-lint-ignore no-explicit-any
  const mcpRow = (r: any) => ({
    memories: r.size,
    "MCP find p50/p95 ms": `${r.mcp.find_ms.p50} / ${r.mcp.find_ms.p95}`,
    "MCP remember p50/p95 ms": `${r.mcp.remember_ms.p50} / ${r.mcp.remember_ms.p95}`,
    "after drain: find / remember p50/p95 ms": r.mcp.quiet
      ? `${r.mcp.quiet.find_ms.p50} / ${r.mcp.quiet.find_ms.p95}; ${r.mcp.quiet.remember_ms.p50} / ${r.mcp.quiet.remember_ms.p95} (drained in ${r.mcp.quiet.drain_s} s)`
      : "not measured (--drain)",
    "server peak RSS MB": r.mcp.server_peak_rss_mb,
    "ingest/s (batched)": r.ingest_per_s,
    "evidence rows": r.rebuild_evidence.rows,
  });
  console.log(`\nmema scale benchmark (${MODEL_ID} for hybrid; in-process service calls)`);
  console.log(markdownTable(results.map(row)));
  console.log("\nthrough MCP (a real `mema serve`, model configured, embedding included)");
  console.log(markdownTable(results.map(mcpRow)));
  const path = writeResult(values.label, { machine: machineFacts(), ...common, results });
  console.log(`\nwrote ${path}`);
  if (!values["models-dir"]) Deno.removeSync(modelsDir, { recursive: true });
}

if (import.meta.main) await main();
