/**
 * LoCoMo recall levers, in process: the dev conversations are stored once (every turn a
 * memory, `follows` = the previous turn of its session, as bench/locomo_recall.ts does
 * through MCP), then every question is asked with `find` under each lever setting. Prints
 * R@10 per conversation and per category for the shipped setting, the ablation (each lever
 * switched off in turn; "no follows" switches the sequence carry off) and, for each
 * lever's value grid, the leave-one-conversation-out choice: for each conversation, the
 * value the other two conversations score best, and what it scores on the one left out.
 *
 *   deno run -A bench/locomo_levers.ts [--data PATH] [--grid] [--misses FILE]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { rememberMemory } from "../src/memory/remember.ts";
import { findMemories } from "../src/recall/find.ts";
import { DEFAULT_TUNING, type RecallTuning } from "../src/recall/tuning.ts";
import { openStore } from "../src/store/mod.ts";
import type { ServiceContext } from "../src/core/context.ts";
import {
  loadLocomo,
  LOCOMO_DEV,
  type QuestionScore,
  scoredQuestions,
  scoreRanking,
  scoreTable,
  sessionTurns,
} from "./helpers/locomo.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";

/** One asked question and where its score comes from. */
export interface Asked {
  conversation: string;
  question: string;
  category: string;
  evidence: Set<string>;
}

/** Each lever's "off" value: the ablation. */
const ABLATION: [string, Partial<RecallTuning>][] = [
  ["follows hop 2", { followsHops: 1 }],
  ["follows through hits", { followsThroughHits: false }],
  ["dates", { dateWeight: 0 }],
  ["verb forms", { verbFormWeight: 0 }],
  ["word pool", { wordPool: false }],
  ["spelling", { spellingWeight: 0 }],
];

/** The sequence carry off: the "without follows" figures. */
const NO_FOLLOWS: Partial<RecallTuning> = { followsCarry: 0 };

/** Values tried per lever for the leave-one-conversation-out choice. */
const GRID: [string, Partial<RecallTuning>[]][] = [
  ["follows carry", [0.6, 0.7, 0.8, 0.9].map((share) => ({ followsCarry: share }))],
  [
    "follows hops",
    [
      { followsHops: 1 },
      ...[2, 3].flatMap((hops) =>
        [0.5, 0.7, 0.85].map((share) => ({ followsHops: hops, followsHopShare: share }))
      ),
    ],
  ],
  ["follows through hits", [false, true].map((on) => ({ followsThroughHits: on }))],
  ["dates", [0, 0.2, 0.4, 0.8, 1.2, 2].map((weight) => ({ dateWeight: weight }))],
  ["verb forms", [0, 0.5, 0.75, 1].map((weight) => ({ verbFormWeight: weight }))],
  ["spelling", [0, 0.25, 0.5, 0.75, 1].map((weight) => ({ spellingWeight: weight }))],
];

/** Stores the dev conversations once (shared with bench/locomo_vectors.ts). */
export async function buildLibrary(path: string) {
  const data = loadLocomo(path);
  const dir = Deno.makeTempDirSync({ prefix: "mema-levers-" });
  const store = await openStore(`${dir}/locomo.sqlite3`, { cacheDir: `${dir}/cache` });
  const ctx: ServiceContext = {
    store,
    caller: { client: "bench", agentId: "locomo" },
    settings: { workspaceIsolation: "none", includeSize: true },
    events: composeMemoryEvents(),
  };
  const dia = new Map<number, string>();
  const asked: Asked[] = [];
  for (const conversation of data) {
    let previous: { session: number; id: number } | undefined;
    for (const { turn, time, session, content, diaId } of sessionTurns(conversation)) {
      const follows = previous?.session === session ? previous.id : undefined;
      const { memoryId } = await rememberMemory(ctx, {
        content,
        subject: `${turn.speaker} in session ${session}`,
        workspace: conversation.sample_id,
        eventTime: time,
        sourceType: "document_extracted",
        sourceRef: `locomo:${conversation.sample_id}:${turn.dia_id}`,
        follows,
      });
      dia.set(memoryId, diaId);
      previous = { session, id: memoryId };
    }
    for (const { question, category, evidence } of scoredQuestions(conversation)) {
      asked.push({
        conversation: conversation.sample_id,
        question: question.question,
        category,
        evidence,
      });
    }
  }
  const cleanup = () => {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  };
  return { ctx, dia, asked, conversations: data.map((c) => c.sample_id), cleanup };
}

export type Library = Awaited<ReturnType<typeof buildLibrary>>;

/** The vector channel of a run: a query vector per question and the similarity floor. */
export interface VectorChannel {
  embed: (query: string) => Promise<Float32Array | undefined>;
  floor: number;
}

/** Scores every question under one setting (hybrid when `vectors` is given). */
export async function run(
  library: Library,
  tuning: Partial<RecallTuning>,
  vectors?: VectorChannel,
): Promise<(QuestionScore & Asked)[]> {
  const scores: (QuestionScore & Asked)[] = [];
  for (const item of library.asked) {
    const page = await findMemories(library.ctx, {
      query: item.question,
      workspace: item.conversation,
      workspaceOnly: true,
      limit: 10,
      tuning,
      queryVector: await vectors?.embed(item.question),
      similarityFloor: vectors?.floor,
    });
    const ranked = page.items.map((entry) => library.dia.get(entry.memory.id));
    scores.push({ ...item, ...scoreRanking(ranked, item.evidence, item.category) });
  }
  return scores;
}

export const mean = (values: number[]) =>
  values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
const f3 = (value: number) => value.toFixed(3);

export function perConversation(library: Library, scores: (QuestionScore & Asked)[]): number[] {
  return library.conversations.map((id) =>
    mean(scores.filter((s) => s.conversation === id).map((s) => s.r10))
  );
}

/** One setting's scores with and without follows, and its R@10 per conversation. */
export interface SettingScores<S> {
  setting: S;
  scores: (QuestionScore & Asked)[][];
  per: number[][];
}

/**
 * For each conversation, the setting the other conversations score best (the training score:
 * mean R@10 over their questions, with and without follows alike) and what it scores on the
 * one left out, with | without follows.
 */
export function printLeaveOneOut<S>(
  library: Library,
  results: readonly SettingScores<S>[],
  describe: (setting: S) => string,
): void {
  for (const [fold, held] of library.conversations.entries()) {
    const trainScore = (r: SettingScores<S>) =>
      mean(
        r.scores.map((list) => mean(list.filter((s) => s.conversation !== held).map((s) => s.r10))),
      );
    const best = results.reduce((top, r) => trainScore(r) > trainScore(top) ? r : top);
    console.log(
      `  leave ${held} out: ${describe(best.setting)} (train ${f3(trainScore(best))}) → held out ${
        f3(best.per[0][fold])
      } | ${f3(best.per[1][fold])}`,
    );
  }
}

export function row(library: Library, label: string, scores: (QuestionScore & Asked)[]): string {
  const table = scoreTable(scores);
  const cell = (category: string) =>
    table.find((entry) => entry.category === category)?.recall_at_10.toFixed(3) ?? "-";
  return `| ${label} | ${cell("overall")} | ${
    perConversation(library, scores).map(f3).join(" | ")
  } | ${["multi-hop", "temporal", "open-domain", "single-hop"].map(cell).join(" | ")} | ${
    table[0].mrr.toFixed(3)
  } |`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: LOCOMO_DEV },
      grid: { type: "boolean", default: false },
      misses: { type: "string" },
      tuning: { type: "string", default: "{}" },
    },
  });
  const library = await buildLibrary(values.data);
  const base: Partial<RecallTuning> = JSON.parse(values.tuning);
  try {
    const header = `| setting | R@10 | ${library.conversations.join(" | ")} | multi-hop | ` +
      `temporal | open-domain | single-hop | MRR |`;
    const rule = `|${"---|".repeat(header.split("|").length - 2)}`;
    console.log(`LoCoMo dev, ${library.asked.length} questions, R@10 (in process)`);
    console.log(`shipped levers: ${JSON.stringify({ ...DEFAULT_TUNING, ...base })}`);
    console.log(header);
    console.log(rule);
    const shipped = await run(library, base);
    console.log(row(library, "shipped", shipped));
    console.log(
      row(library, "shipped, no follows", await run(library, { ...base, ...NO_FOLLOWS })),
    );
    for (const [label, off] of ABLATION) {
      console.log(row(library, `${label} off`, await run(library, { ...base, ...off })));
      console.log(
        row(
          library,
          `${label} off, no follows`,
          await run(library, { ...base, ...off, ...NO_FOLLOWS }),
        ),
      );
    }
    if (values.misses) {
      const lines = shipped.filter((s) => s.r10 < 1).map((s) =>
        `${s.conversation}\t${s.category}\t${s.r10.toFixed(2)}\t${s.question}\t${[...s.evidence]}`
      );
      Deno.writeTextFileSync(values.misses, lines.join("\n") + "\n");
    }
    if (!values.grid) return;
    for (const [lever, settings] of GRID) {
      console.log(
        `\n${lever}: R@10 per conversation with follows | without, then the held-out choice`,
      );
      const results = [];
      for (const setting of settings) {
        const scores = [
          await run(library, { ...base, ...setting }),
          await run(library, { ...base, ...setting, ...NO_FOLLOWS }),
        ];
        results.push({ setting, scores, per: scores.map((s) => perConversation(library, s)) });
      }
      for (const result of results) {
        console.log(
          `  ${JSON.stringify(result.setting)}: ${
            result.per.map((per) => per.map(f3).join(" / ")).join(" | ")
          }`,
        );
      }
      printLeaveOneOut(library, results, (setting) => JSON.stringify(setting));
    }
  } finally {
    library.cleanup();
  }
}

if (import.meta.main) await main();
