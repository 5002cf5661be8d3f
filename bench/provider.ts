/**
 * What an embedding provider (the user's own model server) costs and what its outage costs,
 * through MCP. The server is the tests' local OpenAI-compatible fake
 * (tests/helpers/embedding_server.ts: hashed word vectors, answers in well under a millisecond),
 * so the figures are mema's own overhead around a provider (HTTP, JSON, batching), not a real
 * model's speed: a real server adds its inference time per batch.
 *
 * For one LoCoMo library (bench/helpers/locomo_library.ts) it prints:
 * - the backlog drain: memories embedded per second through the provider (`batch_size` 64);
 * - `find` p50/p95/max over the library's questions (each list run once to warm up first) with
 *   the provider up (hybrid), hung (accepting, never answering; `query_timeout_ms` 500: the find
 *   that finds out waits that long, the next ones until the retry time do not ask) and refusing
 *   connections, each beside lexical `find` on the same library in the same run (the ratio is
 *   the figure to read).
 *
 *   deno task bench:provider [--size 2000] [--queries 100] [--seed 7]
 *
 * Writes bench/results/provider.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { startFakeEmbeddingServer } from "../tests/helpers/embedding_server.ts";
import { buildLocomoLibrary } from "./helpers/locomo_library.ts";
import { startMemaServer } from "./helpers/mcp_server.ts";
import { machineFacts, markdownTable, summarize, writeResult } from "./helpers/stats.ts";

const BATCH = 500;
const QUERY_TIMEOUT_MS = 500;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    size: { type: "string", default: "2000" },
    queries: { type: "string", default: "100" },
    seed: { type: "string", default: "7" },
  },
});
const size = Number(values.size);
const library = buildLocomoLibrary({ size, extra: 0, seed: Number(values.seed) });
const queries = library.queries.slice(0, Number(values.queries));
const fake = startFakeEmbeddingServer();
const home = Deno.makeTempDirSync({ prefix: "mema-provider-bench-" });
Deno.mkdirSync(`${home}/config/mema`, { recursive: true });
Deno.writeTextFileSync(
  `${home}/config/mema/config.json`,
  JSON.stringify({
    embedding_provider: {
      url: fake.url,
      model: "fake-embed",
      batch_size: 64,
      query_timeout_ms: QUERY_TIMEOUT_MS,
    },
  }),
);
const dbPath = `${home}/provider.sqlite3`;

async function findLatencies(
  server: Awaited<ReturnType<typeof startMemaServer>>,
): Promise<{ ms: number[]; modes: Record<string, number> }> {
  const ms: number[] = [];
  const modes: Record<string, number> = {};
  for (const query of queries) {
    const started = performance.now();
    const envelope = await server.call("memory", "find", { query, limit: 10 });
    ms.push(performance.now() - started);
    modes[envelope.mode] = (modes[envelope.mode] ?? 0) + 1;
  }
  return { ms, modes };
}

const rows: Record<string, unknown>[] = [];
const server = await startMemaServer({ home, dbPath });
try {
  const ingestStarted = performance.now();
  for (let i = 0; i < library.memories.length; i += BATCH) {
    await server.call("memory", "batch_remember", {
      items: library.memories.slice(i, i + BATCH).map((memory) => ({
        content: memory.content,
        subject: memory.subject,
        workspace: "locomo",
        tags: memory.tags,
        event_time: memory.eventTime,
      })),
    });
  }
  const ingestMs = performance.now() - ingestStarted;
  const drainStarted = performance.now();
  const state = await server.waitForIndex();
  const drainMs = performance.now() - drainStarted;
  await server.waitForJobs();
  const texts = fake.requests.reduce((sum, request) => sum + request.inputs.length, 0);
  console.error(
    `ingest ${(ingestMs / 1000).toFixed(1)} s; index ${state} after ${
      (drainMs / 1000).toFixed(1)
    } s; ${fake.requests.length} requests, ${texts} texts`,
  );
  rows.push({
    measure: "backlog drain through the provider",
    value: `${Math.round(size / drainMs * 1000)} memories/s`,
    detail: `${fake.requests.length} requests, ${texts} texts, batch 64`,
  });
  await findLatencies(server); // warm: the vector copy loads, query words are cached
  const up = await findLatencies(server);
  fake.breakWith({ hangMs: 60_000 });
  const hung = await findLatencies(server);
  fake.heal();
  await fake.stop();
  const refused = await findLatencies(server);
  const scenarios = { "provider up": up, "provider hung": hung, "provider refusing": refused };
  await server.close();
  // Lexical on the same library, same run: the provider switched off for this process.
  const lexicalServer = await startMemaServer({
    home,
    dbPath,
    env: { MEMA_EMBEDDING_PROVIDER_URL: "none" },
  });
  await findLatencies(lexicalServer); // warm, as the provider's process was
  const lexical = await findLatencies(lexicalServer);
  await lexicalServer.close();
  const lexicalP50 = summarize(lexical.ms).p50;
  for (const [name, sample] of Object.entries({ ...scenarios, "lexical (no provider)": lexical })) {
    const summary = summarize(sample.ms);
    rows.push({
      measure: `find, ${name}`,
      value: `p50 ${summary.p50} ms, p95 ${summary.p95} ms, max ${summary.max} ms`,
      detail: `${(summary.p50 / lexicalP50).toFixed(2)}× lexical p50; modes ${
        JSON.stringify(sample.modes)
      }`,
    });
  }
} finally {
  await fake.stop().catch(() => {});
  Deno.removeSync(home, { recursive: true });
}
console.log(markdownTable(rows));
console.log(
  `wrote ${
    writeResult("provider", {
      machine: machineFacts(),
      size,
      queries: queries.length,
      query_timeout_ms: QUERY_TIMEOUT_MS,
      rows,
    })
  }`,
);
