/**
 * The lazy text embedder: a transformers.js `feature-extraction` pipeline over a local model
 * directory, loaded on the first `embed` call and never before (docs/SPEC.md §7: models load
 * lazily, never during the MCP handshake). A model that is a bare word table (the built-in
 * static model) is run by word_table.ts instead, with the same vectors and no onnxruntime.
 *
 * Traps this module handles:
 * - `@huggingface/transformers` loads onnxruntime's native addon when imported, so it is
 *   imported dynamically inside the first call, not at the top of the module.
 * - transformers.js logs `info`/`debug` through `console.log`, i.e. stdout, which carries MCP
 *   frames in stdio mode. The log level is raised to ERROR (→ `console.error`); onnxruntime's
 *   native log goes to stderr and follows the same level.
 * - A relative directory such as `models/x` looks like a Hugging Face repo id to
 *   transformers.js and would be resolved under `env.localModelPath`, so only absolute
 *   directories are accepted (transformers.js reads those as they are).
 * - The file-system cache is off: it would write next to the library (inside node_modules, or
 *   the read-only virtual file system of a compiled binary).
 * - Mean pooling divides by the number of tokens and normalizing divides by the norm, so a
 *   text without tokens or without one known word comes back as NaN; it is returned as the
 *   zero vector instead. The zero vector has no direction: callers check
 *   {@linkcode hasDirection} and neither store nor search with it (cosine against it is 0/0,
 *   which sqlite-vec reports as a NULL distance, i.e. "similarity 1").
 *
 * @example
 * Not run by `deno test --doc`: it needs the embedding model built or installed by `mema setup`.
 * ```ts ignore
 * import { createEmbedder } from "./embedder.ts";
 * const embedder = createEmbedder({
 *   modelDir: "/home/me/.cache/mema/models/static-wink-100d",
 *   dim: 100,
 *   pooling: "mean",
 *   normalize: true,
 * });
 * const [vector] = await embedder.embed(["car broke down"], "query");
 * vector.length; // 100
 * await embedder.unload();
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { pathExists } from "../platform/paths.ts";
import { importTransformers, transformersModelDir } from "./transformers_runtime.ts";
import { MIN_VECTOR_NORM } from "./vectors.ts";
import { readWordTableModel, type WordTableModel } from "./word_table.ts";

export { hasDirection } from "./vectors.ts";

/** What a text is embedded as; decides which prefix (e.g. "query: ") is prepended. */
export type EmbedKind = "query" | "passage";

/** transformers.js dtypes (the manifest's `dtype` values). */
export type EmbedDtype = "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4" | "q4f16" | "bnb4";

/** How token vectors become one text vector. */
export type EmbedPooling = "mean" | "cls";

/** Options of {@link createEmbedder}, usually copied from the model's manifest entry. */
export interface EmbedderOptions {
  /** The model directory (`config.json`, tokenizer files, `onnx/model*.onnx`). */
  modelDir: string;
  /** Expected vector dimension; a model that disagrees fails to load. */
  dim: number;
  /** How token vectors are pooled into one vector per text. */
  pooling: EmbedPooling;
  /** Scale each vector to unit length (cosine = dot product). */
  normalize: boolean;
  /** Prepended to texts embedded as `query` (e5: `"query: "`). */
  queryPrefix?: string;
  /** Prepended to texts embedded as `passage` (e5: `"passage: "`). */
  passagePrefix?: string;
  /** Picks the ONNX file: `fp32` (default) → `onnx/model.onnx`, `q8` → `onnx/model_quantized.onnx`. */
  dtype?: EmbedDtype;
  /** Texts per model call (default {@link EMBED_BATCH_SIZE}). */
  batchSize?: number;
  /**
   * `auto` (default): a word-level model (the built-in static model) is read and run by
   * word_table.ts, any other through transformers.js; `transformers`: always transformers.js.
   */
  engine?: "auto" | "transformers";
}

/** A loaded-on-demand embedding model. */
/** Per-call options of {@link Embedder.embed}. */
export interface EmbedCallOptions {
  /**
   * Overrides the embedder's normalization: `false` returns the pooled vectors as they are
   * (a word-level model's single-word texts give the word's weighted row, to be summed).
   */
  normalize?: boolean;
}

export interface Embedder {
  /** The vector dimension. */
  readonly dim: number;
  /** True once loading has started and until `unload` (or a failed load). */
  readonly loaded: boolean;
  /**
   * One vector per text, in order. A text without a single known token gives the zero
   * vector (see {@linkcode hasDirection}). Calls are queued, so at most one batch runs at a
   * time per embedder.
   */
  embed(texts: string[], kind: EmbedKind, options?: EmbedCallOptions): Promise<Float32Array[]>;
  /** Releases the model; the next `embed` loads it again. */
  unload(): Promise<void>;
}

/**
 * Texts per model call. Measured on 2 cores with the static model and 1,000 sentences of
 * 8–20 words: ~9,000 sentences/s one at a time, 15,000–19,000/s from 32 up, no clear gain
 * past 32 (run-to-run noise is larger). Padding makes a batch cost its longest text times its
 * size, so a small batch also bounds memory: 32 × 512 tokens × 384 floats = 25 MB for e5-small.
 */
export const EMBED_BATCH_SIZE = 32;

/** A tensor as transformers.js returns it (its `data`/`dims` are read once per batch). */
interface RawTensor {
  dims: number[];
  data: ArrayLike<number | bigint>;
}

/** The slice of transformers.js' feature-extraction pipeline this module uses. */
interface FeatureExtractor {
  tokenizer(texts: string[], options: { padding: boolean; truncation: boolean }): {
    attention_mask: RawTensor;
  } & Record<string, unknown>;
  model(inputs: Record<string, unknown>): Promise<Record<string, RawTensor | undefined>>;
  dispose(): Promise<unknown>;
}

/**
 * Mean or first-token pooling and L2 normalization over one batch, on the raw typed arrays.
 * transformers.js does the same through its Tensor proxy (a property lookup per element and
 * index arithmetic per value in `normalize`): 93% of embedding time with the static model
 * (bench/scale.ts profile, 10k memories), now ~5%. A text whose pooled vector is not finite
 * or has a norm under {@linkcode MIN_VECTOR_NORM} (no tokens, no known word) gives the zero
 * vector.
 */
export function poolBatch(
  hidden: RawTensor,
  mask: RawTensor,
  options: { pooling: EmbedPooling; normalize: boolean },
): Float32Array[] {
  const [batch, seq, dim] = hidden.dims;
  const data = hidden.data as ArrayLike<number>;
  const maskData = mask.data;
  const vectors: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const vector = new Float32Array(dim);
    const base = b * seq * dim;
    if (options.pooling === "cls") {
      for (let k = 0; k < dim; k++) vector[k] = data[base + k];
    } else {
      let count = 0;
      for (let j = 0; j < seq; j++) {
        if (Number(maskData[b * seq + j]) === 0) continue;
        count++;
        const row = base + j * dim;
        for (let k = 0; k < dim; k++) vector[k] += data[row + k];
      }
      for (let k = 0; k < dim; k++) vector[k] /= count;
    }
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += vector[k] * vector[k];
    norm = Math.sqrt(norm);
    if (!Number.isFinite(norm) || norm < MIN_VECTOR_NORM) {
      vectors.push(new Float32Array(dim));
      continue;
    }
    if (options.normalize) { for (let k = 0; k < dim; k++) vector[k] /= norm; }
    vectors.push(vector);
  }
  return vectors;
}

/**
 * Creates an embedder. Nothing is read or loaded until the first {@link Embedder.embed}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createEmbedder } from "./embedder.ts";
 *
 * // Options are checked now; the model is read at the first embed().
 * const embedder = createEmbedder({
 *   modelDir: "/models/multilingual-e5-small",
 *   dim: 384,
 *   pooling: "mean",
 *   normalize: true,
 *   queryPrefix: "query: ",
 *   passagePrefix: "passage: ",
 *   dtype: "q8",
 * });
 * await embedder.unload();
 * assert.equal(typeof embedder.embed, "function");
 * ```
 */
export function createEmbedder(options: EmbedderOptions): Embedder {
  const batchSize = options.batchSize ?? EMBED_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new MemaError("invalid_input", `batchSize must be a positive integer, got ${batchSize}`, {
      field: "batchSize",
    });
  }
  const modelDir = transformersModelDir(options.modelDir);
  let pipeline: Promise<LoadedModel> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const load = (): Promise<LoadedModel> => {
    if (pipeline) return pipeline;
    const loading = loadModel(modelDir, options);
    // A failed load is not kept: the next call tries again (e.g. after `models:static`).
    loading.catch(() => {
      if (pipeline === loading) pipeline = undefined;
    });
    pipeline = loading;
    return loading;
  };

  const run = async (
    texts: string[],
    kind: EmbedKind,
    call: EmbedCallOptions,
  ): Promise<Float32Array[]> => {
    const prefix = (kind === "query" ? options.queryPrefix : options.passagePrefix) ?? "";
    const vectors: Float32Array[] = texts.map(() => new Float32Array(options.dim));
    // Whitespace-only texts tokenize to nothing; a batch of only those would hand onnxruntime
    // a zero-length sequence, so they skip the model and keep the zero vector.
    const work = texts.flatMap((text, index) => text.trim() === "" ? [] : [index]);
    if (work.length === 0) return vectors;
    const model = await load();
    const normalize = call.normalize ?? options.normalize;
    if (model.kind === "word_table") {
      for (const index of work) {
        vectors[index] = model.table.embed(prefix + texts[index], normalize);
      }
      return vectors;
    }
    const extract = model.extractor;
    for (let start = 0; start < work.length; start += batchSize) {
      const indexes = work.slice(start, start + batchSize);
      const inputs = extract.tokenizer(indexes.map((index) => prefix + texts[index]), {
        padding: true,
        truncation: true,
      });
      const outputs = await extract.model(inputs);
      const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
      if (!hidden) throw new MemaError("config_invalid", `the model at ${modelDir} has no output`);
      const dim = hidden.dims[hidden.dims.length - 1];
      if (dim !== options.dim) {
        throw new MemaError(
          "config_invalid",
          `the model at ${modelDir} gives ${dim}-dimensional vectors, expected ${options.dim}`,
          { field: "dim", hint: "check the model's dimension in models.manifest.json" },
        );
      }
      const pooled = poolBatch(hidden, inputs.attention_mask, {
        pooling: options.pooling,
        normalize,
      });
      indexes.forEach((index, row) => {
        vectors[index] = pooled[row];
      });
    }
    return vectors;
  };

  return {
    dim: options.dim,
    get loaded(): boolean {
      return pipeline !== undefined;
    },
    embed(texts: string[], kind: EmbedKind, call: EmbedCallOptions = {}): Promise<Float32Array[]> {
      const result = queue.then(() => run(texts, kind, call));
      queue = result.catch(() => {});
      return result;
    },
    async unload(): Promise<void> {
      const current = pipeline;
      pipeline = undefined;
      await queue;
      const model = current && await current.catch(() => undefined);
      if (model?.kind === "transformers") await model.extractor.dispose();
    },
  };
}

/** A loaded model: a word table run here, or a transformers.js pipeline. */
type LoadedModel =
  | { kind: "word_table"; table: WordTableModel }
  | { kind: "transformers"; extractor: FeatureExtractor };

async function loadModel(modelDir: string, options: EmbedderOptions): Promise<LoadedModel> {
  const dtype = options.dtype ?? "fp32";
  // A word table of fp32 weights with mean pooling needs neither transformers.js nor onnxruntime.
  if (
    (options.engine ?? "auto") === "auto" && dtype === "fp32" && options.pooling === "mean" &&
    pathExists(`${modelDir}/config.json`)
  ) {
    const table = readWordTableModel(modelDir, options.dim);
    if (table) return { kind: "word_table", table };
  }
  return { kind: "transformers", extractor: await loadPipeline(modelDir, dtype) };
}

async function loadPipeline(modelDir: string, dtype: EmbedDtype): Promise<FeatureExtractor> {
  if (!pathExists(`${modelDir}/config.json`)) {
    throw new MemaError("not_found", `no embedding model at ${modelDir}`, {
      field: "modelDir",
      hint: "build the built-in model with `deno task models:static`, " +
        "or install one with `mema setup --install`",
    });
  }
  const transformers = await importTransformers();
  try {
    const extractor = await transformers.pipeline("feature-extraction", modelDir, {
      device: "cpu",
      dtype,
      local_files_only: true,
    });
    return extractor as unknown as FeatureExtractor;
  } catch (error) {
    throw new MemaError("config_invalid", `could not load the embedding model at ${modelDir}`, {
      field: "modelDir",
      hint: `the directory looks incomplete or corrupt; rebuild or reinstall it (${error})`,
      cause: error,
    });
  }
}
