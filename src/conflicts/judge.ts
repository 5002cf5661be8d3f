/**
 * The NLI conflict judge (docs/SPEC.md §8): a sentence-pair classifier (an XNLI cross-encoder such
 * as mDeBERTa-v3-base-xnli) that rules on the pairs the rule stage kept. It reads P(contradiction)
 * and maps it to `conflict` / `possible_conflict` / `no_conflict` with two thresholds; every
 * verdict carries the model id and the thresholds that produced it.
 *
 * Traps this module handles:
 * - transformers.js' `text-classification` pipeline ignores `text_pair` (docs/SPEC.md §2), so the
 *   tokenizer and `AutoModelForSequenceClassification` are called directly with pairs.
 * - Label order differs between checkpoints (the mDeBERTa XNLI family is 0 entailment,
 *   1 neutral, 2 contradiction; the test fixture is 0 contradiction): labels are mapped by the
 *   NAME in the model's own `config.json` `id2label`, never by index, and a config whose names
 *   cannot be mapped fails to load with a clear error instead of judging with the wrong head.
 * - `@huggingface/transformers` loads onnxruntime's native addon when imported, so it is
 *   imported inside the first `judge` call; its log level is raised to ERROR first because it
 *   logs through `console.log`, i.e. stdout, which carries MCP frames in stdio mode.
 * - A relative directory would be read as a hub repo id, so only absolute ones are accepted;
 *   remote models and the file-system cache are off.
 * - Each pair is judged both ways (a→b and b→a) by default and the direction with the higher
 *   P(contradiction) is kept ({@link JUDGE_BOTH_DIRECTIONS} says why).
 *
 * @example
 * Not run by `deno test --doc`: it loads the judge model, which
 * `mema setup --install` downloads.
 * ```ts ignore
 * import { createJudge } from "./judge.ts";
 * const judge = createJudge({
 *   modelDir: "/home/me/.cache/mema/models/mdeberta-v3-base-xnli",
 *   modelId: "mdeberta-v3-base-xnli",
 *   thresholds: { conflict: 0.8, possible: 0.5 },
 * });
 * const [verdict] = await judge.judge([{ a: "The deadline is Friday.", b: "The deadline is Monday." }]);
 * verdict.verdict; // "conflict"
 * await judge.unload();
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { importTransformers, transformersModelDir } from "../models/transformers_runtime.ts";
import { readTextIfExists } from "../platform/files.ts";
import { pathExists } from "../platform/paths.ts";
import {
  JUDGE_BATCH_SIZE,
  JUDGE_BOTH_DIRECTIONS,
  JUDGE_DEFAULT_MAX_LENGTH,
  JUDGE_DEFAULT_THRESHOLDS,
  type JudgeThresholds,
} from "./constants.ts";

/** What the judge says about a pair. */
export type JudgeVerdictName = "conflict" | "no_conflict" | "possible_conflict";

/**
 * The three NLI classes, named by what they mean, whatever the model calls them. (A type
 * alias, not an interface, so that it is assignable to `Record<string, number>`.)
 */
export type NliProbabilities = {
  contradiction: number;
  entailment: number;
  neutral: number;
};

/** One verdict. */
export interface JudgeVerdict {
  verdict: JudgeVerdictName;
  /** Softmax over the model's three classes (sums to 1), from the direction kept. */
  probabilities: NliProbabilities;
  /** The model that ruled (recorded with every verdict). */
  modelId: string;
  /** The thresholds applied (recorded with every verdict). */
  thresholds: JudgeThresholds;
}

/** A sentence pair to judge. */
export interface JudgePair {
  a: string;
  b: string;
}

/** transformers.js dtypes a judge model may ship as (`q8` → `onnx/model_quantized.onnx`). */
export type JudgeDtype = "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4";

/** Options of {@link createJudge}, usually from the model's manifest entry and the config. */
export interface JudgeOptions {
  /** Absolute model directory (`config.json`, tokenizer files, `onnx/model*.onnx`). */
  modelDir: string;
  /** The manifest id, recorded with every verdict. */
  modelId: string;
  /**
   * Model label name (as in `config.json` `id2label`, case-insensitive) → verdict. The label
   * mapped to `conflict` is read as contradiction, `no_conflict` as entailment and
   * `possible_conflict` as neutral. Default: {@link DEFAULT_JUDGE_LABELS}.
   */
  labels?: Record<string, JudgeVerdictName>;
  /** Verdict thresholds on P(contradiction); default {@link JUDGE_DEFAULT_THRESHOLDS}. */
  thresholds?: JudgeThresholds;
  /** Longest pair in tokens, longer pairs are truncated; default {@link JUDGE_DEFAULT_MAX_LENGTH}. */
  maxLength?: number;
  /** Pairs per model call; default {@link JUDGE_BATCH_SIZE}. */
  batchSize?: number;
  /** Judge a→b and b→a and keep the higher P(contradiction); default {@link JUDGE_BOTH_DIRECTIONS}. */
  bothDirections?: boolean;
  /** ONNX weights to load; default `fp32` (`onnx/model.onnx`). */
  dtype?: JudgeDtype;
}

/** A loaded-on-demand NLI judge. */
export interface Judge {
  /** The manifest id given at creation. */
  readonly modelId: string;
  /** One verdict per pair, in order. Loads the model on the first call. */
  judge(pairs: JudgePair[]): Promise<JudgeVerdict[]>;
  /** Releases the model; the next `judge` loads it again. */
  unload(): Promise<void>;
}

/** The usual XNLI label names and what each means for a conflict. */
export const DEFAULT_JUDGE_LABELS: Readonly<Record<string, JudgeVerdictName>> = Object.freeze({
  contradiction: "conflict",
  entailment: "no_conflict",
  neutral: "possible_conflict",
});

const ROLE_OF_VERDICT: Record<JudgeVerdictName, keyof NliProbabilities> = {
  conflict: "contradiction",
  no_conflict: "entailment",
  possible_conflict: "neutral",
};

interface LoadedModel {
  tokenizer: (
    texts: string[],
    options: { text_pair: string[]; padding: boolean; truncation: boolean; max_length: number },
  ) => Record<string, unknown>;
  model: ((inputs: Record<string, unknown>) => Promise<{ logits: Logits }>) & {
    dispose(): Promise<unknown>;
  };
  /** Model output index of each role. */
  index: Record<keyof NliProbabilities, number>;
  width: number;
}

interface Logits {
  dims: number[];
  data: ArrayLike<number>;
}

/**
 * Creates a judge. Options are checked now; nothing is read or loaded until the first
 * {@link Judge.judge}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createJudge } from "./judge.ts";
 *
 * // Nothing is read yet, so a folder that does not exist is fine until the first judge() call.
 * const judge = createJudge({
 *   modelDir: "/models/mdeberta-v3-base-xnli",
 *   modelId: "mdeberta-v3-base-xnli",
 *   labels: { entailment: "no_conflict", neutral: "possible_conflict", contradiction: "conflict" },
 *   thresholds: { conflict: 0.8, possible: 0.5 },
 *   dtype: "q8",
 * });
 * await judge.unload();
 * assert.throws(() =>
 *   createJudge({
 *     modelDir: "/models/mdeberta-v3-base-xnli",
 *     modelId: "mdeberta-v3-base-xnli",
 *     thresholds: { conflict: 1.5, possible: 0.5 },
 *   })
 * );
 * ```
 */
export function createJudge(options: JudgeOptions): Judge {
  const modelDir = transformersModelDir(options.modelDir);
  const thresholds = checkThresholds(options.thresholds ?? JUDGE_DEFAULT_THRESHOLDS);
  const labels = normalizeLabels(options.labels ?? DEFAULT_JUDGE_LABELS);
  const batchSize = positiveInteger(options.batchSize ?? JUDGE_BATCH_SIZE, "batchSize");
  const maxLength = positiveInteger(options.maxLength ?? JUDGE_DEFAULT_MAX_LENGTH, "maxLength");
  const bothDirections = options.bothDirections ?? JUDGE_BOTH_DIRECTIONS;
  let loaded: Promise<LoadedModel> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const load = (): Promise<LoadedModel> => {
    if (loaded) return loaded;
    const loading = loadModel(modelDir, labels, options.dtype ?? "fp32");
    // A failed load is not kept: the next call tries again (e.g. after an install).
    loading.catch(() => {
      if (loaded === loading) loaded = undefined;
    });
    loaded = loading;
    return loading;
  };

  const run = async (pairs: JudgePair[]): Promise<JudgeVerdict[]> => {
    if (pairs.length === 0) return [];
    const { tokenizer, model, index, width } = await load();
    const directed = bothDirections
      ? pairs.flatMap((pair) => [[pair.a, pair.b], [pair.b, pair.a]])
      : pairs.map((pair) => [pair.a, pair.b]);
    const scored: NliProbabilities[] = [];
    for (let start = 0; start < directed.length; start += batchSize) {
      const batch = directed.slice(start, start + batchSize);
      const inputs = tokenizer(batch.map(([premise]) => premise), {
        text_pair: batch.map(([, hypothesis]) => hypothesis),
        padding: true,
        truncation: true,
        max_length: maxLength,
      });
      const { logits } = await model(inputs);
      if (logits.dims[logits.dims.length - 1] !== width) {
        throw new MemaError("config_invalid", `the judge at ${modelDir} gives unexpected logits`, {
          field: "modelDir",
          details: { dims: logits.dims, labels: width },
        });
      }
      for (let row = 0; row < batch.length; row++) {
        const probabilities = softmax(
          Array.from(logits.data).slice(row * width, (row + 1) * width),
        );
        scored.push({
          contradiction: probabilities[index.contradiction],
          entailment: probabilities[index.entailment],
          neutral: probabilities[index.neutral],
        });
      }
    }
    return pairs.map((_, i) => {
      const probabilities = bothDirections
        ? maxContradiction(scored[2 * i], scored[2 * i + 1])
        : scored[i];
      return {
        verdict: verdictFor(probabilities.contradiction, thresholds),
        probabilities,
        modelId: options.modelId,
        thresholds: { ...thresholds },
      };
    });
  };

  return {
    modelId: options.modelId,
    judge(pairs: JudgePair[]): Promise<JudgeVerdict[]> {
      const result = queue.then(() => run(pairs));
      queue = result.catch(() => {});
      return result;
    },
    async unload(): Promise<void> {
      const current = loaded;
      loaded = undefined;
      await queue;
      if (current) await (await current.catch(() => undefined))?.model.dispose();
    },
  };
}

/**
 * The verdict for a contradiction probability: at or above `conflict` → conflict, at or above
 * `possible` → possible_conflict, else no_conflict.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verdictFor } from "./judge.ts";
 *
 * assert.equal(verdictFor(0.6, { conflict: 0.8, possible: 0.5 }), "possible_conflict");
 * ```
 */
export function verdictFor(contradiction: number, thresholds: JudgeThresholds): JudgeVerdictName {
  if (contradiction >= thresholds.conflict) return "conflict";
  if (contradiction >= thresholds.possible) return "possible_conflict";
  return "no_conflict";
}

function maxContradiction(forward: NliProbabilities, backward: NliProbabilities): NliProbabilities {
  return backward.contradiction > forward.contradiction ? backward : forward;
}

function softmax(logits: number[]): number[] {
  const top = Math.max(...logits);
  const exps = logits.map((x) => Math.exp(x - top));
  const total = exps.reduce((sum, x) => sum + x, 0);
  return exps.map((x) => x / total);
}

async function loadModel(
  modelDir: string,
  labels: Map<string, JudgeVerdictName>,
  dtype: JudgeDtype,
): Promise<LoadedModel> {
  const index = labelIndexes(modelDir, labels);
  const transformers = await importTransformers();
  try {
    const tokenizer = await transformers.AutoTokenizer.from_pretrained(modelDir, {
      local_files_only: true,
    });
    const model = await transformers.AutoModelForSequenceClassification.from_pretrained(modelDir, {
      device: "cpu",
      dtype,
      local_files_only: true,
    });
    return {
      tokenizer: tokenizer as unknown as LoadedModel["tokenizer"],
      model: model as unknown as LoadedModel["model"],
      index: index.roles,
      width: index.width,
    };
  } catch (error) {
    throw new MemaError("config_invalid", `could not load the judge model at ${modelDir}`, {
      field: "modelDir",
      hint: `the directory looks incomplete or corrupt; reinstall the model (${error})`,
      cause: error,
    });
  }
}

/**
 * Checks, without loading the weights, that a judge directory's `config.json` names all three
 * roles: what `doctor` and the judge's state report can say before the first pair is judged.
 * Throws the same {@link MemaError} the first {@link Judge.judge} would.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkJudgeLabels } from "./judge.ts";
 *
 * const modelDir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(
 *   `${modelDir}/config.json`,
 *   JSON.stringify({ id2label: { 0: "entailment", 1: "neutral", 2: "contradiction" } }),
 * );
 * assert.equal(checkJudgeLabels(modelDir).width, 3);
 * Deno.removeSync(modelDir, { recursive: true });
 * ```
 */
export function checkJudgeLabels(
  modelDir: string,
  labels: Record<string, JudgeVerdictName> = DEFAULT_JUDGE_LABELS,
): { width: number } {
  return { width: labelIndexes(transformersModelDir(modelDir), normalizeLabels(labels)).width };
}

/** Reads `config.json` `id2label` and finds each role's output index by label name. */
function labelIndexes(
  modelDir: string,
  labels: Map<string, JudgeVerdictName>,
): { roles: Record<keyof NliProbabilities, number>; width: number } {
  const configPath = `${modelDir}/config.json`;
  const text = pathExists(modelDir) ? readTextIfExists(configPath) : undefined;
  if (text === undefined) {
    throw new MemaError("not_found", `no judge model at ${modelDir} (config.json missing)`, {
      field: "modelDir",
      hint: "install the judge with `mema setup --install --model <id>`, or unset judge_model",
    });
  }
  let id2label: Record<string, unknown> | undefined;
  try {
    id2label = (JSON.parse(text) as { id2label?: Record<string, unknown> }).id2label;
  } catch (error) {
    throw new MemaError("config_invalid", `the judge's config.json at ${configPath} is not JSON`, {
      field: "modelDir",
      hint: "reinstall the model",
      cause: error,
    });
  }
  const entries = Object.entries(id2label ?? {});
  const invalid = (reason: string): MemaError =>
    new MemaError("config_invalid", `the judge at ${modelDir}: ${reason}`, {
      field: "labels",
      hint: "map each of the model's id2label names to conflict, no_conflict or possible_conflict",
      details: { id2label: id2label ?? null, labels: Object.fromEntries(labels) },
    });
  if (entries.length === 0) throw invalid("config.json has no id2label");
  const roles: Partial<Record<keyof NliProbabilities, number>> = {};
  for (const [key, name] of entries) {
    const position = Number(key);
    if (!Number.isInteger(position) || position < 0 || position >= entries.length) {
      throw invalid(`id2label key "${key}" is not an index below ${entries.length}`);
    }
    const verdict = labels.get(String(name).toLowerCase());
    if (verdict === undefined) throw invalid(`label "${name}" has no verdict`);
    const role = ROLE_OF_VERDICT[verdict];
    if (roles[role] !== undefined) throw invalid(`two labels map to ${verdict}`);
    roles[role] = position;
  }
  for (const [verdict, role] of Object.entries(ROLE_OF_VERDICT)) {
    if (roles[role] === undefined) throw invalid(`no label maps to ${verdict}`);
  }
  return { roles: roles as Record<keyof NliProbabilities, number>, width: entries.length };
}

function normalizeLabels(labels: Record<string, JudgeVerdictName>): Map<string, JudgeVerdictName> {
  const out = new Map<string, JudgeVerdictName>();
  for (const [name, verdict] of Object.entries(labels)) {
    if (!(verdict in ROLE_OF_VERDICT)) {
      throw new MemaError("invalid_input", `label "${name}" maps to unknown verdict "${verdict}"`, {
        field: "labels",
        hint: "use conflict, no_conflict or possible_conflict",
      });
    }
    out.set(name.toLowerCase(), verdict);
  }
  return out;
}

function checkThresholds(thresholds: JudgeThresholds): JudgeThresholds {
  const { conflict, possible } = thresholds;
  const inRange = (x: number): boolean => typeof x === "number" && x >= 0 && x <= 1;
  if (!inRange(conflict) || !inRange(possible) || possible > conflict) {
    throw new MemaError(
      "invalid_input",
      `judge thresholds must satisfy 0 ≤ possible ≤ conflict ≤ 1, got possible ${possible}, ` +
        `conflict ${conflict}`,
      { field: "thresholds" },
    );
  }
  return { conflict, possible };
}

function positiveInteger(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new MemaError("invalid_input", `${field} must be a positive integer, got ${value}`, {
      field,
    });
  }
  return value;
}
