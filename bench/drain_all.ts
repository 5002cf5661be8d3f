/**
 * The whole background drain of a library, as a user meets it after a bulk import (issue 38:
 * the work an import leaves drains at ≥ 2,000 memories a second): a real `mema serve` on the
 * library at `--db`, with an embedding model or without, and no request; this process reads the
 * database every `--every` seconds (read-only) and prints what is left: rows without a vector,
 * memories waiting in the plan of conflict checks (src/conflicts/check_plan.ts), jobs waiting.
 * It stops when nothing is left or after `--limit` seconds, and prints when the embedding and
 * everything were done and the rate over the library's memories.
 *
 *   deno run -A bench/drain_all.ts --db PATH [--model static-wink-100d] [--every 15] [--limit 1800]
 *
 * The library is changed (that is the drain): run it on a copy. Never asserts.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { startMemaServer } from "./helpers/mcp_server.ts";
import { ensureStaticModel, STATIC_MODEL_ID } from "./helpers/static_model.ts";
import { machineFacts, processCpuMs } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    db: { type: "string" },
    model: { type: "string" },
    every: { type: "string", default: "15" },
    limit: { type: "string", default: "1800" },
  },
});
if (!values.db) throw new Error("--db PATH: a copy of a library (the drain changes it)");
if (values.model !== undefined && values.model !== STATIC_MODEL_ID) {
  throw new Error(`--model: only ${STATIC_MODEL_ID} is built here`);
}

const home = Deno.makeTempDirSync({ prefix: "mema-drain-all-" });
const modelsDir = `${home}/models`;
if (values.model) await ensureStaticModel(modelsDir);
const reader = new DatabaseSync(values.db, { readOnly: true });
const count = (sql: string) => Number((reader.prepare(sql).get() as { n: number }).n);
const left = () => ({
  rows_unembedded: values.model
    ? count("SELECT count(*) AS n FROM memory_rows WHERE embedding_space IS NULL")
    : 0,
  planned: count("SELECT count(*) AS n FROM check_plan"),
  jobs_waiting: count("SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'running')"),
});
const memories = count("SELECT count(*) AS n FROM memories");
console.error(`${memories} memories; left before start: ${JSON.stringify(left())}`);

const started = performance.now();
const server = await startMemaServer({
  home,
  dbPath: values.db,
  env: values.model ? { MEMA_EMBEDDING_MODEL: values.model, MEMA_MODELS_DIR: modelsDir } : {},
});
const seconds = () => (performance.now() - started) / 1000;
let embeddedBy: number | undefined;
let doneBy: number | undefined;
try {
  while (seconds() < Number(values.limit)) {
    await new Promise((resolve) => setTimeout(resolve, Number(values.every) * 1000));
    const now = left();
    const cpu = (processCpuMs(server.pid!) ?? NaN) / 1000;
    console.error(
      `${seconds().toFixed(0)} s: ${JSON.stringify(now)}, server CPU ${cpu.toFixed(0)} s`,
    );
    if (now.rows_unembedded === 0) embeddedBy ??= seconds();
    if (now.rows_unembedded === 0 && now.planned === 0 && now.jobs_waiting === 0) {
      doneBy = seconds();
      break;
    }
  }
} finally {
  await server.close();
  reader.close();
  Deno.removeSync(home, { recursive: true });
}
console.log(JSON.stringify(
  {
    machine: machineFacts(),
    memories,
    model: values.model ?? null,
    embedded_by_s: values.model ? embeddedBy : undefined,
    done_by_s: doneBy ?? null,
    memories_per_s: doneBy ? Math.round(memories / doneBy) : null,
    note: `read every ${values.every} s: times are rounded up to the next reading`,
  },
  null,
  2,
));
