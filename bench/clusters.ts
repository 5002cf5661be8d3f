/**
 * Topic clusters at scale (issue 39: `memory_review` clusters ≤ 5 s at 100k memories): builds
 * a LoCoMo-turn library of each size in process (`rememberMany`, one workspace), then times
 * the `clusters` view (k 6 and 20) `--reps` times each and prints the median and p95, with the
 * labels of the largest topics so their words can be judged.
 *
 * With `--static-model`, the built-in static model is set up and the rows embedded first, so the
 * view clusters on its vectors (`basis: vectors`).
 *
 *   deno run -A bench/clusters.ts [--sizes 1000,100000] [--reps 5] [--seed 7] [--static-model]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { rememberMany } from "../src/memory/remember_many.ts";
import { openStore } from "../src/store/mod.ts";
import { clustersView } from "../src/views/clusters.ts";
import { SemanticIndex } from "../src/evidence/semantic.ts";
import { ensureStaticModel, STATIC_MODEL_ID } from "./helpers/static_model.ts";
import { buildLocomoLibrary } from "./helpers/locomo_library.ts";
import {
  machineFacts,
  markdownTable,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";

async function measure(size: number, reps: number, seed: number, staticModel: boolean) {
  const library = buildLocomoLibrary({ size, extra: 0, seed });
  const dir = Deno.makeTempDirSync({ prefix: "mema-clusters-" });
  const store = await openStore(`${dir}/mema.sqlite3`, {
    cacheDir: `${dir}/cache`,
    skipVec: !staticModel,
  });
  const ctx: ServiceContext = {
    store,
    caller: { client: "bench", agentId: "bench" },
    settings: { workspaceIsolation: "none", includeSize: false },
    events: composeMemoryEvents(),
  };
  try {
    const all = library.memories.map((m) => ({ ...m, workspace: "locomo" }));
    for (let i = 0; i < size; i += 500) await rememberMany(ctx, all.slice(i, i + 500));
    if (staticModel) {
      await ensureStaticModel(`${dir}/models`);
      const semantic = new SemanticIndex(store, {
        modelId: STATIC_MODEL_ID,
        modelsDir: `${dir}/models`,
      });
      ctx.semantic = semantic;
      await semantic.embedPendingRows();
    }
    const rows: Record<string, unknown>[] = [];
    for (const k of [6, 20]) {
      const times: number[] = [];
      let labels: string[] = [];
      let clustered = 0;
      for (let rep = 0; rep < reps; rep++) {
        const { value, ms } = await timedAsync(() => clustersView(ctx, { k, workspace: "locomo" }));
        times.push(ms);
        labels = value.clusters.slice(0, 3).map((c) => `${c.label} (${c.size})`);
        clustered = value.clustered;
      }
      const summary = summarize(times);
      rows.push({
        memories: size,
        basis: staticModel ? "vectors" : "words",
        k,
        clustered,
        median_ms: summary.p50,
        p95_ms: summary.p95,
        largest_topics: labels.join("; "),
      });
    }
    return rows;
  } finally {
    await ctx.semantic?.unload();
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "1000,100000" },
    reps: { type: "string", default: "5" },
    seed: { type: "string", default: "7" },
    "static-model": { type: "boolean", default: false },
  },
});
const rows = [];
for (const size of values.sizes.split(",").map(Number)) {
  rows.push(
    ...await measure(size, Number(values.reps), Number(values.seed), values["static-model"]),
  );
}
console.log(markdownTable(rows));
console.log(`results: ${writeResult("clusters", { machine: machineFacts(), rows })}`);
