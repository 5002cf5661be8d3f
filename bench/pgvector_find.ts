/**
 * Hybrid `find` through MCP with pgvector's HNSW index against the in-process vector copy (issue
 * 33), on one LoCoMo library of `--size` memories with the static model: one mema server on PGlite
 * with pgvector (scripts/pglite_server.ts), one on a throwaway native PostgreSQL cluster without it
 * (scripts/test_postgres.ts; skipped when Debian's server is not installed). Prints find p50/p95
 * (ms, warm: a first pass of the questions is not counted), the preload's and the embedding's
 * time, and each server's peak RSS.
 *
 * PGlite is PostgreSQL compiled to WebAssembly, one backend, every connection taking turns: its
 * figures are not a native server's, and the copy path cannot run on it (a `find` reads the copy's
 * changes on a second connection while its snapshot holds the one session), hence the native
 * cluster for that side. Compare the two sides' shapes, not their absolute speeds. The finds wait
 * for every vector, and for the background conflict checks a minute at most.
 *
 *   deno run -A bench/pgvector_find.ts [--size 10000] [--queries 100]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { spawnPgliteServer } from "../scripts/pglite_server.ts";
import { serverBinDir, startCluster } from "../scripts/test_postgres.ts";
import { createScratchDatabase } from "../src/store/postgres/scratch.ts";
import { buildLocomoLibrary } from "./helpers/locomo_library.ts";
import { detectBulkPath, rememberInBulk } from "./helpers/mema_loader.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import { machineFacts, markdownTable, summarize, writeResult } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    size: { type: "string", default: "10000" },
    queries: { type: "string", default: "100" },
  },
});
const SIZE = Number(values.size);
const QUERIES = Number(values.queries);

function log(message: string): void {
  console.error(`[pgvector_find] ${message}`);
}

/** One side's figures. */
async function measure(label: string, url: string): Promise<Record<string, unknown>> {
  const home = await Deno.makeTempDir({ prefix: "mema-pgvector-bench-" });
  const library = buildLocomoLibrary({ size: SIZE, extra: 0, seed: 7 });
  const server = await startMemaServer({
    home,
    dbPath: `${home}/unused.sqlite3`,
    env: {
      MEMA_DB_URL: url,
      MEMA_EMBEDDING_MODEL: "static-wink-100d",
      MEMA_MODELS_DIR: `${home}/models`,
    },
    keepStderr: true,
  });
  try {
    const bulk = await detectBulkPath(server.call);
    if (bulk === undefined) throw new Error("this mema offers no bulk path");
    const loadStarted = performance.now();
    for (let at = 0; at < library.memories.length; at += bulk.maxItems) {
      const memories = library.memories.slice(at, at + bulk.maxItems);
      await rememberInBulk(server.call, bulk, { memories, workspace: "bench" });
    }
    const loadS = (performance.now() - loadStarted) / 1000;
    log(`${label}: ${SIZE} memories in ${loadS.toFixed(0)} s; embedding`);
    const embedStarted = performance.now();
    await server.waitForIndex();
    for (;;) {
      const { data } = await server.call("memory", "status", {});
      if (data.evidence.coverage === 1 && !data.jobs.embed_rows) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const embedS = (performance.now() - embedStarted) / 1000;
    // Conflict checks run long on PostgreSQL (docs/POSTGRES.md): a minute at most, then the
    // finds run beside what is left of them, on both sides alike (`open_jobs` says how many).
    await server.waitForJobs(60_000);
    const status = await server.call("memory", "status", {});
    const openJobs = Object.values(status.data.jobs as Record<string, Record<string, number>>)
      .reduce((sum, byStatus) => sum + (byStatus.pending ?? 0) + (byStatus.running ?? 0), 0);
    const questions = library.queries.slice(0, QUERIES);
    const ms: number[] = [];
    for (const pass of [0, 1]) {
      for (const query of questions) {
        const started = performance.now();
        const found = await server.call("memory", "find", { query, limit: 10 });
        if (pass === 1) ms.push(performance.now() - started);
        if (found.mode !== "hybrid") throw new Error(`${label}: find answered ${found.mode}`);
      }
    }
    const find = summarize(ms);
    return {
      side: label,
      vector_path: status.data.backend.vector_path,
      memories: status.data.memories.active,
      evidence_rows: status.data.evidence.rows,
      preload_s: Number(loadS.toFixed(1)),
      embed_s: Number(embedS.toFixed(1)),
      open_jobs: openJobs,
      find_p50_ms: Number(find.p50.toFixed(1)),
      find_p95_ms: Number(find.p95.toFixed(1)),
      server_peak_rss_mb: Math.round((server.peakRss() ?? 0) / 1e6),
    };
  } catch (error) {
    log(`${label} failed; server said: ${server.stderrTail()}`);
    throw error;
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

const rows: Record<string, unknown>[] = [];
const pglite = await spawnPgliteServer();
try {
  rows.push(await measure("PGlite (WASM) + pgvector HNSW", pglite.url));
} finally {
  await pglite.stop();
}
const bin = serverBinDir();
if (bin === undefined) {
  log("no native PostgreSQL installed: the copy side is skipped");
} else {
  const cluster = await startCluster(bin);
  try {
    const scratch = await createScratchDatabase(cluster.url);
    try {
      rows.push(await measure("native PostgreSQL, in-process copy", scratch.url));
    } finally {
      await scratch.drop();
    }
  } finally {
    await cluster.stop();
  }
}
console.log(markdownTable(rows));
const path = writeResult("pgvector_find", {
  size: SIZE,
  queries: QUERIES,
  machine: machineFacts(),
  rows,
});
log(`written to ${path}`);
