/**
 * LoCoMo word-vector levers, in process: the dev conversations are stored once (as
 * bench/locomo_levers.ts does), every evidence chunk is embedded in JavaScript with the
 * static model's recipe (lowercase, BERT pre-tokenizer, the sum of the weighted wink rows,
 * normalized: what the built ONNX `Gather` + mean pooling computes), and every question is
 * asked with `find` and its query vector. Variants of the word weighting (SIF constant,
 * common-component removal) and of the fusion (weight, floor, vector-only memories) are
 * compared per conversation, with the leave-one-conversation-out choice over each grid.
 *
 *   deno run -A bench/locomo_vectors.ts [--data PATH] [--wink PATH] [--sif A,…]
 *     [--floors F,…] [--weights W,…] [--vector-only true,false]
 *     [--variants plain,idf,library-pc,wink-pc,idf-query,idf-query-unseen-max]
 *
 * Variants: `plain` the query as the model embeds it; `idf` the shipped query weighting
 * (src/recall/query_weights.ts); `library-pc` / `wink-pc` the first principal direction of
 * the library's chunk vectors / of the Zipf-weighted word rows removed from every vector;
 * `idf-query*` query words weighed by their IDF over the chunks (a word no chunk holds: 1,
 * or as rare as the rarest).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { embeddingChunks } from "../src/evidence/chunks.ts";
import { hasDirection } from "../src/models/vectors.ts";
import { isTokenizableWord } from "../src/models/static_model.ts";
import { ENGLISH_STOPWORDS, weightWordVectors } from "../src/models/static_weighting.ts";
import { readWinkVectors, winkVectorsPath } from "../src/models/wink_vectors.ts";
import type { EvidenceRowRecord } from "../src/store/mod.ts";
import type { RecallTuning } from "../src/recall/tuning.ts";
import { queryWords } from "../src/recall/query_weights.ts";
import { LOCOMO_DEV } from "./helpers/locomo.ts";
import {
  buildLibrary,
  type Library,
  perConversation,
  printLeaveOneOut,
  row,
  run,
  type SettingScores,
  type VectorChannel,
} from "./locomo_levers.ts";

const PUNCTUATION = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const TOKEN = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, "gu");
const SINGLE_PUNCTUATION = new RegExp(`^[${PUNCTUATION}]$`, "u");

export interface Table {
  dim: number;
  index: Map<string, number>;
  rows: Float32Array;
}

/** One way of turning text into a vector. */
export interface Variant {
  label: string;
  table: Table;
  /** A unit direction removed from every vector (common-component removal). */
  remove?: Float64Array;
  /** Scales each query word's row (query side only), e.g. by the library's IDF. */
  queryWeight?: Map<string, number>;
  /** The shipped query weighting (src/recall/query_weights.ts), from the store. */
  libraryWeights?: boolean;
  /** Raises the shipped weights to this power (1: as shipped). */
  power?: number;
}

export async function embedText(
  variant: Variant,
  text: string,
  query = false,
  library?: Library,
): Promise<Float32Array | undefined> {
  const { dim, index, rows } = variant.table;
  const store = library?.ctx.store;
  const shipped = query && variant.libraryWeights && store
    ? new Map(
      (await store.read(async () => await queryWords(store, text))).map((
        { word, weight },
      ) => [word, weight ** (variant.power ?? 1)]),
    )
    : undefined;
  const sum = new Float64Array(dim);
  for (const token of text.toLowerCase().match(TOKEN) ?? []) {
    const id = index.get(token);
    if (id === undefined) continue;
    const weight = query ? (shipped?.get(token) ?? variant.queryWeight?.get(token) ?? 1) : 1;
    for (let k = 0; k < dim; k++) sum[k] += weight * rows[id * dim + k];
  }
  if (variant.remove) {
    let dot = 0;
    for (let k = 0; k < dim; k++) dot += sum[k] * variant.remove[k];
    for (let k = 0; k < dim; k++) sum[k] -= dot * variant.remove[k];
  }
  let norm = 0;
  for (let k = 0; k < dim; k++) norm += sum[k] * sum[k];
  norm = Math.sqrt(norm);
  const out = new Float32Array(dim);
  if (norm < 1e-9) return undefined;
  for (let k = 0; k < dim; k++) out[k] = sum[k] / norm;
  return hasDirection(out) ? out : undefined;
}

/** First principal direction (uncentered) of the vectors, by power iteration. */
function principalDirection(vectors: ArrayLike<number>[], dim: number, weights?: number[]) {
  const m = new Float64Array(dim * dim);
  vectors.forEach((v, n) => {
    const w = weights?.[n] ?? 1;
    for (let i = 0; i < dim; i++) {
      for (let j = 0; j < dim; j++) m[i * dim + j] += w * v[i] * v[j];
    }
  });
  let u = new Float64Array(dim).fill(1 / Math.sqrt(dim));
  for (let step = 0; step < 200; step++) {
    const next = new Float64Array(dim);
    for (let i = 0; i < dim; i++) {
      for (let j = 0; j < dim; j++) next[i] += m[i * dim + j] * u[j];
    }
    const norm = Math.sqrt(next.reduce((s, x) => s + x * x, 0));
    u = next.map((x) => x / norm);
  }
  return u;
}

export async function indexVariant(
  library: Library,
  variant: Variant,
  space: string,
): Promise<number> {
  const store = library.ctx.store;
  await store.write(async () => {
    await store.recreateVecTable(variant.table.dim);
    await store.setMeta("embedding_space", space);
  });
  let written = 0;
  for (;;) {
    const rows = await store.read(async () => await store.rowsToEmbed(space, 100_000));
    if (rows.length === 0) break;
    const byMemory = new Map<number, EvidenceRowRecord[]>();
    for (const r of rows) byMemory.set(r.memoryId, [...byMemory.get(r.memoryId) ?? [], r]);
    const chunks = [...byMemory.values()].flatMap(embeddingChunks);
    const vectors: { rowId: number; vector: Float32Array | null }[] = [];
    for (const chunk of chunks) {
      const vector = await embedText(variant, chunk.text);
      for (const rowId of chunk.rowIds) {
        vectors.push({ rowId, vector: rowId === chunk.headRowId && vector ? vector : null });
      }
    }
    await store.write(async () => await store.writeRowVectors(space, vectors));
    written += chunks.length;
  }
  return written;
}

async function chunkTexts(library: Library): Promise<string[]> {
  const store = library.ctx.store;
  const rows = await store.read(async () => await store.rowsToEmbed("none-such", 100_000));
  const byMemory = new Map<number, EvidenceRowRecord[]>();
  for (const r of rows) byMemory.set(r.memoryId, [...byMemory.get(r.memoryId) ?? [], r]);
  return [...byMemory.values()].flatMap(embeddingChunks).map((chunk) => chunk.text);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string", default: LOCOMO_DEV },
      wink: { type: "string" },
      sif: { type: "string", default: "0.002" },
      floors: { type: "string", default: "0.4,0.5,0.6,0.75" },
      weights: { type: "string", default: "0.5,0.75,1,1.5" },
      variants: { type: "string", default: "plain,idf,library-pc" },
      "vector-only": { type: "string", default: "true" },
    },
  });
  const raw = await readWinkVectors(values.wink ?? winkVectorsPath(), {
    maxWords: 30_000,
    accept: (word) => isTokenizableWord(word) && word !== "[PAD]" && word !== "[UNK]",
  });
  const dropped = new Set(
    raw.words.filter((w) => ENGLISH_STOPWORDS.has(w) || SINGLE_PUNCTUATION.test(w)),
  );
  const index = new Map(raw.words.map((w, i) => [w, i]));
  const library = await buildLibrary(values.data);
  const texts = await chunkTexts(library);
  const header = `| setting | R@10 | ${library.conversations.join(" | ")} | multi-hop | ` +
    `temporal | open-domain | single-hop | MRR |`;
  try {
    console.log(`LoCoMo dev, ${library.asked.length} questions, ${texts.length} chunks`);
    console.log(header);
    console.log(`|${"---|".repeat(header.split("|").length - 2)}`);
    console.log(row(library, "lexical", await run(library, {})));
    console.log(row(library, "lexical, no follows", await run(library, { followsCarry: 0 })));
    for (const sifA of values.sif.split(",").map(Number)) {
      const rows = weightWordVectors(raw, { sifA, droppedWords: dropped });
      const table: Table = { dim: raw.dim, index, rows };
      const plain: Variant = { label: `sif ${sifA}`, table };
      const variants: Variant[] = [];
      for (const name of values.variants.split(",")) {
        if (name === "plain") variants.push(plain);
        if (name === "library-pc") {
          const vectors: Float32Array[] = [];
          for (const text of texts) {
            const vector = await embedText(plain, text);
            if (vector !== undefined) vectors.push(vector);
          }
          variants.push({
            label: `sif ${sifA} − library PC1`,
            table,
            remove: principalDirection(vectors, raw.dim),
          });
        }
        if (name.startsWith("idf^")) {
          const power = Number(name.slice(4));
          variants.push({
            label: `sif ${sifA}, query words × IDF^${power}`,
            table,
            libraryWeights: true,
            power,
          });
        }
        if (name === "idf") {
          variants.push({
            label: `sif ${sifA}, query words × IDF (shipped)`,
            table,
            libraryWeights: true,
          });
        }
        if (name === "idf-query" || name === "idf-query-unseen-max") {
          // The library's own document frequencies weigh the query's words (BM25's IDF).
          const df = new Map<string, number>();
          for (const text of texts) {
            for (const token of new Set(text.toLowerCase().match(TOKEN) ?? [])) {
              df.set(token, (df.get(token) ?? 0) + 1);
            }
          }
          const queryWeight = new Map<string, number>();
          for (const [token, count] of df) {
            queryWeight.set(token, Math.log(1 + (texts.length - count + 0.5) / (count + 0.5)));
          }
          // A word the library never holds cannot match lexically: as rare as the rarest, or 1.
          const unseen = name === "idf-query" ? 1 : Math.log(1 + (texts.length + 0.5) / 0.5);
          for (const word of raw.words) if (!queryWeight.has(word)) queryWeight.set(word, unseen);
          variants.push({
            label: `sif ${sifA}, query words × library IDF (unseen ${unseen.toFixed(2)})`,
            table,
            queryWeight,
          });
        }
        if (name === "wink-pc") {
          // Word rows weighted by their Zipf probability: the direction every sentence of
          // ordinary text shares, known before any library exists.
          const words: Float32Array[] = [];
          const weights: number[] = [];
          for (let i = 0; i < raw.words.length; i++) {
            if (dropped.has(raw.words[i])) continue;
            const v = rows.subarray(i * raw.dim, (i + 1) * raw.dim);
            let norm = 0;
            for (const x of v) norm += x * x;
            if (norm === 0) continue;
            words.push(v.map((x) => x / Math.sqrt(norm)));
            weights.push(1 / raw.ranks[i]);
          }
          variants.push({
            label: `sif ${sifA} − wink PC1`,
            table,
            remove: principalDirection(words, raw.dim, weights),
          });
        }
      }
      for (const [n, variant] of variants.entries()) {
        await indexVariant(library, variant, `bench-${sifA}-${n}`);
        const results: SettingScores<string>[] = [];
        for (const floor of values.floors.split(",").map(Number)) {
          for (const weight of values.weights.split(",").map(Number)) {
            for (const only of values["vector-only"].split(",").map((x) => x === "true")) {
              const channel: VectorChannel = {
                floor,
                embed: async (q) => await embedText(variant, q, true, library),
              };
              const tuning: Partial<RecallTuning> = { vectorWeight: weight, vectorOnly: only };
              const label = `${variant.label}, floor ${floor}, weight ${weight}${
                only ? "" : ", lexical candidates only"
              }`;
              const scores = [
                await run(library, tuning, channel),
                await run(library, { ...tuning, followsCarry: 0 }, channel),
              ];
              console.log(row(library, label, scores[0]));
              console.log(row(library, `${label}, no follows`, scores[1]));
              results.push({
                setting: label,
                scores,
                per: scores.map((s) => perConversation(library, s)),
              });
            }
          }
        }
        printLeaveOneOut(library, results, (setting) => setting);
      }
    }
  } finally {
    library.cleanup();
  }
}

if (import.meta.main) await main();
