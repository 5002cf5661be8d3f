/**
 * Background drain rate: how fast a server works off the conflict checks (and, with the
 * static model, the embeddings) that a bulk import leaves behind, through MCP.
 *
 * The side-by-side benchmark's LoCoMo library (bench/helpers/locomo_library.ts) goes in with
 * `batch_remember` (500 per call); then the benchmark polls `status` every second until no
 * job is pending or running, with no other request in flight, and prints memories drained per
 * second for each size, lexical and with the static model.
 *
 *   deno run -A bench/drain.ts [--sizes 10000,100000] [--seed 7]
 *
 * Writes bench/results/drain.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { buildLocomoLibrary } from "./helpers/locomo_library.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import { ensureStaticModel, STATIC_MODEL_ID } from "./helpers/static_model.ts";
import { machineFacts, markdownTable, writeResult } from "./helpers/stats.ts";

const BATCH = 500;

async function openJobs(
  server: Awaited<ReturnType<typeof startMemaServer>>,
): Promise<number> {
  const status = await server.call("memory", "status", {});
  const jobs = (status.data?.jobs ?? {}) as Record<string, Record<string, number>>;
  return Object.values(jobs).reduce(
    (sum, byStatus) => sum + (byStatus.pending ?? 0) + (byStatus.running ?? 0),
    0,
  );
}

async function measure(
  size: number,
  seed: number,
  options: { hybrid: boolean; modelsDir: string },
): Promise<Record<string, unknown>> {
  const library = buildLocomoLibrary({ size, extra: 0, seed });
  const home = Deno.makeTempDirSync({ prefix: "mema-drain-" });
  const env: Record<string, string> = options.hybrid
    ? { MEMA_EMBEDDING_MODEL: STATIC_MODEL_ID, MEMA_MODELS_DIR: options.modelsDir }
    : {};
  const server = await startMemaServer({ home, dbPath: `${home}/drain.sqlite3`, env });
  try {
    const ingestStarted = performance.now();
    for (let i = 0; i < library.memories.length; i += BATCH) {
      await server.call("memory", "batch_remember", {
        items: library.memories.slice(i, i + BATCH).map((memory) => ({
          content: memory.content,
          subject: memory.subject,
          workspace: "locomo",
          tags: memory.tags,
          event_time: memory.eventTime,
        })),
      });
    }
    const ingestMs = performance.now() - ingestStarted;
    const backlog = await openJobs(server);
    const drainStarted = performance.now();
    while (await openJobs(server) > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const drainMs = performance.now() - drainStarted;
    return {
      size,
      model: options.hybrid ? STATIC_MODEL_ID : "none (lexical)",
      bulk_ingest_per_s: Math.round(size / ingestMs * 1000),
      jobs_open_after_ingest: backlog,
      drain_s: Number((drainMs / 1000).toFixed(1)),
      drained_memories_per_s: Math.round(size / drainMs * 1000),
    };
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "10000,100000" },
    seed: { type: "string", default: "7" },
  },
});
const modelsDir = Deno.makeTempDirSync({ prefix: "mema-drain-models-" });
await ensureStaticModel(modelsDir);
const rows: Record<string, unknown>[] = [];
for (const size of values.sizes!.split(",").map(Number)) {
  for (const hybrid of [false, true]) {
    const row = await measure(size, Number(values.seed), { hybrid, modelsDir });
    console.error(JSON.stringify(row));
    rows.push(row);
  }
}
Deno.removeSync(modelsDir, { recursive: true });
console.log(markdownTable(rows));
console.log(`wrote ${writeResult("drain", { machine: machineFacts(), rows })}`);
