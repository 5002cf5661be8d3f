/**
 * Cold-start benchmark: from spawning `mema serve` (under `deno run`) to the first
 * `initialize` response, and to the first `find` answer, without and with an embedding
 * model configured (the built-in static model; its first `find` loads the model). The
 * driver speaks raw JSON-RPC over the child's stdio, so no client start-up is counted.
 *
 * Baselines decompose the figure: `deno run` of an empty module (Deno's own start) and
 * `mema version` (loading mema's module graph, no database). With hyperfine installed,
 * `start → initialize → exit` is also measured by hyperfine as a cross-check.
 *
 *   deno run -A bench/cold_start.ts [--runs 15] [--memories 1000]
 *
 * Prints a table and writes bench/results/cold_start.json. Never asserts timings.
 * @module
 */
import { parseArgs } from "node:util";
import { SemanticIndex } from "../src/evidence/semantic.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { rememberInTransaction } from "../src/memory/remember.ts";
import { buildStaticModel } from "../src/models/static_model.ts";
import { openStore } from "../src/store/mod.ts";
import { serveCommand, serverEnv } from "./helpers/mcp_server.ts";
import { NoteGenerator } from "./helpers/notes.ts";
import {
  machineFacts,
  markdownTable,
  median,
  ROOT,
  summarize,
  writeResult,
} from "./helpers/stats.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";

const MODEL_ID = "static-wink-100d";
const PROTOCOL_VERSION = "2025-06-18";

interface StartTimes {
  initializeMs: number;
  findMs: number;
  findResults: number;
}

/** Spawns the server, sends initialize at once, then a find; returns both times. */
async function measureStart(env: Record<string, string>, query: string): Promise<StartTimes> {
  const { command, args } = serveCommand();
  const started = performance.now();
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const responseTo = async (id: number): Promise<Record<string, unknown>> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error(`server closed before answering request ${id}`);
      buffered += value;
    }
  };
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "cold-start-bench", version: "0" },
    },
  });
  await responseTo(1);
  const initializeMs = performance.now() - started;
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "memory", arguments: { action: "find", data: { query, limit: 5 } } },
  });
  const found = await responseTo(2);
  const findMs = performance.now() - started;
  // deno-lint-ignore no-explicit-any
  const envelope = (found.result as any)?.structuredContent;
  if (!envelope?.ok) throw new Error(`find failed: ${JSON.stringify(found)}`);
  await writer.close();
  await lines.cancel();
  await child.status;
  return { initializeMs, findMs, findResults: envelope.data.results.length };
}

async function measureCommand(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  if (!result.success) throw new Error(`${args.join(" ")} failed`);
  return performance.now() - started;
}

async function prepareDatabase(dir: string, memories: number, modelsDir: string): Promise<string> {
  const dbPath = `${dir}/mema.sqlite3`;
  const store = await openStore(dbPath, { cacheDir: `${dir}/cache` });
  const semantic = new SemanticIndex(store, { modelId: MODEL_ID, modelsDir });
  const ctx: ServiceContext = {
    store,
    semantic,
    caller: { client: "bench", agentId: "cold-start" },
    settings: { workspaceIsolation: "none", includeSize: true },
    events: composeMemoryEvents(),
  };
  const notes = new NoteGenerator(11);
  await store.write(async () => {
    for (let i = 0; i < memories; i++) {
      const note = notes.next();
      await rememberInTransaction(ctx, {
        subject: note.subject,
        content: note.content,
        workspace: note.workspace,
        tags: note.tags,
        eventTime: note.eventTime,
      });
    }
  });
  for (;;) {
    const report = await semantic.rebuild({ dryRun: false, batchSize: 500 });
    if (report.complete) break;
  }
  await semantic.unload();
  store.close();
  return dbPath;
}

function hyperfineAvailable(): boolean {
  try {
    return new Deno.Command("hyperfine", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** `start → initialize → exit` as hyperfine measures it (stdin closes after the request). */
function hyperfineInitialize(env: Record<string, string>, runs: number): number | undefined {
  const dir = Deno.makeTempDirSync({ prefix: "mema-hyperfine-" });
  try {
    const request = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "h" } },
    });
    Deno.writeTextFileSync(`${dir}/initialize.jsonl`, request + "\n");
    const { command, args } = serveCommand();
    const envPrefix = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(" ");
    const shell = `env -i ${envPrefix} ${command} ${args.join(" ")} < ${dir}/initialize.jsonl`;
    const result = new Deno.Command("hyperfine", {
      args: [
        "--warmup",
        "2",
        "--runs",
        String(runs),
        "--style",
        "none",
        "--export-json",
        `${dir}/out.json`,
        shell,
      ],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    if (!result.success) return undefined;
    const out = JSON.parse(Deno.readTextFileSync(`${dir}/out.json`));
    return out.results[0].median * 1000;
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "15" },
      memories: { type: "string", default: "1000" },
    },
    strict: true,
  });
  const runs = Number(values.runs);
  const dir = Deno.makeTempDirSync({ prefix: "mema-cold-" });
  try {
    const modelsDir = `${dir}/models`;
    await buildStaticModel(`${modelsDir}/${MODEL_ID}`);
    const dbPath = await prepareDatabase(dir, Number(values.memories), modelsDir);
    const home = `${dir}/home`;
    const base = serverEnv({ home, dbPath, env: { MEMA_MODELS_DIR: modelsDir } });
    const variants = {
      "no model": { ...base, MEMA_EMBEDDING_MODEL: "none" },
      [`model ${MODEL_ID}`]: { ...base, MEMA_EMBEDDING_MODEL: MODEL_ID },
    };
    Deno.writeTextFileSync(`${dir}/empty.ts`, "");
    const baselines = {
      "deno run (empty module)": ["run", "--allow-all", "--quiet", `${dir}/empty.ts`],
      "mema version": ["run", "--allow-all", "--quiet", `${ROOT}/main.ts`, "version"],
    };
    const rows: Record<string, unknown>[] = [];
    const raw: Record<string, unknown> = {};
    for (const [name, args] of Object.entries(baselines)) {
      await measureCommand(args, base);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await measureCommand(args, base));
      raw[name] = summarize(times);
      rows.push({
        what: name,
        "to initialize ms": "",
        "to first find ms": "",
        "exit ms": median(times),
      });
    }
    for (const [name, env] of Object.entries(variants)) {
      await measureStart(env, "deploy schedule"); // warms the OS file cache, not the process
      const samples: StartTimes[] = [];
      for (let i = 0; i < runs; i++) samples.push(await measureStart(env, "deploy schedule"));
      const initialize = summarize(samples.map((s) => s.initializeMs));
      const find = summarize(samples.map((s) => s.findMs));
      raw[name] = {
        initialize_ms: initialize,
        first_find_ms: find,
        results: samples[0].findResults,
      };
      rows.push({
        what: `mema serve, ${name}`,
        "to initialize ms": `${initialize.p50} (p95 ${initialize.p95})`,
        "to first find ms": `${find.p50} (p95 ${find.p95})`,
        "exit ms": "",
      });
    }
    let hyperfine: Record<string, number | undefined> | undefined;
    if (hyperfineAvailable()) {
      hyperfine = {};
      for (const [name, env] of Object.entries(variants)) {
        hyperfine[name] = hyperfineInitialize(env, runs);
        rows.push({
          what: `hyperfine: start → initialize → exit, ${name}`,
          "to initialize ms": "",
          "to first find ms": "",
          "exit ms": hyperfine[name] === undefined ? "failed" : Number(hyperfine[name]!.toFixed(1)),
        });
      }
    }
    console.log(
      `mema cold start under deno run (${runs} runs each, medians; ${values.memories} memories)`,
    );
    console.log(markdownTable(rows));
    const path = writeResult("cold_start", {
      machine: machineFacts(),
      runs,
      memories: Number(values.memories),
      results: raw,
      hyperfine_median_ms: hyperfine,
    });
    console.log(`\nwrote ${path}`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
