/**
 * A new user's first start: a clean clone of this repository (`git clone`, so no
 * node_modules), then `deno task start` spawned as an MCP client would, timed from spawn to
 * the answer to `initialize`, with Deno's npm cache as it is (warm on a machine that ran mema
 * before), or with `--cold` an empty Deno cache for each run (a new user's machine: every
 * package is fetched from the registry). Reports the size of the node_modules it left, how many
 * packages it holds, with `--cold` the bytes the run put in the Deno cache (the fetched
 * packages, unpacked), and whether anything on stderr asked the user to act (e.g. "deno
 * approve-scripts").
 *
 *   deno run -A bench/first_start.ts [--source DIR] [--runs N] [--cold] [--keep]
 *
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ROOT } from "./helpers/stats.ts";

/** Bytes under `dir`, each file counted once (Deno hard-links from its cache). */
function diskUsage(dir: string): number {
  const output = new Deno.Command("du", { args: ["-sb", dir], stdout: "piped" }).outputSync();
  return Number(new TextDecoder().decode(output.stdout).split("\t")[0]);
}

/**
 * What a user's shell gives every process and a start depends on: where Deno and npm keep their
 * caches (point them at empty folders for a cold start) and how TLS and proxies are reached.
 */
const PASSED_THROUGH = [
  "DENO_DIR",
  "npm_config_cache",
  "XDG_CACHE_HOME",
  "DENO_CERT",
  "NODE_EXTRA_CA_CERTS",
  "DENO_TLS_CA_STORE",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
];

function passedThrough(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function firstStart(source: string, options: { keep: boolean; cold: boolean }) {
  const { keep, cold } = options;
  const clone = Deno.makeTempDirSync({ prefix: "mema-first-start-" });
  // Outside the clone, so node_modules' size does not count it.
  const denoDir = cold ? Deno.makeTempDirSync({ prefix: "mema-first-start-deno-" }) : undefined;
  try {
    const cloned = new Deno.Command("git", {
      args: ["clone", "--quiet", source, clone],
      stdout: "null",
      stderr: "inherit",
    }).outputSync();
    if (!cloned.success) throw new Error(`git clone ${source} failed`);
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["task", "start"],
      cwd: clone,
      env: {
        ...passedThrough(),
        ...(denoDir === undefined ? {} : { DENO_DIR: denoDir }),
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? clone,
        MEMA_DB_PATH: `${clone}/first-start.sqlite3`,
        MEMA_CONFIG: `${clone}/no-config.json`,
        NO_COLOR: "1",
      },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
    });
    const client = new Client({ name: "first-start-bench", version: "0" });
    const started = performance.now();
    await client.connect(transport);
    const initializeMs = performance.now() - started;
    await client.close();
    const nodeModules = diskUsage(`${clone}/node_modules`);
    const packages = [...Deno.readDirSync(`${clone}/node_modules/.deno`)]
      .filter((entry) => entry.isDirectory).length;
    if (keep) console.log(`kept ${clone}`);
    return {
      initialize_ms: Math.round(initializeMs),
      node_modules_mb: Number((nodeModules / 1e6).toFixed(1)),
      packages,
      deno_cache_mb: denoDir === undefined
        ? undefined
        : Number((diskUsage(denoDir) / 1e6).toFixed(1)),
      asks_to_approve_scripts: /approve-scripts/.test(stderr),
      stderr_lines: stderr.split("\n").filter((line) => line.trim() !== "").length,
    };
  } finally {
    if (!keep) Deno.removeSync(clone, { recursive: true });
    if (denoDir !== undefined) Deno.removeSync(denoDir, { recursive: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      source: { type: "string", default: ROOT },
      runs: { type: "string", default: "3" },
      keep: { type: "boolean", default: false },
      cold: { type: "boolean", default: false },
    },
  });
  const runs = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const run = await firstStart(values.source, { keep: values.keep, cold: values.cold });
    runs.push(run);
    console.log(
      `run ${
        i + 1
      }: initialize after ${run.initialize_ms} ms; node_modules ${run.node_modules_mb} MB (${run.packages} packages)${
        run.deno_cache_mb === undefined ? "" : `; Deno cache filled with ${run.deno_cache_mb} MB`
      }; approve-scripts warning: ${run.asks_to_approve_scripts ? "yes" : "no"}`,
    );
  }
  const sorted = runs.map((run) => run.initialize_ms).sort((a, b) => a - b);
  console.log(
    `first \`deno task start\` on a clean clone${
      values.cold ? " with an empty Deno cache" : ""
    }: initialize median ${sorted[Math.floor(sorted.length / 2)]} ms (max ${
      sorted.at(-1)
    }), node_modules ${runs[0].node_modules_mb} MB`,
  );
  Deno.mkdirSync(`${ROOT}/bench/results`, { recursive: true });
  Deno.writeTextFileSync(
    `${ROOT}/bench/results/first_start.json`,
    JSON.stringify(
      { source: values.source, cold: values.cold, runs, at: new Date().toISOString() },
      null,
      2,
    ),
  );
}

if (import.meta.main) await main();
