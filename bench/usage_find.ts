/**
 * What the usage nudge costs `find` (issue 39), in one process so on and off see the same
 * machine: builds a LoCoMo-turn library (`--size`, default 100k), then asks `--queries` renamed
 * LoCoMo questions twice each, alternating the nudge on and off query by query (uses recorded
 * by a ledger as `serve` does, flushed in the background), and prints p50/p95 of each with
 * their ratio.
 *
 *   deno run -A bench/usage_find.ts [--size 100000] [--queries 300] [--seed 7]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { rememberMany } from "../src/memory/remember_many.ts";
import { findMemories } from "../src/recall/find.ts";
import { USAGE_RANKING_DEFAULT, UsageLedger } from "../src/recall/usage.ts";
import { openStore } from "../src/store/mod.ts";
import { buildLocomoLibrary } from "./helpers/locomo_library.ts";
import {
  machineFacts,
  markdownTable,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    size: { type: "string", default: "100000" },
    queries: { type: "string", default: "300" },
    seed: { type: "string", default: "7" },
  },
});
const size = Number(values.size);
const library = buildLocomoLibrary({ size, extra: 0, seed: Number(values.seed) });
const dir = Deno.makeTempDirSync({ prefix: "mema-usage-find-" });
const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
const usage = new UsageLedger(store);
const ctx: ServiceContext = {
  store,
  usage,
  caller: { client: "bench", agentId: "bench" },
  settings: { workspaceIsolation: "none", includeSize: false },
  events: composeMemoryEvents(),
};
try {
  const all = library.memories.map((m) => ({ ...m, workspace: "locomo" }));
  for (let i = 0; i < size; i += 500) await rememberMany(ctx, all.slice(i, i + 500));
  const queries = library.queries.slice(0, Number(values.queries));
  const times = { on: [] as number[], off: [] as number[] };
  for (const query of queries.slice(0, 20)) await findMemories(ctx, { query, limit: 10 });
  for (const [index, query] of queries.entries()) {
    // Alternate which goes first, so neither always finds the other's warm cache.
    const order = index % 2 === 0 ? ["on", "off"] as const : ["off", "on"] as const;
    for (const mode of order) {
      ctx.settings.usageRanking = { ...USAGE_RANKING_DEFAULT, enabled: mode === "on" };
      times[mode].push((await timedAsync(() => findMemories(ctx, { query, limit: 10 }))).ms);
    }
  }
  await usage.close();
  const on = summarize(times.on);
  const off = summarize(times.off);
  const rows = [
    { nudge: "on", p50_ms: on.p50, p95_ms: on.p95, mean_ms: on.mean },
    { nudge: "off", p50_ms: off.p50, p95_ms: off.p95, mean_ms: off.mean },
    {
      nudge: "on ÷ off",
      p50_ms: Math.round((on.p50 / off.p50) * 100) / 100,
      p95_ms: Math.round((on.p95 / off.p95) * 100) / 100,
      mean_ms: Math.round((on.mean / off.mean) * 100) / 100,
    },
  ];
  console.log(`${size} memories, ${queries.length} queries each way (in process, lexical)`);
  console.log(markdownTable(rows));
  const stored = await store.accessStats(library.memories.map((_, i) => i + 1).slice(0, 2000));
  console.log(`memories with stored uses among the first 2,000: ${stored.size}`);
  console.log(`results: ${writeResult("usage_find", { machine: machineFacts(), size, rows })}`);
} finally {
  store.close();
  Deno.removeSync(dir, { recursive: true });
}
