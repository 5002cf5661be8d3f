/**
 * How the built-in static model (`static-wink-100d`) scores LoCoMo questions against their
 * evidence turns and against the other turns of the same conversation: the numbers that
 * choose its similarity floor, plus a few paraphrase pairs as a sanity check.
 *
 * ```sh
 * deno run -A scripts/static_model_similarity.ts [--model-dir DIR] [--data PATH]
 * ```
 *
 * Without `--model-dir` the default model is built into a temporary directory. Turns are
 * embedded as the LoCoMo benchmark stores them (`speaker: text [shared a photo: caption]`),
 * and only the questions the benchmark asks (categories 1–4 with evidence) count. Prints
 * median / p10 / p90 of both cosine sets, the share of each above candidate floors, and
 * vector-only recall@10 over the conversation's turns (the channel alone, no lexical help).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createEmbedder, type Embedder } from "../src/models/embedder.ts";
import { buildStaticModel } from "../src/models/static_model.ts";
import { loadLocomo, LOCOMO_DEV, normalizeDiaId, sessionTurns } from "../bench/helpers/locomo.ts";

const FLOORS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
const PARAPHRASES: [string, string, string][] = [
  ["car broke down", "automobile stopped working", "she painted the kitchen yellow"],
  ["I adopted a puppy last week", "we got a new dog recently", "the meeting moved to Tuesday"],
  [
    "he is training for a marathon",
    "he runs every morning to prepare for the race",
    "the soup needs more salt",
  ],
  ["my grandmother passed away", "I lost my grandma", "they bought tickets for the concert"],
];

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let k = 0; k < a.length; k++) dot += a[k] * b[k];
  return dot;
}

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function describe(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cells = [0.1, 0.5, 0.9].map((p) => quantile(sorted, p).toFixed(3));
  const above = FLOORS.map((floor) => (values.filter((v) => v > floor).length / values.length));
  return `| ${label} | ${values.length} | ${cells.join(" | ")} | ${
    above.map((share) => share.toFixed(3)).join(" | ")
  } |`;
}

async function paraphraseReport(embedder: Embedder): Promise<string[]> {
  const lines = ["| text | paraphrase | unrelated |", "|---|---|---|"];
  for (const [text, paraphrase, unrelated] of PARAPHRASES) {
    const [a, b, c] = await embedder.embed([text, paraphrase, unrelated], "passage");
    lines.push(`| ${text} | ${cosine(a, b).toFixed(3)} | ${cosine(a, c).toFixed(3)} |`);
  }
  return lines;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "model-dir": { type: "string" },
      data: { type: "string", default: LOCOMO_DEV },
    },
  });
  let modelDir = values["model-dir"];
  let temporary: string | undefined;
  if (!modelDir) {
    temporary = await Deno.makeTempDir({ prefix: "mema-static-similarity-" });
    modelDir = (await buildStaticModel(`${temporary}/static-wink-100d`)).dir;
  }
  const embedder = createEmbedder({ modelDir, dim: 100, pooling: "mean", normalize: true });
  try {
    const data = loadLocomo(values.data);
    const evidenceCosines: number[] = [];
    const otherCosines: number[] = [];
    let recallSum = 0;
    let reciprocalRankSum = 0;
    let questions = 0;
    for (const conversation of data) {
      const turns = sessionTurns(conversation);
      const turnVectors = await embedder.embed(turns.map((turn) => turn.content), "passage");
      const asked = conversation.qa.filter((qa) => qa.category >= 1 && qa.category <= 4);
      const questionVectors = await embedder.embed(asked.map((qa) => qa.question), "query");
      asked.forEach((qa, index) => {
        const evidence = new Set(qa.evidence.map(normalizeDiaId));
        if (evidence.size === 0) return;
        const scored = turns.map((turn, t) => ({
          id: turn.diaId,
          score: cosine(questionVectors[index], turnVectors[t]),
        }));
        for (const { id, score } of scored) {
          (evidence.has(id) ? evidenceCosines : otherCosines).push(score);
        }
        const ranked = [...scored].sort((a, b) => b.score - a.score);
        recallSum += ranked.slice(0, 10).filter(({ id }) => evidence.has(id)).length /
          evidence.size;
        const first = ranked.findIndex(({ id }) => evidence.has(id));
        reciprocalRankSum += first < 0 ? 0 : 1 / (first + 1);
        questions++;
      });
    }
    console.log(`model: ${modelDir}`);
    const recall = (recallSum / questions).toFixed(4);
    const mrr = (reciprocalRankSum / questions).toFixed(4);
    console.log(`questions: ${questions}, vector-only R@10: ${recall}, MRR: ${mrr}`);
    console.log(
      `| pairs | n | p10 | median | p90 | ${FLOORS.map((floor) => `>${floor}`).join(" | ")} |`,
    );
    console.log(`|---|---|---|---|---|${FLOORS.map(() => "---").join("|")}|`);
    console.log(describe("question → evidence turn", evidenceCosines));
    console.log(describe("question → other turn", otherCosines));
    console.log("");
    for (const line of await paraphraseReport(embedder)) console.log(line);
  } finally {
    await embedder.unload();
    if (temporary) await Deno.remove(temporary, { recursive: true });
  }
}

if (import.meta.main) await main();
