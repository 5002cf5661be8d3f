/**
 * Where a `find` spends its time on an existing library: every store method `findMemories`
 * calls is timed (summed per method over the questions), and the wall time per query printed
 * as p50/p95. In process, no server; run on a copy of a library built by bench/million.ts
 * (`--keep`), or with `--db-url` on a PostgreSQL database (`mema copy` one there), where the
 * statements one `find` sends (its round trips) are counted too, and `--statements` lists them.
 * `--questions FILE` asks the questions of a JSON array instead of LoCoMo dev's.
 *
 *   deno run -A bench/find_profile.ts --db /path/mema.sqlite3 [--queries 200] [--passes 2]
 *   deno run -A bench/find_profile.ts --db-url postgres://… [--statements]
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import type { ServiceContext } from "../src/core/context.ts";
import { findMemories } from "../src/recall/find.ts";
import { openStore, type Store } from "../src/store/mod.ts";
import { openPostgresAsStore } from "../src/store/postgres/app_store.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import { loadLocomo, LOCOMO_DEV, scoredQuestions } from "./helpers/locomo.ts";
import { summarize } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    db: { type: "string" },
    "db-url": { type: "string" },
    questions: { type: "string" },
    statements: { type: "boolean", default: false },
    queries: { type: "string", default: "200" },
    passes: { type: "string", default: "2" },
  },
});
if (!values.db && !values["db-url"]) throw new Error("--db or --db-url is required");
const opened = performance.now();
/** The statements sent since the counter was last read (PostgreSQL only). */
let sent: string[] = [];
const store: Store = values["db-url"]
  ? await openPostgresAsStore(values["db-url"], { onQuery: (query) => sent.push(query) })
  : await openStore(values.db!, { cacheDir: `${values.db}.cache`, skipVec: true });
console.log(`open: ${(performance.now() - opened).toFixed(0)} ms`);
const spent = new Map<string, { ms: number; cpuMs: number; calls: number }>();
const timed = store as unknown as Record<string, unknown>;
for (const [name, method] of Object.entries(timed)) {
  if (["read", "write", "withinUnit", "close"].includes(name) || typeof method !== "function") {
    continue;
  }
  timed[name] = async (...args: unknown[]) => {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    try {
      return await (method as (...a: unknown[]) => unknown)(...args);
    } finally {
      const cpu = process.cpuUsage(cpuBefore);
      const entry = spent.get(name) ?? { ms: 0, cpuMs: 0, calls: 0 };
      entry.ms += performance.now() - started;
      entry.cpuMs += (cpu.user + cpu.system) / 1000;
      entry.calls++;
      spent.set(name, entry);
    }
  };
}
const ctx: ServiceContext = {
  store,
  caller: { client: "bench", agentId: "find-profile" },
  settings: { workspaceIsolation: "none", includeSize: false },
  events: composeMemoryEvents(),
};
const asked =
  (values.questions
    ? JSON.parse(Deno.readTextFileSync(values.questions)) as string[]
    : loadLocomo(LOCOMO_DEV).flatMap((conversation) =>
      scoredQuestions(conversation).map((entry) => entry.question.question)
    )).slice(0, Number(values.queries));
for (let pass = 0; pass < Number(values.passes); pass++) {
  spent.clear();
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const trips: number[] = [];
  for (const [n, query] of asked.entries()) {
    sent = [];
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await findMemories(ctx, { query, limit: 10 });
    const cpu = process.cpuUsage(cpuBefore);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    times.push(performance.now() - started);
    trips.push(sent.length);
    if (values.statements && pass === 0 && n === 0) {
      console.log(`statements of one find ("${query}"):`);
      for (const text of sent) console.log(`  ${text.replace(/\s+/g, " ").slice(0, 110)}`);
    }
  }
  const summary = summarize(times);
  const cpu = summarize(cpuTimes);
  console.log(
    `pass ${pass + 1}: p50 ${summary.p50} ms, p95 ${summary.p95} ms, max ${summary.max}; ` +
      `CPU p50 ${cpu.p50} ms, p95 ${cpu.p95} ms (wall minus CPU is waiting: disk, or a core)`,
  );
  if (values["db-url"]) {
    const roundTrips = summarize(trips);
    console.log(`  statements per find: p50 ${roundTrips.p50}, max ${roundTrips.max}`);
  }
  const rows = [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12);
  for (const [name, { ms, cpuMs, calls }] of rows) {
    console.log(
      `  ${name.padEnd(28)} ${(ms / asked.length).toFixed(2)} ms/query, CPU ${
        (cpuMs / asked.length).toFixed(2)
      } ms (${calls} calls)`,
    );
  }
}
await store.close();
