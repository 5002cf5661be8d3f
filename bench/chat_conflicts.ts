/**
 * Chat stays quiet: every LoCoMo dev conversation is stored turn by turn (one workspace per
 * conversation, as bench/locomo_recall.ts does) and write-time conflict detection runs after
 * each turn, as the server's background job would. Prints conflicts opened per 100 turns
 * (issue 11's bar: at most 1) next to the rule stage's precision and recall on the project's
 * labelled corpus, so a change that quiets chat by losing real conflicts shows.
 *
 *   deno run -A bench/chat_conflicts.ts [--data PATH] [--model static-wink-100d]
 *
 * Writes bench/results/chat_conflicts.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { detectConflicts } from "../src/conflicts/detect.ts";
import { assessPair } from "../src/conflicts/rules.ts";
import { semanticNeighbours } from "../src/conflicts/neighbours.ts";
import { defaultStages } from "../src/conflicts/stages.ts";
import { SemanticIndex } from "../src/evidence/semantic.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { rememberMemory } from "../src/memory/remember.ts";
import { openStore } from "../src/store/mod.ts";
import { loadCorpus, scoreCorpus } from "../tests/conflicts/corpus.ts";
import { loadLocomo, LOCOMO_DEV, sessionTurns } from "./helpers/locomo.ts";
import { machineFacts, markdownTable, writeResult } from "./helpers/stats.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: LOCOMO_DEV },
    // With an embedding model, neighbours by meaning are compared too (as `serve` does).
    model: { type: "string" },
  },
});

const home = Deno.makeTempDirSync({ prefix: "mema-chat-" });
const store = await openStore(`${home}/chat.sqlite3`, {
  cacheDir: `${home}/cache`,
  skipVec: values.model === undefined,
});
const semantic = values.model
  ? new SemanticIndex(store, { modelId: values.model, modelsDir: `${home}/models` })
  : undefined;
const ctx: ServiceContext = {
  store,
  caller: { client: "bench", agentId: "chat-conflicts" },
  settings: { workspaceIsolation: "none", includeSize: false },
  events: composeMemoryEvents(),
};
const stages = defaultStages({
  vectors: semantic ? semanticNeighbours(store, semantic) : undefined,
});
const rows: Record<string, unknown>[] = [];
let turns = 0;
let opened = 0;
try {
  for (const conversation of loadLocomo(values.data!)) {
    let conversationTurns = 0;
    let conversationConflicts = 0;
    for (const { turn, time, session, content } of sessionTurns(conversation)) {
      const { memoryId, duplicateReplay } = await rememberMemory(ctx, {
        content,
        subject: `${turn.speaker} in session ${session}`,
        workspace: conversation.sample_id,
        eventTime: time,
      });
      conversationTurns++;
      if (duplicateReplay) continue;
      await semantic?.embedPendingRows();
      const report = await detectConflicts(ctx, memoryId, stages);
      conversationConflicts += report.recorded.length;
      if (Deno.env.get("SHOW")) {
        for (const id of report.recorded) {
          const c = (await store.conflicts.get(id))!;
          console.log(
            JSON.stringify(c.members.map((m) => m.row_text)),
            JSON.stringify(
              (c as unknown as { detection?: { rule?: unknown } }).detection?.rule ?? "",
            ),
          );
        }
      }
    }
    rows.push({
      conversation: conversation.sample_id,
      turns: conversationTurns,
      conflicts_opened: conversationConflicts,
      per_100_turns: Number((conversationConflicts / conversationTurns * 100).toFixed(2)),
    });
    turns += conversationTurns;
    opened += conversationConflicts;
  }
} finally {
  await semantic?.unload();
  store.close();
  Deno.removeSync(home, { recursive: true });
}
const corpus = scoreCorpus((await loadCorpus()).filter((pair) => pair.half === "held"), assessPair)
  .overall;
const summary = {
  model: values.model ?? null,
  turns,
  conflicts_opened: opened,
  per_100_turns: Number((opened / turns * 100).toFixed(2)),
  corpus_precision: corpus.precision,
  corpus_recall: corpus.recall,
};
console.log(markdownTable(rows));
console.log(
  `\n${opened} conflicts opened over ${turns} turns: ${summary.per_100_turns} per 100 turns; ` +
    `held-half corpus precision ${corpus.precision.toFixed(3)}, recall ${corpus.recall.toFixed(3)}`,
);
console.log(`wrote ${writeResult("chat_conflicts", { machine: machineFacts(), summary, rows })}`);
