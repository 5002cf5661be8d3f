/**
 * The write path alone (issue 33): the services called in this process, no MCP, no HTTP, no
 * background jobs, so what is measured is `rememberMany` and `remember` against the store. One
 * SQLite file, then `--stores` store instances (as many servers would hold) on one PostgreSQL
 * database: `--size` memories of a LoCoMo-derived library loaded with `rememberMany` (500 per
 * call), then `--writers` concurrent writers calling `rememberMemory` with new memories for
 * `--seconds`, spread over the instances. Prints preload memories/s, writes/s and `remember`
 * p50/p95 for each backend and the ratios. Never asserts.
 *
 *   deno run --allow-all bench/team_write_path.ts [--size 2000] [--writers 8] [--stores 4]
 *     [--seconds 10] [--backend both|sqlite|postgresql] [--label team_write_path]
 *
 * PostgreSQL is a throwaway cluster with `fsync` on (scripts/test_postgres.ts), or the server
 * `MEMA_BENCH_PG_URL` names (its role must hold CREATEDB). Used beside `bench:team` to tell the
 * write path's cost from what the servers around it add (docs/benchmarks.md).
 * @module
 */
import { parseArgs } from "node:util";
import { serverBinDir, startCluster, type TestCluster } from "../scripts/test_postgres.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { rememberMemory } from "../src/memory/remember.ts";
import { rememberMany } from "../src/memory/remember_many.ts";
import { openStore, type Store } from "../src/store/mod.ts";
import { openPostgresAsStore } from "../src/store/postgres/app_store.ts";
import { createScratchDatabase } from "../src/store/postgres/scratch.ts";
import { buildLocomoLibrary, type LibraryMemory } from "./helpers/locomo_library.ts";
import { machineFacts, markdownTable, summarize, writeResult } from "./helpers/stats.ts";
import { postmasterOf, processCpuMs, ProcessTreeCpu } from "./helpers/process_cpu.ts";

const WORKSPACE = "team";
/** Facts per `rememberMany` call, as `batch_remember` takes them. */
const BATCH = 500;

interface Figures {
  preload_per_s: number;
  writes_per_s: number;
  remember_p50_ms: number;
  remember_p95_ms: number;
  /** CPU of this process (the writers and the store) per write. */
  process_cpu_ms_per_write: number;
  /** CPU of the PostgreSQL cluster per write (0 on SQLite, or when it runs elsewhere). */
  postgres_cpu_ms_per_write: number;
}

function contextOf(store: Store, dir: string, n: number): ServiceContext {
  return {
    store,
    caller: { client: "bench", agentId: `writer-${n}` },
    settings: {
      workspaceIsolation: "none",
      includeSize: false,
      backupPath: `${dir}/backup-${n}.jsonl`,
    },
    events: composeMemoryEvents(),
  };
}

/** A library memory as `remember` input. */
function input(memory: LibraryMemory) {
  return {
    content: memory.content,
    subject: memory.subject,
    workspace: WORKSPACE,
    tags: memory.tags,
    ...(memory.eventTime ? { eventTime: memory.eventTime } : {}),
  };
}

/** Preloads `memories`, then `writers` write `extra` memories back to back for `seconds`. */
async function measure(
  contexts: ServiceContext[],
  library: { memories: LibraryMemory[]; extra: LibraryMemory[] },
  options: { writers: number; seconds: number; postgres?: ProcessTreeCpu },
): Promise<Figures> {
  const loadStarted = performance.now();
  for (let at = 0; at < library.memories.length; at += BATCH) {
    await rememberMany(contexts[0], library.memories.slice(at, at + BATCH).map(input));
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = { process: processCpuMs(Deno.pid), postgres: options.postgres?.read() ?? 0 };
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(Array.from({ length: options.writers }, async (_, n) => {
    const ctx = contexts[n % contexts.length];
    while (performance.now() < deadline) {
      const memory = library.extra[next++ % library.extra.length];
      const t0 = performance.now();
      await rememberMemory(ctx, input({ ...memory, content: `${memory.content} (${next})` }));
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const perWrite = (ms: number) => Number((ms / Math.max(1, latencies.length)).toFixed(2));
  const summary = summarize(latencies);
  return {
    process_cpu_ms_per_write: perWrite(processCpuMs(Deno.pid) - cpuBefore.process),
    postgres_cpu_ms_per_write: perWrite((options.postgres?.read() ?? 0) - cpuBefore.postgres),
    preload_per_s: Math.round(library.memories.length / loadSeconds),
    writes_per_s: Math.round(latencies.length / seconds),
    remember_p50_ms: summary.p50,
    remember_p95_ms: summary.p95,
  };
}

/** The CPU counter of the PostgreSQL cluster at `url`, when it runs on this machine. */
function postgresCpu(url: string): ProcessTreeCpu | undefined {
  const socketDir = new URL(url).searchParams.get("host");
  const postmaster = socketDir ? postmasterOf(socketDir) : undefined;
  return postmaster === undefined ? undefined : new ProcessTreeCpu(postmaster);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      size: { type: "string", default: "2000" },
      writers: { type: "string", default: "8" },
      stores: { type: "string", default: "4" },
      seconds: { type: "string", default: "10" },
      backend: { type: "string", default: "both" },
      label: { type: "string", default: "team_write_path" },
    },
  });
  const size = Number(values.size);
  const writers = Number(values.writers);
  const stores = Number(values.stores);
  const seconds = Number(values.seconds);
  for (const [name, value] of Object.entries({ size, writers, stores, seconds })) {
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`--${name} wants a whole number ≥ 1`);
    }
  }
  const library = buildLocomoLibrary({ size, extra: 20_000, seed: 7 });
  const dir = Deno.makeTempDirSync({ prefix: "mema-write-path-" });
  const figures: Record<string, Figures> = {};
  let cluster: TestCluster | undefined;
  try {
    if (values.backend !== "postgresql") {
      const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
      try {
        figures.sqlite = await measure([contextOf(store, dir, 0)], library, { writers, seconds });
      } finally {
        store.close();
      }
    }
    if (values.backend !== "sqlite") {
      let url = Deno.env.get("MEMA_BENCH_PG_URL");
      if (!url) {
        const bin = serverBinDir();
        if (bin === undefined) throw new Error("PostgreSQL not found: apt-get install postgresql");
        cluster = await startCluster(bin, { durable: true });
        url = cluster.url;
      }
      const scratch = await createScratchDatabase(url);
      const opened: Store[] = [];
      try {
        for (let n = 0; n < stores; n++) opened.push(await openPostgresAsStore(scratch.url));
        figures.postgresql = await measure(
          opened.map((store, n) => contextOf(store, dir, n)),
          library,
          { writers, seconds, postgres: postgresCpu(url) },
        );
      } finally {
        for (const store of opened) await store.close();
        await scratch.drop();
      }
    }
  } finally {
    await cluster?.stop();
    Deno.removeSync(dir, { recursive: true });
  }
  const machine = machineFacts();
  console.log(
    `\nWrite path: ${size} memories preloaded, ${writers} writers for ${seconds} s ` +
      `(PostgreSQL: ${stores} store instances on one database)`,
  );
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadavg_at_end}\n`);
  const rows = (Object.keys(figures.sqlite ?? figures.postgresql ?? {}) as (keyof Figures)[])
    .map((figure) => ({
      figure,
      sqlite: figures.sqlite?.[figure] ?? "",
      postgresql: figures.postgresql?.[figure] ?? "",
      ratio: figures.sqlite && figures.postgresql
        ? `${(figures.postgresql[figure] / figures.sqlite[figure]).toFixed(2)}×`
        : "",
    }));
  console.log(markdownTable(rows));
  writeResult(values.label, {
    benchmark: "team_write_path",
    size,
    writers,
    stores,
    machine,
    figures,
  });
}

if (import.meta.main) await main();
