/**
 * LoCoMo side by side: mema against `@modelcontextprotocol/server-memory` (the reference MCP
 * memory server, a knowledge graph in a JSONL file) in the same run, on the same machine.
 *
 * Both store every dialogue turn and answer every scored question; recall@5/@10 and MRR are
 * computed the same way (bench/helpers/locomo.ts), and latencies are per MCP call.
 *
 * - mema: `remember` per turn (workspace = conversation), `find` with the question
 *   (`workspace_only`, limit 10), as bench/locomo_recall.ts does.
 * - peer: `create_entities` per turn (one entity per turn, named `<conversation>:<dia id>`, the
 *   turn text as its observation, so results map back to turns), then `search_nodes`. Its
 *   search is a case-insensitive substring match of the whole query, returned in storage
 *   order, so two query styles are scored:
 *   - `question`: the question as the query (what an agent passes by default);
 *   - `keywords`: one `search_nodes` per content word of the question, ranked on the client by
 *     how many words matched (what a careful agent would do with a substring tool). Its
 *     latency is the sum of the calls for one question.
 *
 *   deno run -A bench/locomo_peer.ts [--data PATH] [--conversations N] [--peer-version V]
 *
 * Needs the npm registry for the peer (`npx -y @modelcontextprotocol/server-memory@V`).
 * Prints both tables and the ratios; writes bench/results/locomo_peer.json.
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type Conversation,
  loadLocomo,
  LOCOMO_DEV,
  type QuestionScore,
  scoredQuestions,
  scoreRanking,
  scoreTable,
  sessionTurns,
} from "./helpers/locomo.ts";
import { envArguments, startMemaServer } from "./helpers/mcp_server.ts";
import {
  machineFacts,
  markdownTable,
  peakRssBytes,
  summarize,
  timedAsync,
  writeResult,
} from "./helpers/stats.ts";

/** The peer's version on npm when this benchmark was written. */
const PEER_VERSION = "2026.8.31";

/** Words too common to search for on their own (the keyword strategy). */
const STOPWORDS = new Set(
  ("a an and are as at be by did do does for from had has have he her his how i in is it its " +
    "of on or she that the their them they this to was were what when where which who whom " +
    "why will with would you your about after before during")
    .split(" "),
);

interface SystemRun {
  scores: Record<string, QuestionScore[]>;
  storeMs: number[];
  queryMs: Record<string, number[]>;
  items: number;
  peakRssMb?: number;
}

async function runMema(conversations: Conversation[], env: Record<string, string>) {
  const home = Deno.makeTempDirSync({ prefix: "mema-peer-mema-" });
  const server = await startMemaServer({ home, dbPath: `${home}/locomo.sqlite3`, env });
  const run: SystemRun = { scores: { find: [] }, storeMs: [], queryMs: { find: [] }, items: 0 };
  try {
    for (const conversation of conversations) {
      const idToDia = new Map<number, string>();
      for (const turn of sessionTurns(conversation)) {
        const { value, ms } = await timedAsync(() =>
          server.call("memory", "remember", {
            content: turn.content,
            subject: `${turn.turn.speaker} in session ${turn.session}`,
            workspace: conversation.sample_id,
            event_time: turn.time,
            source_type: "document_extracted",
            source_ref: `locomo:${conversation.sample_id}:${turn.turn.dia_id}`,
          })
        );
        run.storeMs.push(ms);
        idToDia.set(value.data.memory_id, turn.diaId);
        run.items++;
      }
      await server.waitForIndex();
      for (const { question, category, evidence } of scoredQuestions(conversation)) {
        const { value, ms } = await timedAsync(() =>
          server.call("memory", "find", {
            query: question.question,
            workspace: conversation.sample_id,
            workspace_only: true,
            limit: 10,
          })
        );
        run.queryMs.find.push(ms);
        const ranked = (value.data.results as { memory_id: number }[]).map((r) =>
          idToDia.get(r.memory_id)
        );
        run.scores.find.push(scoreRanking(ranked, evidence, category));
      }
    }
    const rss = server.peakRss();
    run.peakRssMb = rss === undefined ? undefined : Number((rss / 2 ** 20).toFixed(1));
  } finally {
    await server.close();
    Deno.removeSync(home, { recursive: true });
  }
  return run;
}

interface PeerEntity {
  name: string;
  observations: string[];
}

async function runPeer(conversations: Conversation[], version: string): Promise<SystemRun> {
  const dir = Deno.makeTempDirSync({ prefix: "mema-peer-reference-" });
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["-y", `@modelcontextprotocol/server-memory@${version}`],
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? dir,
      MEMORY_FILE_PATH: `${dir}/memory.jsonl`,
      ...Object.fromEntries(
        ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "npm_config_registry"].flatMap((name) => {
          const value = Deno.env.get(name);
          return value ? [[name, value]] : [];
        }),
      ),
    },
    stderr: "ignore",
  });
  const client = new Client({ name: "locomo-peer-bench", version: "0" });
  await client.connect(transport);
  // deno-lint-ignore no-explicit-any
  const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    if (result.structuredContent) return result.structuredContent;
    const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "null";
    return JSON.parse(text);
  };
  const run: SystemRun = {
    scores: { question: [], keywords: [] },
    storeMs: [],
    queryMs: { question: [], keywords: [] },
    items: 0,
  };
  const search = async (query: string): Promise<PeerEntity[]> => {
    const graph = await call("search_nodes", { query });
    return (graph.entities ?? []) as PeerEntity[];
  };
  try {
    for (const conversation of conversations) {
      const prefix = `${conversation.sample_id}:`;
      for (const turn of sessionTurns(conversation)) {
        const { ms } = await timedAsync(() =>
          call("create_entities", {
            entities: [{
              name: `${prefix}${turn.diaId}`,
              entityType: "dialogue_turn",
              observations: [turn.content],
            }],
          })
        );
        run.storeMs.push(ms);
        run.items++;
      }
      const turnOf = (entity: PeerEntity) =>
        entity.name.startsWith(prefix) ? entity.name.slice(prefix.length) : undefined;
      for (const { question, category, evidence } of scoredQuestions(conversation)) {
        const whole = await timedAsync(() => search(question.question));
        run.queryMs.question.push(whole.ms);
        const ranked = whole.value.map(turnOf).filter((id) => id !== undefined);
        run.scores.question.push(scoreRanking(ranked, evidence, category));

        const words = [
          ...new Set(
            (question.question.toLowerCase().match(/[a-z0-9']+/g) ?? [])
              .filter((word) => word.length > 2 && !STOPWORDS.has(word)),
          ),
        ];
        const matches = new Map<string, { count: number; first: number }>();
        let order = 0;
        const started = performance.now();
        for (const word of words) {
          for (const entity of await search(word)) {
            const id = turnOf(entity);
            if (id === undefined) continue;
            const entry = matches.get(id) ?? { count: 0, first: order++ };
            entry.count++;
            matches.set(id, entry);
          }
        }
        run.queryMs.keywords.push(performance.now() - started);
        const byKeywords = [...matches].sort((a, b) =>
          b[1].count - a[1].count || a[1].first - b[1].first
        ).map(([id]) => id);
        run.scores.keywords.push(scoreRanking(byKeywords, evidence, category));
      }
    }
    const rss = transport.pid ? peakRssBytes(transport.pid) : undefined;
    run.peakRssMb = rss === undefined ? undefined : Number((rss / 2 ** 20).toFixed(1));
  } finally {
    await client.close();
    Deno.removeSync(dir, { recursive: true });
  }
  return run;
}

function ratio(a: number, b: number): string {
  if (b === 0) return a === 0 ? "=" : "∞";
  return `${(a / b).toFixed(2)}×`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: LOCOMO_DEV },
      conversations: { type: "string" },
      "peer-version": { type: "string", default: PEER_VERSION },
      env: { type: "string", multiple: true, default: [] },
      label: { type: "string", default: "locomo_peer" },
    },
    strict: true,
  });
  const data = loadLocomo(values.data);
  const selected = values.conversations ? data.slice(0, Number(values.conversations)) : data;
  const env = envArguments(values.env);
  console.error("running mema…");
  const mema = await runMema(selected, env);
  console.error("running the peer…");
  const peer = await runPeer(selected, values["peer-version"]);

  const systems = [
    { name: "mema find", run: mema, key: "find" },
    { name: "server-memory, question", run: peer, key: "question" },
    { name: "server-memory, keywords", run: peer, key: "keywords" },
  ];
  const tables = systems.map(({ name, run, key }) => ({
    name,
    table: scoreTable(run.scores[key]),
    query_ms: summarize(run.queryMs[key]),
    store_ms: summarize(run.storeMs),
    peak_rss_mb: run.peakRssMb,
  }));
  for (const { name, table, query_ms, store_ms } of tables) {
    console.log(`\n${name}: ${table[0].n} questions`);
    console.log(markdownTable(table));
    console.log(
      `store p50/p95 ${store_ms.p50}/${store_ms.p95} ms; query p50/p95 ${query_ms.p50}/${query_ms.p95} ms`,
    );
  }
  const overall = (index: number) => tables[index].table[0];
  const ratios = [1, 2].map((index) => ({
    "mema vs": tables[index].name,
    "R@5": ratio(overall(0).recall_at_5, overall(index).recall_at_5),
    "R@10": ratio(overall(0).recall_at_10, overall(index).recall_at_10),
    MRR: ratio(overall(0).mrr, overall(index).mrr),
    "query p50 (lower is faster)": ratio(tables[0].query_ms.p50, tables[index].query_ms.p50),
    "store p50": ratio(tables[0].store_ms.p50, tables[index].store_ms.p50),
  }));
  console.log("\nmema / server-memory (overall; quality >1× means mema is better)");
  console.log(markdownTable(ratios));
  const path = writeResult(values.label, {
    machine: machineFacts(),
    conversations: selected.map((c) => c.sample_id),
    turns: mema.items,
    peer: `@modelcontextprotocol/server-memory@${values["peer-version"]}`,
    mema_env: env,
    systems: tables,
    ratios,
  });
  console.log(`\nwrote ${path}`);
}

if (import.meta.main) await main();
