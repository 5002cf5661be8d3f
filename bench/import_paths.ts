/**
 * An import's write paths side by side, in process: the million corpus's lines (mema's JSONL
 * export format, bench/helpers/million_corpus.ts) imported with the bulk path (plain new
 * memories stored a group at a time, src/portability/import_bulk.ts), the bulk path with the
 * next batch's text work on a worker (`mema import`'s way: src/portability/text_preparer.ts) and
 * item by item (`oneByOne`), each into a fresh library: an empty SQLite file, a copy of `--into` (a large
 * library), or a scratch database on the PostgreSQL server of `--db-url`. The ways alternate,
 * so both see the same machine load.
 *
 *   deno task bench:import-paths [--memories 5000] [--rounds 2] [--db-url URL | --postgres]
 *     [--into LIBRARY --skip N]   (N: the memories of the corpus LIBRARY was made from)
 *
 * `--postgres` uses the server of `MEMA_TEST_PG_URL` (inside scripts/test_postgres.ts).
 *
 * Prints memories per wall second, per CPU-second of this process (on PostgreSQL the server's
 * CPU is not in it) and, on Linux, per CPU-second of its main thread (the worker's CPU left out:
 * what bounds the rate when a second core is free) for each run, the medians and the ratios;
 * writes bench/results/import_paths.json. Never asserts.
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import { readTextLines } from "../src/platform/text_lines.ts";
import { importUnits } from "../src/portability/import.ts";
import { TextPreparer } from "../src/portability/text_preparer.ts";
import { readJsonlUnits } from "../src/portability/sources.ts";
import { openStore, type Store } from "../src/store/mod.ts";
import { openPostgresAsStore } from "../src/store/postgres/app_store.ts";
import { createScratchDatabase } from "../src/store/postgres/scratch.ts";
import { writeMillionCorpus } from "./helpers/million_corpus.ts";
import { machineFacts, markdownTable, median, writeResult } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    memories: { type: "string", default: "5000" },
    rounds: { type: "string", default: "2" },
    into: { type: "string" },
    skip: { type: "string", default: "0" },
    postgres: { type: "boolean", default: false },
    "db-url": { type: "string" },
  },
});
const pgUrl = values["db-url"] ?? (values.postgres ? Deno.env.get("MEMA_TEST_PG_URL") : undefined);
if (values.postgres && pgUrl === undefined) throw new Error("--postgres needs MEMA_TEST_PG_URL");
const memories = Number(values.memories);
const rounds = Number(values.rounds);
const dir = Deno.makeTempDirSync({ prefix: "mema-import-paths-" });

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU time of the calling thread (Linux: /proc/thread-self/stat, in clock ticks of 10 ms). */
function threadCpuMs(): number {
  try {
    const fields = Deno.readTextFileSync("/proc/thread-self/stat").replace(/^.*\) /su, "")
      .split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

const WAYS = ["bulk", "bulk, worker", "one by one"];

/** A fresh library for one run, and how to throw it away. */
async function freshLibrary(run: number): Promise<{ store: Store; drop(): Promise<void> }> {
  if (pgUrl !== undefined) {
    const scratch = await createScratchDatabase(pgUrl);
    const store = await openPostgresAsStore(scratch.url);
    return {
      store,
      async drop() {
        await store.close();
        await scratch.drop();
      },
    };
  }
  const path = `${dir}/library-${run}.sqlite3`;
  if (values.into) Deno.copyFileSync(values.into, path);
  const store = await openStore(path, { cacheDir: `${dir}/cache` });
  return {
    store,
    drop() {
      store.close();
      Deno.removeSync(path);
      for (const suffix of ["-wal", "-shm"]) {
        try {
          Deno.removeSync(`${path}${suffix}`);
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
      }
      return Promise.resolve();
    },
  };
}

try {
  const corpus = `${dir}/memories.jsonl`;
  // `--skip`: past a library made from the corpus's start, whose first lines it already holds.
  await writeMillionCorpus(corpus, { memories, skip: Number(values.skip) });
  // A few hundred lines each way first, not counted: the first run would pay for the JIT.
  const warmUp = `${dir}/warm_up.jsonl`;
  await writeMillionCorpus(warmUp, { memories: 300, skip: Number(values.skip) });
  const runs: {
    way: string;
    memories: number;
    wallMs: number;
    cpuMs: number;
    mainCpuMs: number;
  }[] = [];
  for (let round = -1; round < rounds; round++) {
    const ways = round % 2 === 0 ? WAYS : WAYS.toReversed();
    const file = round < 0 ? warmUp : corpus;
    for (const way of ways) {
      const { store, drop } = await freshLibrary(runs.length);
      try {
        const ctx = {
          store,
          caller: { client: "bench", agentId: "import-paths" },
          settings: { workspaceIsolation: "none" as const, includeSize: false },
          events: composeMemoryEvents(),
        };
        const preparer = way === "bulk, worker" ? new TextPreparer() : undefined;
        const [wall0, cpu0, main0] = [performance.now(), cpuMs(), threadCpuMs()];
        const report = await importUnits(ctx, readJsonlUnits(readTextLines(file), file), {
          oneByOne: way === "one by one",
          preparer,
        }).finally(() => preparer?.close());
        if (round < 0) continue;
        runs.push({
          way,
          memories: report.created,
          wallMs: performance.now() - wall0,
          cpuMs: cpuMs() - cpu0,
          mainCpuMs: threadCpuMs() - main0,
        });
        console.log(
          `${way}: ${report.created} new, ${report.duplicates} duplicates, ` +
            `${Math.round(report.created / (runs.at(-1)!.wallMs / 1000))}/s wall, ` +
            `${Math.round(report.created / (runs.at(-1)!.cpuMs / 1000))} per CPU-second`,
        );
      } finally {
        await drop();
      }
    }
  }
  const rate = (way: string, key: "wallMs" | "cpuMs" | "mainCpuMs") =>
    median(runs.filter((run) => run.way === way).map((run) => run.memories / (run[key] / 1000)));
  const rows = WAYS.map((way) => ({
    way,
    "memories / wall s (median)": Math.round(rate(way, "wallMs")),
    "memories / CPU-s (median)": Math.round(rate(way, "cpuMs")),
    "memories / main-thread CPU-s (median)": Math.round(rate(way, "mainCpuMs")),
  }));
  console.log(markdownTable(rows));
  const ratio = (way: string, key: "wallMs" | "cpuMs" | "mainCpuMs") =>
    (rate(way, key) / rate("one by one", key)).toFixed(2);
  console.log(
    `÷ one by one: bulk ${ratio("bulk", "wallMs")}× wall, ${ratio("bulk", "cpuMs")}× per ` +
      `CPU-second; bulk with the worker ${ratio("bulk, worker", "wallMs")}× wall, ` +
      `${ratio("bulk, worker", "mainCpuMs")}× per main-thread CPU-second` +
      ` (${
        pgUrl !== undefined
          ? "PostgreSQL"
          : values.into
          ? `into a copy of ${values.into}`
          : "SQLite"
      }, load ${Deno.loadavg().map((n) => n.toFixed(1)).join(" ")})`,
  );
  console.log(
    `wrote ${writeResult("import_paths", { machine: machineFacts(), memories, runs, rows })}`,
  );
} finally {
  Deno.removeSync(dir, { recursive: true });
}
Deno.exit(0);
