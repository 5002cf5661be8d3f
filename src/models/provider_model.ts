/**
 * A model server seen as an embedding model: the manifest-like entry the vector index reads,
 * the model id (`provider:<model>`) and the fingerprint that make its embedding space. The
 * space is `provider:<model>:<dimension>:<fingerprint>`, so another model, another dimension
 * or another document prefix is a different space: the index reports `mismatch` and
 * `rebuild_evidence` moves it over, as for a change of local model (docs/SPEC.md §7).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerLocation, providerModelId } from "./provider_model.ts";
 *
 * const config = {
 *   url: "http://localhost:11434/v1",
 *   model: "nomic-embed-text",
 *   headers: {},
 *   queryPrefix: "search_query: ",
 *   documentPrefix: "search_document: ",
 *   batchSize: 64,
 *   timeoutMs: 30_000,
 *   queryTimeoutMs: 1_500,
 * };
 * assert.equal(providerModelId(config), "provider:nomic-embed-text");
 * assert.equal(providerLocation(config).entry.dim, undefined); // learnt from the server
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import type { EmbeddingProviderConfig } from "../config/embedding_provider.ts";
import type { LocatedModel, OpenedModel } from "./embedding_model.ts";
import type { ModelEntry } from "./manifest.ts";
import { type ProviderEmbedder, ProviderUnavailable } from "./provider_embedder.ts";

/** The id status, doctor and the space name show for a model server's model. */
export function providerModelId(config: EmbeddingProviderConfig): string {
  return `provider:${config.model}`;
}

/**
 * What makes the server's stored vectors what they are besides the model and the dimension:
 * the document prefix. The URL is left out on purpose: the same model moved to another host
 * gives the same vectors and needs no rebuild.
 */
export function providerFingerprint(config: EmbeddingProviderConfig): string {
  return createHash("sha256").update(`${config.model}\n${config.documentPrefix}`).digest("hex")
    .slice(0, 12);
}

function providerEntry(config: EmbeddingProviderConfig, dim?: number): ModelEntry {
  return {
    id: providerModelId(config),
    task: "embedding",
    description: `${config.model} from ${config.url}`,
    license: "as the model server's",
    ...(dim === undefined ? {} : { dim }),
    ...(config.similarityFloor === undefined ? {} : { similarity_floor: config.similarityFloor }),
    files: [],
  };
}

/** The model server as a located model: always "available"; whether it answers is for later. */
export function providerLocation(config: EmbeddingProviderConfig): LocatedModel {
  return { entry: providerEntry(config, config.dimensions), dir: "", available: true };
}

/**
 * The opened model: with no configured dimension, one request asks the server for it (the
 * vector table is created with it). While the server is out, fails at once.
 */
export async function openProviderModel(
  embedder: ProviderEmbedder,
  config: EmbeddingProviderConfig,
): Promise<OpenedModel> {
  const outage = embedder.outage;
  if (outage && Date.now() < outage.retryAt) {
    throw new ProviderUnavailable(outage.reason, outage.retryAt);
  }
  if (embedder.dim === 0) await embedder.probe();
  const dim = embedder.dim;
  return {
    entry: providerEntry(config, dim),
    dim,
    fingerprint: providerFingerprint(config),
    embedder,
  };
}

/** The warning and fix every answer carries while the server is out; undefined when it is not. */
export function outageWarning(
  embedder: ProviderEmbedder,
): { warning: string; fix: string } | undefined {
  const outage = embedder.outage;
  if (!outage) return undefined;
  return {
    warning:
      `the embedding provider ${embedder.endpoint} is unavailable since ${outage.since} (${outage.reason}): find matches words, not meaning, and embedding waits; both resume by themselves when it answers (next try ${
        new Date(outage.retryAt).toISOString()
      })`,
    fix: "start the model server or correct embedding_provider; `mema doctor` checks it",
  };
}

/**
 * `work`'s result, or `ProviderUnavailable` once `limitMs` pass: a `find` never waits longer
 * for its query vector. What was asked still finishes and its answer is dropped; the server is
 * then out until its retry time, so the next finds do not wait either (a failure the request
 * itself recorded meanwhile is not counted twice).
 */
export async function withinQueryTimeout<T>(
  work: Promise<T>,
  embedder: ProviderEmbedder,
  options: { limitMs: number },
): Promise<T> {
  const { limitMs } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const outage = embedder.outage ??
        embedder.reportFailure(`${embedder.endpoint} gave no query vector within ${limitMs} ms`);
      reject(new ProviderUnavailable(outage.reason, outage.retryAt));
    }, limitMs);
  });
  work.catch(() => {}); // a late failure is the outage's to record, not an unhandled rejection
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
