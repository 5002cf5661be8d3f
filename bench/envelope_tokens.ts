/**
 * What an answer costs an agent: envelope characters and `size.tokens_estimate` per `find`,
 * through the real MCP server over stdio.
 *
 * 1. Eight short facts, one `find` that returns all eight (the example): the envelope's
 *    JSON text against the content characters it carries.
 * 2. The LoCoMo dev questions: every turn stored with `remember`, every non-adversarial
 *    question asked with `find` (limit 10, default content mode), and the characters and
 *    tokens of each answer (mean, p50, p95), plus the first answer of the connection apart
 *    (it carries the standing notices).
 *
 *   deno run -A bench/envelope_tokens.ts [--data PATH] [--conversations N] [--label NAME]
 *     [--content-mode preview|hits|full]
 *
 * @module
 */
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadLocomo, LOCOMO_DEV, scoredQuestions, sessionTurns } from "./helpers/locomo.ts";
import { percentile, ROOT } from "./helpers/stats.ts";

/** The example: eight short facts about one service. */
const SHORT_FACTS = [
  "The billing API listens on port 8080.",
  "Billing deploys run on Tuesdays after 14:00 UTC.",
  "The billing database is PostgreSQL 16.",
  "Billing alerts go to the #billing-oncall channel.",
  "The billing service is owned by the payments team.",
  "Billing invoices are generated nightly at 02:00.",
  "The billing staging URL is billing.staging.example.com.",
  "Billing uses Stripe for card payments.",
];

interface Answer {
  text: string;
  // deno-lint-ignore no-explicit-any
  envelope: any;
}

async function callTool(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
): Promise<Answer> {
  const result = await client.callTool({ name: tool, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0].text;
  // deno-lint-ignore no-explicit-any
  const envelope = result.structuredContent as any;
  if (!envelope.ok) throw new Error(`${tool} failed: ${text}`);
  return { text, envelope };
}

function contentChars(envelope: Answer["envelope"]): number {
  // deno-lint-ignore no-explicit-any
  return (envelope.data.results as any[]).reduce(
    (sum, result) =>
      sum + (result.subject?.length ?? 0) + (result.content?.length ?? 0) +
      // deno-lint-ignore no-explicit-any
      (result.hit_spans ?? []).reduce((s: number, span: any) => s + span.text.length, 0),
    0,
  );
}

function estimate(text: string): number {
  return Math.ceil(text.length / 4);
}

async function connect(home: string, name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", `${ROOT}/main.ts`, "serve"],
    env: {
      HOME: home,
      XDG_CACHE_HOME: `${home}/cache`,
      XDG_CONFIG_HOME: `${home}/config`,
      PATH: Deno.env.get("PATH") ?? "",
      MEMA_DB_PATH: `${home}/${name}.sqlite3`,
      MEMA_CLIENT: "bench",
      MEMA_AGENT_ID: "envelope",
    },
    stderr: "inherit",
  });
  const client = new Client({ name: "envelope-bench", version: "0" });
  await client.connect(transport);
  return client;
}

async function shortFacts(home: string, contentMode: string) {
  const client = await connect(home, "short");
  try {
    for (const content of SHORT_FACTS) {
      await callTool(client, "memory", {
        action: "remember",
        data: { content, subject: "billing service", workspace: "billing" },
      });
    }
    const answer = await callTool(client, "memory", {
      action: "find",
      data: { query: "billing", workspace: "billing", limit: 10, content_mode: contentMode },
    });
    const content = contentChars(answer.envelope);
    return {
      results: answer.envelope.data.results.length,
      content_chars: content,
      envelope_chars: answer.text.length,
      ratio: Number((answer.text.length / content).toFixed(2)),
      tokens_estimate: answer.envelope.data.size?.tokens_estimate ?? null,
      envelope_tokens: estimate(answer.text),
      sample: answer.text,
    };
  } finally {
    await client.close();
  }
}

async function locomo(home: string, path: string, conversations: number | undefined, mode: string) {
  const data = loadLocomo(path);
  const selected = conversations ? data.slice(0, conversations) : data;
  const client = await connect(home, "locomo");
  const envelopeChars: number[] = [];
  const tokens: number[] = [];
  const content: number[] = [];
  let first: { envelope_chars: number; warnings: number } | undefined;
  try {
    for (const conversation of selected) {
      let previous: { session: number; id: number } | undefined;
      for (const { turn, time, session, content: text } of sessionTurns(conversation)) {
        const stored = await callTool(client, "memory", {
          action: "remember",
          data: {
            content: text,
            subject: `${turn.speaker} in session ${session}`,
            workspace: conversation.sample_id,
            event_time: time,
            source_type: "document_extracted",
            source_ref: `locomo:${conversation.sample_id}:${turn.dia_id}`,
            follows: previous?.session === session ? previous.id : undefined,
          },
        });
        previous = { session, id: stored.envelope.data.memory_id };
      }
    }
    for (const conversation of selected) {
      for (const { question } of scoredQuestions(conversation)) {
        const answer = await callTool(client, "memory", {
          action: "find",
          data: {
            query: question.question,
            workspace: conversation.sample_id,
            workspace_only: true,
            limit: 10,
            content_mode: mode,
          },
        });
        envelopeChars.push(answer.text.length);
        tokens.push(answer.envelope.data.size?.tokens_estimate ?? estimate(answer.text));
        content.push(contentChars(answer.envelope));
      }
    }
    // A new connection's first answer carries the standing notices once.
    const fresh = await connect(home, "locomo");
    try {
      const answer = await callTool(fresh, "memory", {
        action: "find",
        data: { query: "where did they go camping", limit: 10, content_mode: mode },
      });
      first = { envelope_chars: answer.text.length, warnings: answer.envelope.warnings.length };
    } finally {
      await fresh.close();
    }
  } finally {
    await client.close();
  }
  const mean = (values: number[]) =>
    Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length));
  return {
    conversations: selected.map((c) => c.sample_id),
    questions: envelopeChars.length,
    envelope_chars: {
      mean: mean(envelopeChars),
      p50: percentile(envelopeChars, 0.5),
      p95: percentile(envelopeChars, 0.95),
    },
    tokens_estimate: { mean: mean(tokens), p50: percentile(tokens, 0.5) },
    envelope_tokens_mean: mean(envelopeChars.map((chars) => Math.ceil(chars / 4))),
    content_chars_mean: mean(content),
    envelope_per_content: Number((mean(envelopeChars) / Math.max(1, mean(content))).toFixed(2)),
    first_answer_of_a_connection: first,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: LOCOMO_DEV },
      conversations: { type: "string" },
      label: { type: "string", default: "current" },
      "content-mode": { type: "string", default: "preview" },
      "short-only": { type: "boolean", default: false },
    },
  });
  const home = Deno.makeTempDirSync({ prefix: "mema-envelope-" });
  try {
    const mode = values["content-mode"];
    const short = await shortFacts(home, mode);
    console.log(
      `8 short facts (${mode}): ${short.content_chars} content chars in a ${short.envelope_chars}-char envelope (${short.ratio}×), tokens_estimate ${short.tokens_estimate}, envelope ≈ ${short.envelope_tokens} tokens`,
    );
    const summary: Record<string, unknown> = { label: values.label, content_mode: mode, short };
    if (!values["short-only"]) {
      const conversations = values.conversations ? Number(values.conversations) : undefined;
      const dev = await locomo(home, values.data, conversations, mode);
      summary.locomo = dev;
      console.log(
        `LoCoMo dev, ${dev.questions} questions (${mode}, limit 10): envelope mean ${dev.envelope_chars.mean} chars (p50 ${dev.envelope_chars.p50}, p95 ${dev.envelope_chars.p95}), ≈ ${dev.envelope_tokens_mean} tokens; size.tokens_estimate mean ${dev.tokens_estimate.mean}; content ${dev.content_chars_mean} chars (${dev.envelope_per_content}×); first answer of a connection ${dev.first_answer_of_a_connection?.envelope_chars} chars with ${dev.first_answer_of_a_connection?.warnings} warning(s)`,
      );
    }
    summary.at = new Date().toISOString();
    Deno.mkdirSync(`${ROOT}/bench/results`, { recursive: true });
    Deno.writeTextFileSync(
      `${ROOT}/bench/results/envelope_${values.label}_${mode}.json`,
      JSON.stringify(summary, null, 2),
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
}

if (import.meta.main) await main();
