/**
 * A million memories on one machine (issue 38), as a user gets there: a JSONL export made
 * from LoCoMo turns with renamed speakers (~250 characters a memory, every export field, so
 * 1M memories are ~0.94 GB; bench/helpers/million_corpus.ts) goes in with `mema import`,
 * comes out again with `mema export --format jsonl`, then a real `mema serve` on the result
 * is asked LoCoMo's questions through MCP right after it starts (cold caches, the import's
 * background jobs still queued), then the same questions again (warm), then `remember`.
 *
 * Prints, per size: import and export wall time, CPU time, rate and peak RSS (of the CLI
 * process); `initialize` time (and a second start's); `find` p50/p95/max cold and warm, and the
 * server's CPU per `find` (mean of each pass: on a loaded machine wall clock carries the wait
 * for a core); `remember` p50/p95; server peak RSS; disk per memory; jobs left queued. Each size runs in its own temp folder, removed
 * afterwards (unless --keep).
 *
 *   deno run -A bench/million.ts [--sizes 10000,100000,1000000] [--queries 200] [--keep]
 *   deno run -A bench/million.ts --library PATH [--idle]   (serve a copy of a library only)
 *
 * Writes bench/results/million.json. Never asserts timings.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { writeMillionCorpus } from "./helpers/million_corpus.ts";
import { loadLocomo, LOCOMO_DEV, scoredQuestions } from "./helpers/locomo.ts";
import { runnerDenoDir, startMemaServer } from "./helpers/mcp_server.ts";
import {
  fileBytes,
  machineFacts,
  markdownTable,
  processCpuMs,
  ROOT,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";

const REMEMBER_SAMPLE = 100;

/** What `/usr/bin/time` says about a finished command. */
interface ProcessCost {
  code: number;
  wallS: number;
  cpuS: number;
  peakRssMb: number;
  stdout: string;
  stderr: string;
}

/** Runs `mema ARGS` as a user would, measured by GNU time. */
async function runMema(args: string[], env: Record<string, string>): Promise<ProcessCost> {
  const output = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "MEMA-TIME %e %U %S %M", Deno.execPath(), "run", "-A", `${ROOT}/main.ts`, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  const match = /MEMA-TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
  if (!match) throw new Error(`no timing from mema ${args[0]}: ${stderr.slice(-2000)}`);
  return {
    code: output.code,
    wallS: Number(match[1]),
    cpuS: Number(match[2]) + Number(match[3]),
    peakRssMb: Math.round(Number(match[4]) / 1024),
    stdout: new TextDecoder().decode(output.stdout),
    stderr: stderr.replace(match[0], "").trim(),
  };
}

function questions(count: number): string[] {
  const all = loadLocomo(LOCOMO_DEV).flatMap((conversation) =>
    scoredQuestions(conversation).map((entry) => entry.question.question)
  );
  return all.slice(0, count);
}

async function runSize(size: number, queryCount: number, keep: boolean) {
  const dir = Deno.makeTempDirSync({ prefix: `mema-million-${size}-` });
  const log = (message: string) => console.error(`[${size}] ${message}`);
  const dbPath = `${dir}/mema.sqlite3`;
  const env = {
    HOME: dir,
    XDG_CONFIG_HOME: `${dir}/config`,
    XDG_CACHE_HOME: `${dir}/cache`,
    XDG_DATA_HOME: `${dir}/data`,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: runnerDenoDir(),
  };
  try {
    const corpus = await writeMillionCorpus(`${dir}/memories.jsonl`, { memories: size });
    log(`corpus: ${(corpus.bytes / 1e9).toFixed(2)} GB`);
    const imported = await runMema(
      ["import", `${dir}/memories.jsonl`, "--db", dbPath, "--quiet"],
      env,
    );
    log(`import: ${imported.stdout.trim()} ${imported.wallS} s, ${imported.peakRssMb} MB`);
    if (imported.code !== 0) log(`import stderr: ${imported.stderr.slice(0, 2000)}`);
    Deno.removeSync(`${dir}/memories.jsonl`);
    const disk = fileBytes(dbPath) + fileBytes(`${dbPath}-wal`);
    const exported = await runMema(
      ["export", `${dir}/out`, "--format", "jsonl", "--db", dbPath],
      env,
    );
    log(`export: ${exported.stdout.trim()} ${exported.wallS} s, ${exported.peakRssMb} MB`);
    const exportBytes = fileBytes(`${dir}/out/memories.jsonl`);
    Deno.removeSync(`${dir}/out`, { recursive: true });

    const served = await serveLibrary({ dir, dbPath, size, queryCount });
    const result = {
      memories: size,
      corpus_gb: Number((corpus.bytes / 1e9).toFixed(3)),
      import_s: imported.wallS,
      import_cpu_s: imported.cpuS,
      import_per_s: Math.round(size / imported.wallS),
      import_per_cpu_s: Math.round(size / imported.cpuS),
      import_rss_mb: imported.peakRssMb,
      import_exit: imported.code,
      export_s: exported.wallS,
      export_per_s: Math.round(size / exported.wallS),
      export_rss_mb: exported.peakRssMb,
      export_gb: Number((exportBytes / 1e9).toFixed(3)),
      disk_kb_per_memory: Number((disk / size / 1024).toFixed(2)),
      ...served,
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    if (keep) log(`kept ${dir}`);
    else Deno.removeSync(dir, { recursive: true });
  }
}

/**
 * A real `mema serve` on the library at `dbPath`, as an agent meets it right after it starts:
 * `initialize`, the questions cold then warm, `remember`; then a second start's `initialize`.
 */
async function serveLibrary(
  options: { dir: string; dbPath: string; size: number; queryCount: number },
) {
  const { dir, dbPath, size, queryCount } = options;
  const asked = questions(queryCount);
  const started = await timedAsync(() => startMemaServer({ home: dir, dbPath }));
  const server = started.value;
  let closed = false;
  try {
    const status = await server.call("memory", "status", {});
    const jobs = (status.data?.jobs ?? {}) as Record<string, Record<string, number>>;
    const queued = Object.values(jobs).reduce((sum, by) => sum + (by.pending ?? 0), 0);
    const cpuMs = () => (server.pid === undefined ? undefined : processCpuMs(server.pid)) ?? NaN;
    const pass = async () => {
      const times: number[] = [];
      const cpuBefore = cpuMs();
      for (const query of asked) {
        times.push(
          (await timedAsync(() => server.call("memory", "find", { query, limit: 10 }))).ms,
        );
      }
      // The server's CPU per question, background work included (none when idle).
      return {
        ...summarize(times),
        cpuMean: Math.round((cpuMs() - cpuBefore) / asked.length * 10) / 10,
      };
    };
    const cold = await pass();
    const warm = await pass();
    const rememberMs: number[] = [];
    for (let k = 0; k < REMEMBER_SAMPLE; k++) {
      rememberMs.push(
        (await timedAsync(() =>
          server.call("memory", "remember", {
            subject: `bench note ${k}`,
            content: `The scale benchmark wrote note ${k} while the library held ${size}.`,
            workspace: "bench",
          })
        )).ms,
      );
    }
    const remembered = summarize(rememberMs);
    const serverRssMb = Math.round((server.peakRss() ?? 0) / 1024 / 1024);
    await server.close();
    closed = true;
    const again = await timedAsync(() => startMemaServer({ home: dir, dbPath }));
    await again.value.close();
    return {
      jobs_queued_at_start: queued,
      initialize_ms: Math.round(started.ms),
      initialize_again_ms: Math.round(again.ms),
      find_cold_p50_ms: cold.p50,
      find_cold_p95_ms: cold.p95,
      find_cold_max_ms: cold.max,
      find_warm_p50_ms: warm.p50,
      find_warm_p95_ms: warm.p95,
      find_cpu_ms_cold: cold.cpuMean,
      find_cpu_ms_warm: warm.cpuMean,
      remember_p50_ms: remembered.p50,
      remember_p95_ms: remembered.p95,
      server_rss_mb: serverRssMb,
    };
  } finally {
    if (!closed) await server.close();
  }
}

/**
 * `--library PATH`: serves a copy of an existing library (the original is never opened);
 * with `idle`, its queued background jobs are marked done (and an older library's entity graph
 * read through) first, so the questions meet no drain (the figures an idle library gives).
 */
async function runLibrary(source: string, queryCount: number, idle: boolean, keep: boolean) {
  const dir = Deno.makeTempDirSync({ prefix: "mema-million-library-" });
  const dbPath = `${dir}/mema.sqlite3`;
  try {
    Deno.copyFileSync(source, dbPath);
    const db = new DatabaseSync(dbPath);
    const size = Number(
      (db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n,
    );
    if (idle) {
      // As after the drain: no conflict check queued, the entity graph read through.
      // Deleted, as the worker deletes a finished job (rows marked done would be pruned at once).
      db.exec("DELETE FROM jobs WHERE status IN ('pending', 'running')");
      db.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('entities_read_through', 'done')");
    }
    db.close();
    const disk = fileBytes(dbPath);
    const served = await serveLibrary({ dir, dbPath, size, queryCount });
    const result = {
      memories: size,
      library: source,
      idle,
      disk_kb_per_memory: Number((disk / size / 1024).toFixed(2)),
      ...served,
    };
    console.error(`[library] ${JSON.stringify(result)}`);
    return result;
  } finally {
    if (keep) console.error(`[library] kept ${dir}`);
    else Deno.removeSync(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "10000,100000" },
      queries: { type: "string", default: "200" },
      keep: { type: "boolean", default: false },
      library: { type: "string" },
      idle: { type: "boolean", default: false },
    },
  });
  const machine = machineFacts();
  const rows = [];
  if (values.library !== undefined) {
    rows.push(await runLibrary(values.library, Number(values.queries), values.idle, values.keep));
  } else {
    for (const size of values.sizes.split(",").map(Number)) {
      rows.push(await runSize(size, Number(values.queries), values.keep));
    }
  }
  console.log(markdownTable(rows));
  console.log(JSON.stringify(machine));
  writeResult("million", { machine, rows });
}
