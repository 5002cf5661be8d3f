/**
 * Finds the configured embedding model on disk (building the built-in static
 * model when it is missing) and opens an embedder for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { locateEmbeddingModel } from "./embedding_model.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const located = locateEmbeddingModel({
 *   modelId: "static-wink-100d",
 *   modelsDir: dir,
 * });
 * assert.equal(located.entry.dim, 100);
 * assert.equal(located.available, true); // built-in: it can be built here
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import { MemaError } from "../errors/mod.ts";
import { readBytes, readTextIfExists } from "../platform/files.ts";
import { pathExists } from "../platform/paths.ts";
import { createEmbedder, type Embedder, type EmbedDtype } from "./embedder.ts";
import { readInstallRecord } from "./install.ts";
import { findModel, loadManifest, type ModelEntry } from "./manifest.ts";
import {
  buildStaticModel,
  STATIC_MODEL_DROPS_FUNCTION_WORDS,
  STATIC_MODEL_MAX_WORDS,
  STATIC_MODEL_SIF_A,
} from "./static_model.ts";

/** Where the configured embedding model is, and whether it can be used. */
export interface LocatedModel {
  entry: ModelEntry;
  dir: string;
  /** Files are in place (or the model is built-in and can be built here). */
  available: boolean;
  /** Why not, with the fix. */
  problem?: { reason: string; fix: string };
}

/** The ONNX file transformers.js loads for a dtype. */
export function onnxFileFor(entry: ModelEntry): string {
  return entry.dtype === "q8" ? "onnx/model_quantized.onnx" : "onnx/model.onnx";
}

/** Resolves a model id against the manifest and the models directory, without loading it. */
export function locateEmbeddingModel(
  config: { modelId: string; modelsDir: string; manifestPath?: string },
): LocatedModel {
  const entry = findModel(loadManifest(config.manifestPath), config.modelId);
  if (entry.task !== "embedding" || entry.dim === undefined) {
    throw new MemaError("config_invalid", `model ${entry.id} is not an embedding model`, {
      field: "embedding_model",
    });
  }
  const dir = `${config.modelsDir}/${entry.id}`;
  if (entry.builtin) return { entry, dir, available: true };
  if (readInstallRecord(config.modelsDir, entry.id) === undefined) {
    return {
      entry,
      dir,
      available: false,
      problem: {
        reason:
          `embedding model ${entry.id} is configured but not installed in ${config.modelsDir}`,
        fix: `run \`mema setup --install --model ${entry.id}\``,
      },
    };
  }
  return { entry, dir, available: true };
}

/**
 * True when a built-in model on disk was built with this version's recipe;
 * an older build is rebuilt (its new fingerprint then marks the index
 * mismatch, and rebuild_evidence moves the vectors over).
 */
export function builtWithCurrentRecipe(dir: string): boolean {
  const text = readTextIfExists(`${dir}/config.json`);
  if (text === undefined) return false;
  try {
    const recorded = JSON.parse(text).mema ?? {};
    return recorded.sif_a === STATIC_MODEL_SIF_A && recorded.max_words === STATIC_MODEL_MAX_WORDS &&
      (recorded.dropped_words > 0) === STATIC_MODEL_DROPS_FUNCTION_WORDS;
  } catch {
    return false;
  }
}

/** A model ready to embed, with the fingerprint of its weights. */
export interface OpenedModel {
  entry: ModelEntry;
  dim: number;
  fingerprint: string;
  embedder: Embedder;
}

/** Builds a missing built-in model, fingerprints the weights and creates an embedder. */
export async function openEmbeddingModel(located: LocatedModel): Promise<OpenedModel> {
  const { entry, dir } = located;
  if (!located.available) {
    throw new MemaError("not_found", located.problem!.reason, { hint: located.problem!.fix });
  }
  const onnx = `${dir}/${onnxFileFor(entry)}`;
  if (entry.builtin && (!pathExists(onnx) || !builtWithCurrentRecipe(dir))) {
    await buildStaticModel(dir);
  }
  const fingerprint = createHash("sha256").update(readBytes(onnx)).digest("hex").slice(0, 12);
  const embedder = createEmbedder({
    modelDir: dir,
    dim: entry.dim!,
    pooling: entry.pooling ?? "mean",
    normalize: entry.normalize ?? true,
    queryPrefix: entry.query_prefix,
    passagePrefix: entry.passage_prefix,
    dtype: (entry.dtype ?? "fp32") as EmbedDtype,
  });
  return { entry, dim: entry.dim!, fingerprint, embedder };
}
