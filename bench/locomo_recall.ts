/**
 * LoCoMo evidence-recall benchmark, run through the real MCP server.
 *
 * Every dialogue turn of each conversation is stored as one memory with
 * `remember` (workspace = the conversation id, event_time = the session date),
 * then every non-adversarial question is asked with `find` (limit 10). A
 * question's recall@k is the share of its evidence turns among the top k;
 * MRR uses the rank of the first evidence turn. Prints per-category tables
 * and writes JSON to bench/results/.
 *
 *   deno run -A bench/locomo_recall.ts [--data PATH] [--conversations N] [--label NAME]
 *
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Question {
  question: string;
  evidence: string[];
  category: number;
}
interface Conversation {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Question[];
}

const CATEGORY: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};

const ROOT = new URL("../", import.meta.url).pathname;
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → ISO, or undefined. */
function sessionTime(text: string): string | undefined {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text);
  if (!match) return undefined;
  let hour = Number(match[1]) % 12;
  if (match[3].toLowerCase() === "pm") hour += 12;
  const month = MONTHS.indexOf(match[5].toLowerCase());
  if (month < 0) return undefined;
  return new Date(Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2])))
    .toISOString();
}

/** Evidence ids are sometimes malformed ("D:11:26", "D30:05"): normalize to "D<s>:<t>". */
function normalizeDiaId(id: string): string {
  const numbers = id.match(/\d+/g);
  if (!numbers || numbers.length < 2) return id.trim();
  return `D${Number(numbers[0])}:${Number(numbers[1])}`;
}

function turns(conversation: Conversation): { turn: Turn; time?: string; session: number }[] {
  const out: { turn: Turn; time?: string; session: number }[] = [];
  const c = conversation.conversation;
  for (let session = 1; Array.isArray(c[`session_${session}`]); session++) {
    const time = sessionTime(String(c[`session_${session}_date_time`] ?? ""));
    for (const turn of c[`session_${session}`] as Turn[]) out.push({ turn, time, session });
  }
  return out;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

// deno-lint-ignore no-explicit-any
async function call(client: Client, action: string, data: unknown): Promise<any> {
  const result = await client.callTool({ name: "memory", arguments: { action, data } });
  // deno-lint-ignore no-explicit-any
  const envelope = result.structuredContent as any;
  if (!envelope.ok) throw new Error(`${action} failed: ${JSON.stringify(envelope.data)}`);
  return envelope;
}

interface Score {
  category: string;
  r5: number;
  r10: number;
  rr: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: `${ROOT}../shared/bench/locomo/locomo-dev.json` },
      conversations: { type: "string" },
      label: { type: "string", default: "lexical" },
      env: { type: "string", multiple: true, default: [] },
    },
  });
  const data = JSON.parse(Deno.readTextFileSync(values.data)) as Conversation[];
  const selected = values.conversations ? data.slice(0, Number(values.conversations)) : data;
  const home = Deno.makeTempDirSync({ prefix: "mema-locomo-" });
  const extraEnv = Object.fromEntries(values.env.map((pair) => pair.split("=", 2)));
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", `${ROOT}main.ts`, "serve"],
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

  const scores: Score[] = [];
  const queryMs: number[] = [];
  let stored = 0;
  let ingestMs = 0;
  let indexMs = 0;
  try {
    const maps = new Map<string, Map<number, string>>();
    for (const conversation of selected) {
      const idToDia = new Map<number, string>();
      maps.set(conversation.sample_id, idToDia);
      const started = performance.now();
      for (const { turn, time, session } of turns(conversation)) {
        const content = turn.blip_caption
          ? `${turn.speaker}: ${turn.text} [shared a photo: ${turn.blip_caption}]`
          : `${turn.speaker}: ${turn.text}`;
        const response = await call(client, "remember", {
          content,
          subject: `${turn.speaker} in session ${session}`,
          workspace: conversation.sample_id,
          event_time: time,
          source_type: "document_extracted",
          source_ref: `locomo:${conversation.sample_id}:${turn.dia_id}`,
        });
        idToDia.set(response.data.memory_id, normalizeDiaId(turn.dia_id));
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
      for (const qa of conversation.qa) {
        if (qa.category === 5 || !CATEGORY[qa.category]) continue;
        const evidence = new Set(qa.evidence.map(normalizeDiaId));
        if (evidence.size === 0) continue;
        const t0 = performance.now();
        const response = await call(client, "find", {
          query: qa.question,
          workspace: conversation.sample_id,
          workspace_only: true,
          limit: 10,
        });
        queryMs.push(performance.now() - t0);
        const ranked = (response.data.results as { memory_id: number }[]).map((r) =>
          idToDia.get(r.memory_id)
        );
        const hitsAt = (k: number) => ranked.slice(0, k).filter((d) => d && evidence.has(d)).length;
        const first = ranked.findIndex((d) => d !== undefined && evidence.has(d));
        scores.push({
          category: CATEGORY[qa.category],
          r5: hitsAt(5) / evidence.size,
          r10: hitsAt(10) / evidence.size,
          rr: first < 0 ? 0 : 1 / (first + 1),
        });
      }
    }
  } finally {
    await client.close();
    Deno.removeSync(home, { recursive: true });
  }

  const groups = new Map<string, Score[]>([["overall", scores]]);
  for (const score of scores) {
    groups.set(score.category, [...(groups.get(score.category) ?? []), score]);
  }
  const mean = (list: Score[], key: keyof Omit<Score, "category">) =>
    list.reduce((sum, s) => sum + s[key], 0) / list.length;
  const table = [...groups].map(([name, list]) => ({
    category: name,
    n: list.length,
    recall_at_5: Number(mean(list, "r5").toFixed(4)),
    recall_at_10: Number(mean(list, "r10").toFixed(4)),
    mrr: Number(mean(list, "rr").toFixed(4)),
  }));
  const summary = {
    label: values.label,
    conversations: selected.map((c) => c.sample_id),
    memories: stored,
    ingest_per_s: Number((stored / (ingestMs / 1000)).toFixed(1)),
    index_wait_ms: Math.round(indexMs),
    query_p50_ms: Number(percentile(queryMs, 0.5).toFixed(2)),
    query_p95_ms: Number(percentile(queryMs, 0.95).toFixed(2)),
    table,
    at: new Date().toISOString(),
  };
  console.log(
    `LoCoMo evidence recall (${values.label}), ${stored} memories, ${scores.length} questions`,
  );
  console.log("| category | n | R@5 | R@10 | MRR |\n|---|---|---|---|---|");
  for (const row of table) {
    console.log(
      `| ${row.category} | ${row.n} | ${row.recall_at_5} | ${row.recall_at_10} | ${row.mrr} |`,
    );
  }
  console.log(
    `ingest ${summary.ingest_per_s} memories/s through MCP; vector index ready ${summary.index_wait_ms} ms after; find p50 ${summary.query_p50_ms} ms, p95 ${summary.query_p95_ms} ms`,
  );
  Deno.mkdirSync(`${ROOT}bench/results`, { recursive: true });
  Deno.writeTextFileSync(
    `${ROOT}bench/results/locomo_${values.label}.json`,
    JSON.stringify(summary, null, 2),
  );
}

if (import.meta.main) await main();
