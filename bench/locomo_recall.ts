/**
 * LoCoMo evidence-recall benchmark, run through the real MCP server.
 *
 * Every dialogue turn of each conversation is stored as one memory with
 * `remember` (workspace = the conversation id, event_time = the session date,
 * follows = the previous turn of the same session, as a transcript importer would
 * link them; `--no-follows` stores unlinked turns), then every non-adversarial question is asked with `find` (limit 10). A
 * question's recall@k is the share of its evidence turns among the top k;
 * MRR uses the rank of the first evidence turn. Prints per-category tables
 * and writes JSON to bench/results/.
 *
 *   deno run -A bench/locomo_recall.ts [--data PATH] [--conversations N] [--label NAME]
 *     [--no-follows] [--env KEY=VALUE ...]
 *
 * `--env MEMA_DB_URL=postgres://…` runs the server on that PostgreSQL database instead of a
 * scratch SQLite file (give it an empty database: the workspaces are the conversation ids).
 *
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  loadLocomo,
  LOCOMO_DEV,
  type QuestionScore,
  scoredQuestions,
  scoreRanking,
  scoreTable,
  sessionTurns,
} from "./helpers/locomo.ts";
import { envArguments } from "./helpers/mcp_server.ts";
import { percentile, ROOT } from "./helpers/stats.ts";

// deno-lint-ignore no-explicit-any
async function call(client: Client, action: string, data: unknown): Promise<any> {
  const result = await client.callTool({ name: "memory", arguments: { action, data } });
  // deno-lint-ignore no-explicit-any
  const envelope = result.structuredContent as any;
  if (!envelope.ok) throw new Error(`${action} failed: ${JSON.stringify(envelope.data)}`);
  return envelope;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: LOCOMO_DEV },
      conversations: { type: "string" },
      label: { type: "string", default: "lexical" },
      env: { type: "string", multiple: true, default: [] },
      "no-follows": { type: "boolean", default: false },
    },
  });
  const data = loadLocomo(values.data);
  const selected = values.conversations ? data.slice(0, Number(values.conversations)) : data;
  const home = Deno.makeTempDirSync({ prefix: "mema-locomo-" });
  const extraEnv = envArguments(values.env);
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", `${ROOT}/main.ts`, "serve"],
    env: {
      HOME: home,
      XDG_CACHE_HOME: `${home}/cache`,
      PATH: Deno.env.get("PATH") ?? "",
      MEMA_DB_PATH: `${home}/locomo.sqlite3`,
      MEMA_CLIENT: "bench",
      MEMA_AGENT_ID: "locomo",
      ...extraEnv,
    },
    stderr: "inherit",
  });
  const client = new Client({ name: "locomo-bench", version: "0" });
  await client.connect(transport);

  const scores: QuestionScore[] = [];
  /** The conversation of each score: R@10 per conversation is the per-fold figure. */
  const conversationOf: string[] = [];
  const queryMs: number[] = [];
  /** How many answers came in each mode (hybrid, lexical, …), and the warnings they gave. */
  const modes = new Map<string, number>();
  const warnings = new Set<string>();
  let stored = 0;
  let ingestMs = 0;
  let indexMs = 0;
  try {
    const maps = new Map<string, Map<number, string>>();
    for (const conversation of selected) {
      const idToDia = new Map<number, string>();
      maps.set(conversation.sample_id, idToDia);
      const started = performance.now();
      let previous: { session: number; id: number } | undefined;
      for (const { turn, time, session, content, diaId } of sessionTurns(conversation)) {
        const follows = !values["no-follows"] && previous?.session === session
          ? previous.id
          : undefined;
        const response = await call(client, "remember", {
          content,
          subject: `${turn.speaker} in session ${session}`,
          workspace: conversation.sample_id,
          event_time: time,
          source_type: "document_extracted",
          source_ref: `locomo:${conversation.sample_id}:${turn.dia_id}`,
          follows,
        });
        idToDia.set(response.data.memory_id, diaId);
        previous = { session, id: response.data.memory_id };
        stored++;
      }
      ingestMs += performance.now() - started;
    }
    // Vectors are embedded by the server's background job: wait until the index is complete.
    const waitStarted = performance.now();
    for (;;) {
      const status = await client.callTool({
        name: "memory_repair",
        arguments: { task: "semantic_control", data: { action: "status" } },
      });
      // deno-lint-ignore no-explicit-any
      const state = (status.structuredContent as any).data?.state;
      if (state !== "indexing") break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    indexMs = performance.now() - waitStarted;
    for (const conversation of selected) {
      const idToDia = maps.get(conversation.sample_id)!;
      for (const { question, category, evidence } of scoredQuestions(conversation)) {
        const t0 = performance.now();
        const response = await call(client, "find", {
          query: question.question,
          workspace: conversation.sample_id,
          workspace_only: true,
          limit: 10,
        });
        queryMs.push(performance.now() - t0);
        modes.set(response.mode, (modes.get(response.mode) ?? 0) + 1);
        for (const warning of response.warnings ?? []) warnings.add(warning);
        const ranked = (response.data.results as { memory_id: number }[]).map((r) =>
          idToDia.get(r.memory_id)
        );
        scores.push(scoreRanking(ranked, evidence, category));
        conversationOf.push(conversation.sample_id);
      }
    }
  } finally {
    await client.close();
    Deno.removeSync(home, { recursive: true });
  }

  const table = scoreTable(scores);
  const summary = {
    label: values.label,
    follows: !values["no-follows"],
    conversations: selected.map((c) => c.sample_id),
    memories: stored,
    ingest_per_s: Number((stored / (ingestMs / 1000)).toFixed(1)),
    index_wait_ms: Math.round(indexMs),
    query_p50_ms: Number(percentile(queryMs, 0.5).toFixed(2)),
    query_p95_ms: Number(percentile(queryMs, 0.95).toFixed(2)),
    modes: Object.fromEntries(modes),
    warnings: [...warnings],
    table,
    at: new Date().toISOString(),
  };
  console.log(
    `LoCoMo evidence recall (${values.label}), ${stored} memories, ${scores.length} questions`,
  );
  // The label is the caller's word; the answers say what actually ranked them.
  const answered = [...modes].map(([mode, n]) => `${mode} ${n}`).join(", ");
  console.log(`answers by mode: ${answered}`);
  for (const warning of warnings) console.log(`warning from the server: ${warning}`);
  if (extraEnv.MEMA_EMBEDDING_MODEL && !modes.has("hybrid")) {
    console.log(
      `MEMA_EMBEDDING_MODEL=${extraEnv.MEMA_EMBEDDING_MODEL} was asked for, but no answer used ` +
        "it: these are lexical figures (is the model installed where MEMA_MODELS_DIR points?)",
    );
  }
  console.log("| category | n | R@5 | R@10 | MRR |\n|---|---|---|---|---|");
  for (const row of table) {
    console.log(
      `| ${row.category} | ${row.n} | ${row.recall_at_5} | ${row.recall_at_10} | ${row.mrr} |`,
    );
  }
  const perConversation = selected.map((c) => {
    const own = scores.filter((_, index) => conversationOf[index] === c.sample_id);
    const r10 = own.reduce((sum, score) => sum + score.r10, 0) / Math.max(1, own.length);
    return `${c.sample_id} ${r10.toFixed(3)}`;
  });
  console.log(`R@10 per conversation: ${perConversation.join(", ")}`);
  console.log(
    `ingest ${summary.ingest_per_s} memories/s through MCP; vector index ready ${summary.index_wait_ms} ms after; find p50 ${summary.query_p50_ms} ms, p95 ${summary.query_p95_ms} ms`,
  );
  Deno.mkdirSync(`${ROOT}/bench/results`, { recursive: true });
  Deno.writeTextFileSync(
    `${ROOT}/bench/results/locomo_${values.label}.json`,
    JSON.stringify(summary, null, 2),
  );
}

if (import.meta.main) await main();
