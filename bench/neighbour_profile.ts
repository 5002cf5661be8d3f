/**
 * What the conflict check's neighbour lookup costs on an existing library (issue 33: the
 * PostgreSQL drain after a 100k preload took 387 s against 250 s a session before). For
 * `--checks` memories spread evenly over the library, the lookup each write's check makes
 * (src/conflicts/detect.ts: the memory's rarest words, `DETECT_POSTINGS_BUDGET` postings, its
 * workspace and the default one) runs in process, one at a time; prints wall p50/p95 per
 * lookup, this process's CPU per lookup and, on PostgreSQL, the cluster's (when it runs on this
 * machine), and how many lookups read capped words (the rarest word held by more memories than
 * the budget). Never asserts.
 *
 *   deno run -A bench/neighbour_profile.ts --db /path/mema.sqlite3 [--checks 300] [--passes 2]
 *   deno run -A bench/neighbour_profile.ts --db-url postgres://… [--checks 300]
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { cappedTerms, pruneTerms, sharedWordCandidates } from "../src/recall/lexical.ts";
import { indexQueryTerms } from "../src/text/index_terms.ts";
import {
  DETECT_NEIGHBOURS,
  DETECT_POSTINGS_BUDGET,
  DETECT_QUERY_TERMS,
} from "../src/conflicts/constants_pipeline.ts";
import { openStore, type Store } from "../src/store/mod.ts";
import { openPostgresAsStore } from "../src/store/postgres/app_store.ts";
import { postmasterOf, ProcessTreeCpu } from "./helpers/process_cpu.ts";
import { summarize } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    db: { type: "string" },
    "db-url": { type: "string" },
    checks: { type: "string", default: "300" },
    passes: { type: "string", default: "2" },
  },
});
if (!values.db && !values["db-url"]) throw new Error("--db or --db-url is required");
const url = values["db-url"];
const store: Store = url
  ? await openPostgresAsStore(url)
  : await openStore(values.db!, { cacheDir: `${values.db}.cache`, skipVec: true });
const socketDir = url ? new URL(url).searchParams.get("host") : null;
const postmaster = socketDir ? postmasterOf(socketDir) : undefined;
const cluster = postmaster === undefined ? undefined : new ProcessTreeCpu(postmaster);

const total = await store.read(async () => await store.indexedMemories());
const checks = Number(values.checks);
const ids = Array.from({ length: checks }, (_, i) => 1 + Math.floor((i + 0.5) * total / checks));
const memories = [...(await store.read(async () => await store.getMemories(ids))).values()];
const options = {
  filters: { statuses: ["active" as const], workspaces: ["team", "default"] },
  pool: DETECT_NEIGHBOURS + 1,
  maxTerms: DETECT_QUERY_TERMS,
  budget: DETECT_POSTINGS_BUDGET,
};
let capped = 0;
const cappedIds = new Set<number>();
for (const memory of memories) {
  const tokens = indexQueryTerms(`${memory.subject} ${memory.content.slice(0, 2000)}`);
  const frequencies = await store.read(async () => await store.tokenFrequencies(tokens));
  const weighed = tokens.map((token) => ({ token, frequency: frequencies.get(token) ?? 0 }));
  if (pruneTerms(weighed, options).kept.length > 0 && cappedTerms(weighed, options)) {
    capped++;
    cappedIds.add(memory.id);
  }
}
console.log(
  `${url ? "PostgreSQL" : "SQLite"}: ${total} memories; ${memories.length} lookups, ` +
    `${capped} of them on capped words`,
);
for (let pass = 1; pass <= Number(values.passes); pass++) {
  const wall: number[] = [];
  const byKind = { capped: [] as number[], whole: [] as number[] };
  const cpuBefore = process.cpuUsage();
  const clusterBefore = cluster?.read() ?? 0;
  for (const memory of memories) {
    const started = performance.now();
    await store.read(async () =>
      await sharedWordCandidates(
        store,
        `${memory.subject} ${memory.content.slice(0, 2000)}`,
        options,
      )
    );
    wall.push(performance.now() - started);
    byKind[cappedIds.has(memory.id) ? "capped" : "whole"].push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const stats = summarize(wall);
  const perLookup = (ms: number) => (ms / memories.length).toFixed(2);
  console.log(
    `pass ${pass}: p50 ${stats.p50} ms, p95 ${stats.p95} ms; CPU per lookup: this process ` +
      `${perLookup((cpu.user + cpu.system) / 1000)} ms` +
      (cluster ? `, PostgreSQL ${perLookup((cluster.read() ?? 0) - clusterBefore)} ms` : "") +
      `; mean wall: capped ${mean(byKind.capped)} ms, whole ${mean(byKind.whole)} ms`,
  );
}
await store.close();

function mean(values: number[]): string {
  return values.length === 0
    ? "n/a"
    : (values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(2);
}
