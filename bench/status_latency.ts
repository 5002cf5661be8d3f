/**
 * `status` latency through MCP on an existing library: starts `mema serve` on a copy the caller
 * names, calls `memory.status` `--runs` times, then `find` without a query (a browse, which
 * reports its total) as often, and prints their medians and p95s, with the counts `status`
 * answered (so a run on the wrong library shows). Never writes beyond what the server itself
 * does at start (migrations, job leases), so point it at a copy.
 *
 *   deno run -A bench/status_latency.ts --db /path/to/copy/mema.sqlite3 [--runs 30]
 *   deno run -A bench/status_latency.ts --env MEMA_DB_URL=postgres://... [--runs 30]
 *
 * Never asserts timings.
 * @module
 */
import { parseArgs } from "node:util";
import { envArguments, startMemaServer } from "./helpers/mcp_server.ts";
import { summarize } from "./helpers/stats.ts";

const args = parseArgs({
  options: {
    db: { type: "string", default: "" },
    runs: { type: "string", default: "30" },
    env: { type: "string", multiple: true, default: [] },
  },
});
const runs = Number(args.values.runs);
const home = Deno.makeTempDirSync({ prefix: "mema-status-" });
const server = await startMemaServer({
  home,
  dbPath: args.values.db || `${home}/mema.sqlite3`,
  env: envArguments(args.values.env),
});
try {
  const first = performance.now();
  const answer = await server.call("memory", "status", {});
  const firstMs = performance.now() - first;
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await server.call("memory", "status", {});
    times.push(performance.now() - started);
  }
  const summary = summarize(times);
  // A browse (find without a query) reports the total of what it pages through.
  const browses: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await server.call("memory", "find", { query: "", limit: 5 });
    browses.push(performance.now() - started);
  }
  const browse = summarize(browses);
  console.log(JSON.stringify({
    memories: answer.data.memories,
    history: answer.data.history_versions,
    evidence: answer.data.evidence,
    firstMs: Math.round(firstMs * 10) / 10,
    status: summary,
    browse: { p50: browse.p50, p95: browse.p95 },
  }));
} finally {
  await server.close();
  Deno.removeSync(home, { recursive: true });
}
