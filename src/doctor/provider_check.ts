/**
 * Doctor's check of an embedding provider (the user's own model server): one timed request
 * says whether it is reachable, knows the model and gives the expected dimension; the vector
 * index is then compared with the space the server's answers make. Never prints the API key
 * (messages from the server are redacted by the client) nor the extra headers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerFindings } from "./provider_check.ts";
 *
 * // Nothing listens on port 9 of this machine: one warning, with the endpoint and why.
 * const findings = await providerFindings({
 *   url: "http://127.0.0.1:9/v1",
 *   model: "nomic-embed-text",
 *   headers: {},
 *   queryPrefix: "",
 *   documentPrefix: "",
 *   batchSize: 64,
 *   timeoutMs: 2_000,
 *   queryTimeoutMs: 1_000,
 * }, undefined);
 * assert.equal(findings[0].check_id, "vector.provider");
 * assert.equal(findings[0].severity, "warning");
 * ```
 * @module
 */
import type { EmbeddingProviderConfig } from "../config/embedding_provider.ts";
import { isMemaError } from "../errors/mod.ts";
import { createProviderEmbedder } from "../models/provider_embedder.ts";
import { providerFingerprint, providerModelId } from "../models/provider_model.ts";
import type { DatabaseProbe } from "../store/mod.ts";
import type { Finding } from "./mod.ts";
import { vectorCoverageFinding } from "./vector_index_check.ts";

/** Where the key comes from, by name only. */
function keySource(config: EmbeddingProviderConfig): string {
  if (config.apiKeyEnv) return `API key from $${config.apiKeyEnv}`;
  if (config.apiKeyFile) return `API key from ${config.apiKeyFile}`;
  return "no API key";
}

/** The provider findings: the endpoint, then the index against it. */
export async function providerFindings(
  config: EmbeddingProviderConfig,
  facts: DatabaseProbe["evidence"] | undefined,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const embedder = createProviderEmbedder(config);
  let dim: number | undefined;
  try {
    const probe = await embedder.probe();
    dim = probe.dim;
    findings.push({
      check_id: "vector.provider",
      severity: "info",
      title: `the embedding provider answers for ${config.model}`,
      detail: `${embedder.endpoint}: ${probe.dim} dimensions, ${probe.latencyMs} ms for one text (${
        keySource(config)
      })`,
    });
  } catch (error) {
    findings.push({
      check_id: "vector.provider",
      severity: "warning",
      title: "the embedding provider cannot be used",
      detail: `${isMemaError(error) ? error.reason : String(error)} (${keySource(config)})`,
      fix_hint:
        "start the model server (e.g. `ollama serve` and `ollama pull <model>`), or correct embedding_provider in the config file; until it answers, recall is lexical and embedding waits",
    });
  }
  if (!facts || dim === undefined) return findings;
  const space = `${providerModelId(config)}:${dim}:${providerFingerprint(config)}`;
  if (facts.space !== undefined && facts.space !== space) {
    findings.push({
      check_id: "vector.index",
      severity: "warning",
      title: "the vector index belongs to another model (mismatch)",
      detail:
        `index built with ${facts.space}, the provider gives ${space}; vector recall is off until it is rebuilt`,
      fix_hint: 'run memory_repair {"task": "rebuild_evidence"} (dry_run first)',
    });
    return findings;
  }
  findings.push(vectorCoverageFinding(facts));
  return findings;
}
