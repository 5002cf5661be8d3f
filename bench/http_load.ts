/**
 * Load benchmark of the streamable HTTP transport: one `mema serve --http`
 * process, a seeded database, and 1, 4 and 16 concurrent SDK clients each
 * calling `find` (then `remember`) back to back for a fixed time; `status`
 * first, as the floor a request costs (transport, JSON-RPC, envelope). Reports
 * requests/s and p50/p95 latency per operation and concurrency, prints a
 * Markdown table and writes JSON to bench/results/.
 *
 *   deno run -A bench/http_load.ts [--seconds 5] [--seed-memories 2000] [--label NAME]
 *     [--env NAME=VALUE]...
 *
 * The clients run in this process, on the same machine as the server, so on
 * a small machine they compete with it for CPU: the figures are end-to-end
 * (SDK client, HTTP, JSON-RPC, tool, SQLite), not server-only.
 *
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectHttp as connect, startHttpServer } from "./helpers/mema_http.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const CONCURRENCY = [1, 4, 16];
const TOPICS = [
  "deploy schedule",
  "staging database",
  "backup bucket",
  "on-call rotation",
  "release freeze",
  "api rate limit",
  "cache eviction",
  "feature flag",
  "billing retry",
  "log retention",
];

interface Cell {
  operation: "status" | "find" | "remember";
  clients: number;
  requests: number;
  seconds: number;
  requests_per_s: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  /** CPU time the server process spent per request (user + system), from /proc. */
  server_cpu_ms_per_request: number;
  errors: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

const round = (value: number) => Number(value.toFixed(2));

/** CPU milliseconds a process has used so far (Linux), or NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

let sequence = 0;

function argumentsFor(operation: Cell["operation"]): Record<string, unknown> {
  const n = sequence++;
  const topic = TOPICS[n % TOPICS.length];
  if (operation === "status") return { action: "status" };
  if (operation === "find") return { action: "find", data: { query: topic, limit: 10 } };
  return {
    action: "remember",
    data: {
      content: `Bench fact ${n} about the ${topic}: value ${n * 7919 % 10007} applies from week ${
        n % 52
      }.`,
      subject: `${topic} ${n}`,
      workspace: `bench-${n % 4}`,
      tags: [topic.split(" ")[0], "bench"],
    },
  };
}

async function measure(
  clients: Client[],
  operation: Cell["operation"],
  options: { seconds: number; serverPid: number },
): Promise<Cell> {
  const { seconds, serverPid } = options;
  const cpuBefore = cpuMs(serverPid);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(clients.map(async (client) => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const result = await client.callTool({ name: "memory", arguments: argumentsFor(operation) });
      latencies.push(performance.now() - t0);
      if (result.isError) errors++;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  const serverCpu = cpuMs(serverPid) - cpuBefore;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    operation,
    clients: clients.length,
    requests: sorted.length,
    seconds: round(elapsed),
    requests_per_s: round(sorted.length / elapsed),
    p50_ms: round(percentile(sorted, 0.5)),
    p95_ms: round(percentile(sorted, 0.95)),
    max_ms: round(sorted[sorted.length - 1] ?? NaN),
    server_cpu_ms_per_request: round(serverCpu / Math.max(1, sorted.length)),
    errors,
  };
}

function table(cells: readonly Cell[]): string {
  const header = [
    "operation",
    "clients",
    "requests",
    "req/s",
    "p50 ms",
    "p95 ms",
    "max ms",
    "server CPU ms/req",
    "errors",
  ];
  const rows = cells.map((c) => [
    c.operation,
    c.clients,
    c.requests,
    c.requests_per_s,
    c.p50_ms,
    c.p95_ms,
    c.max_ms,
    c.server_cpu_ms_per_request,
    c.errors,
  ]);
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

function machine(): Record<string, unknown> {
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      return "";
    }
  };
  return {
    cpu: /model name\s*:\s*(.+)/.exec(read("/proc/cpuinfo"))?.[1] ?? "unknown",
    cores: navigator.hardwareConcurrency,
    load_average: read("/proc/loadavg").split(" ").slice(0, 3).join(" "),
    deno: Deno.version.deno,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "5" },
      "seed-memories": { type: "string", default: "2000" },
      label: { type: "string", default: "lexical" },
      env: { type: "string", multiple: true, default: [] },
    },
  });
  const seconds = Number(values.seconds);
  const seedCount = Number(values["seed-memories"]);
  const env = Object.fromEntries(
    values.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
  const server = await startHttpServer(env);
  const pool = await Promise.all(
    Array.from({ length: Math.max(...CONCURRENCY) }, () => connect(server.url)),
  );
  try {
    const seedStarted = performance.now();
    let seeded = 0;
    await Promise.all(
      pool.slice(0, 8).map(async (client) => {
        while (seeded < seedCount) {
          seeded++;
          await client.callTool({ name: "memory", arguments: argumentsFor("remember") });
        }
      }),
    );
    console.error(
      `seeded ${seedCount} memories in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
    );
    const serverPid = server.child.pid;
    // Warm-up: JIT, page cache, connection pool.
    await measure(pool.slice(0, 4), "find", { seconds: 1, serverPid });
    const cells: Cell[] = [];
    for (const operation of ["status", "find", "remember"] as const) {
      for (const clients of CONCURRENCY) {
        const cell = await measure(pool.slice(0, clients), operation, { seconds, serverPid });
        console.error(
          `${operation} × ${clients}: ${cell.requests_per_s} req/s, p50 ${cell.p50_ms} ms, p95 ${cell.p95_ms} ms`,
        );
        cells.push(cell);
      }
    }
    console.log(table(cells));
    const result = {
      benchmark: "http_load",
      label: values.label,
      date: new Date().toISOString(),
      seconds_per_cell: seconds,
      seed_memories: seedCount,
      env,
      machine: machine(),
      cells,
    };
    const dir = `${ROOT}/bench/results`;
    Deno.mkdirSync(dir, { recursive: true });
    const path = `${dir}/http_load${values.label === "lexical" ? "" : `_${values.label}`}.json`;
    Deno.writeTextFileSync(path, JSON.stringify(result, null, 2) + "\n");
    console.error(`wrote ${path}`);
  } finally {
    await Promise.all(pool.map((client) => client.close()));
    await server.stop();
  }
}

if (import.meta.main) await main();
