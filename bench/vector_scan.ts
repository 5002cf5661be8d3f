/**
 * The in-process vector copy at scale (issue 38), in process: its bytes, its load time and its
 * scan time per query at each size, and how close its int8 answers are to the exact float
 * cosine ones. Vectors are the static model's recipe (lowercase tokens, the sum of their
 * weighted wink rows, normalized: what the built ONNX `Gather` + mean pooling computes) over
 * the texts of bench/million.ts's corpus (LoCoMo turns, speakers renamed each pass); queries are
 * LoCoMo dev questions embedded the same way.
 *
 *   deno run -A bench/vector_scan.ts [--sizes 100000,1000000] [--queries 200] [--k 100]
 *     [--float-kernel DIR]
 *
 * `--float-kernel DIR` also times the float32 copy this one replaced: DIR is a checkout of an
 * older build (e.g. `git archive 5a97102`) whose `src/store/vector_scan.ts` holds the f32x4
 * kernel, run here over the same vectors in the same process.
 *
 * CPU ms is this process's CPU time a lookup (Linux), steadier than wall time on a shared machine.
 *
 * Overlap counts a returned row as right when its exact cosine is at least the exact k-th
 * best's (near-duplicate texts of the corpus tie).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { QuantizedVectors } from "../src/store/quantized_vectors.ts";
import { ENGLISH_STOPWORDS, weightWordVectors } from "../src/models/static_weighting.ts";
import {
  isTokenizableWord,
  STATIC_MODEL_MAX_WORDS,
  STATIC_MODEL_SIF_A,
} from "../src/models/static_model.ts";
import { readWinkVectors, winkVectorsPath } from "../src/models/wink_vectors.ts";
import { passMemories } from "./helpers/million_corpus.ts";
import { loadLocomo, LOCOMO_DEV, scoredQuestions } from "./helpers/locomo.ts";
import { median, percentile } from "./helpers/stats.ts";

const PUNCTUATION = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const TOKEN = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, "gu");
const SINGLE_PUNCTUATION = new RegExp(`^[${PUNCTUATION}]$`, "u");

interface StaticTable {
  dim: number;
  index: Map<string, number>;
  rows: Float32Array;
}

async function staticTable(): Promise<StaticTable> {
  const raw = await readWinkVectors(winkVectorsPath(), {
    maxWords: STATIC_MODEL_MAX_WORDS,
    accept: isTokenizableWord,
  });
  const droppedWords = new Set(
    raw.words.filter((w) => ENGLISH_STOPWORDS.has(w) || SINGLE_PUNCTUATION.test(w)),
  );
  const rows = weightWordVectors(raw, { sifA: STATIC_MODEL_SIF_A, droppedWords });
  return { dim: raw.dim, index: new Map(raw.words.map((w, i) => [w, i])), rows };
}

/** The text's vector (unnormalized sum: the copy normalizes), or undefined without words. */
function embed(table: StaticTable, text: string, out: Float32Array): boolean {
  out.fill(0);
  let any = false;
  for (const token of text.toLowerCase().match(TOKEN) ?? []) {
    const id = table.index.get(token);
    if (id === undefined) continue;
    for (let k = 0; k < table.dim; k++) out[k] += table.rows[id * table.dim + k];
    any = true;
  }
  let norm = 0;
  for (let k = 0; k < table.dim; k++) norm += out[k] * out[k];
  if (!any || norm < 1e-12) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let k = 0; k < table.dim; k++) out[k] *= scale;
  return true;
}

/** `count` normalized vectors of the million corpus's texts, row-major. */
function corpusVectors(table: StaticTable, count: number): Float32Array {
  const conversations = loadLocomo(LOCOMO_DEV);
  const out = new Float32Array(count * table.dim);
  const vector = new Float32Array(table.dim);
  let written = 0;
  for (let pass = 0; written < count; pass++) {
    for (const [index, conversation] of conversations.entries()) {
      for (const memory of passMemories(conversation, pass, index, conversations.length)) {
        if (written >= count) break;
        if (!embed(table, `${memory.subject}\n${memory.content}`, vector)) continue;
        out.set(vector, written * table.dim);
        written++;
      }
    }
  }
  return out;
}

/** Exact cosines of `query` (normalized) with every vector (normalized). */
function exactScores(vectors: Float32Array, dim: number, query: Float32Array): Float64Array {
  const count = vectors.length / dim;
  const scores = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let dot = 0;
    for (let k = 0, at = i * dim; k < dim; k++) dot += vectors[at + k] * query[k];
    scores[i] = dot;
  }
  return scores;
}

/** The k-th highest value. */
function kthHighest(scores: Float64Array, k: number): number {
  return Float64Array.from(scores).sort().reverse()[k - 1];
}

/** The float32 kernel of an older build: f32x4 dots over normalized, padded vectors. */
async function floatKernelTimes(
  dir: string,
  vectors: Float32Array,
  dim: number,
  queries: Float32Array[],
): Promise<{ times: number[]; cpuPerLookup: number }> {
  const module = await import(`file://${dir}/src/store/vector_scan.ts`);
  const stride = Math.ceil(dim / 4) * 4;
  const count = vectors.length / dim;
  const bytes = (1 + count) * stride * 4 + count * 4;
  const kernel = module.createDotKernel(Math.ceil(bytes / 65_536));
  const memory = new Float32Array(kernel.memory.buffer);
  for (let i = 0; i < count; i++) {
    memory.set(vectors.subarray(i * dim, (i + 1) * dim), (1 + i) * stride);
  }
  const times: number[] = [];
  const scoresAt = (1 + count) * stride * 4;
  const cpuStart = cpuMs();
  for (const query of queries) {
    memory.set(query, 0);
    const start = performance.now();
    kernel.dots(0, stride * 4, count, stride * 4, scoresAt);
    const scores = new Float32Array(kernel.memory.buffer, scoresAt, count);
    // The same selection the copy does: best 100 by a bounded scan.
    let threshold = -Infinity;
    const best: number[] = [];
    for (let i = 0; i < count; i++) {
      if (scores[i] <= threshold) continue;
      best.push(scores[i]);
      if (best.length > 200) {
        best.sort((a, b) => b - a).length = 100;
        threshold = best[99];
      }
    }
    times.push(performance.now() - start);
  }
  return { times, cpuPerLookup: (cpuMs() - cpuStart) / queries.length };
}

/** CPU milliseconds this process has used (Linux; user + system), or NaN elsewhere. */
function cpuMs(): number {
  try {
    const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function rssMb(): number {
  return Deno.memoryUsage().rss / 1e6;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "100000,1000000" },
      queries: { type: "string", default: "200" },
      k: { type: "string", default: "100" },
      exact: { type: "string", default: "50" },
      "float-kernel": { type: "string" },
    },
  });
  const sizes = values.sizes.split(",").map(Number);
  const k = Number(values.k);
  const table = await staticTable();
  const dim = table.dim;
  const questions = loadLocomo(LOCOMO_DEV).flatMap(scoredQuestions).map((q) =>
    String(q.question.question)
  )
    .slice(0, Number(values.queries));
  const queries = questions.flatMap((text) => {
    const vector = new Float32Array(dim);
    return embed(table, text, vector) ? [vector] : [];
  });
  const all = corpusVectors(table, Math.max(...sizes));
  console.log(
    `static-model vectors of the million corpus (${dim} dims), ${queries.length} LoCoMo ` +
      `questions, k = ${k}; load average ${Deno.loadavg().map((n) => n.toFixed(1)).join(" ")}`,
  );
  console.log(
    "| vectors | copy MB | float32 MB | load s | RSS +MB | lookup p50 / p95 ms | CPU ms | " +
      "float32 kernel p50 / p95 ms | CPU ms | exact JS p50 ms | top-10 / top-100 right |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const size of sizes) {
    const vectors = all.subarray(0, size * dim);
    const rssBefore = rssMb();
    let copy: QuantizedVectors | undefined = new QuantizedVectors();
    const loadStart = performance.now();
    for (let i = 0; i < size; i++) copy.put(i + 1, vectors.subarray(i * dim, (i + 1) * dim));
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const rssAdded = rssMb() - rssBefore;
    copy.nearest(queries[0], k); // the first scan touches the score pages
    const times: number[] = [];
    const answers: number[][] = [];
    const cpuStart = cpuMs();
    for (const query of queries) {
      const start = performance.now();
      const found = copy.nearest(query, k);
      times.push(performance.now() - start);
      answers.push(found.map((row) => row.rowId - 1));
    }
    const cpuPerLookup = (cpuMs() - cpuStart) / queries.length;
    // Exact answers for the first few queries (a JavaScript float scan: slow at 1M).
    const exactTimes: number[] = [];
    let right10 = 0, right100 = 0, asked = 0;
    for (const [q, query] of queries.slice(0, Number(values.exact)).entries()) {
      const start = performance.now();
      const scores = exactScores(vectors, dim, query);
      exactTimes.push(performance.now() - start);
      const kth10 = kthHighest(scores, 10), kthK = kthHighest(scores, k);
      right10 += answers[q].slice(0, 10).filter((i) => scores[i] >= kth10).length / 10;
      right100 += answers[q].filter((i) => scores[i] >= kthK).length / k;
      asked++;
    }
    const float = values["float-kernel"]
      ? await floatKernelTimes(values["float-kernel"], vectors, dim, queries)
      : undefined;
    const floatTimes = float?.times ?? [];
    const floatMb = (size * Math.ceil(dim / 4) * 4 * 4) / 1e6;
    console.log(
      `| ${size.toLocaleString("en")} | ${(copy.bytes / 1e6).toFixed(0)} | ${
        floatMb.toFixed(0)
      } | ${loadSeconds.toFixed(1)} | ${rssAdded.toFixed(0)} | ${median(times).toFixed(1)} / ${
        percentile(times, 0.95).toFixed(1)
      } | ${cpuPerLookup.toFixed(1)} | ${
        floatTimes.length
          ? `${median(floatTimes).toFixed(1)} / ${percentile(floatTimes, 0.95).toFixed(1)}`
          : "—"
      } | ${float ? float.cpuPerLookup.toFixed(1) : "—"} | ${median(exactTimes).toFixed(0)} | ${
        (right10 / asked).toFixed(3)
      } / ${(right100 / asked).toFixed(3)} |`,
    );
    copy = undefined;
  }
}

if (import.meta.main) await main();
