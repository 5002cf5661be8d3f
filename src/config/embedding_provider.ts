/**
 * The `embedding_provider` setting: embeddings from the user's own OpenAI-compatible model
 * server (Ollama, LM Studio, llama.cpp, vLLM, TEI) or a hosted API, instead of a model from the
 * manifest. The config holds where the API key is (an environment variable's name or a file's
 * path), never the key itself: the key is read when a request is made.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveEmbeddingProvider } from "./embedding_provider.ts";
 *
 * const provider = resolveEmbeddingProvider(
 *   { url: "http://localhost:11434/v1/", model: "nomic-embed-text" },
 *   () => undefined,
 * );
 * assert.equal(provider?.url, "http://localhost:11434/v1"); // no trailing slash
 * assert.equal(provider?.batchSize, 64);
 * ```
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { expandHome } from "./paths.ts";

/** Texts per request unless `batch_size` says otherwise (OpenAI accepts up to 2,048 inputs). */
export const PROVIDER_BATCH_SIZE_DEFAULT = 64;
/** One request's time bound for background embedding unless `timeout_ms` says otherwise. */
export const PROVIDER_TIMEOUT_DEFAULT_MS = 30_000;
/**
 * How long `find` waits for its query vector before answering lexically with a warning. A local
 * Ollama answers one short text in ~10–50 ms and a hosted API in ~100–400 ms; 1.5 s covers a
 * slow hop without making a `find` feel stuck.
 */
export const PROVIDER_QUERY_TIMEOUT_DEFAULT_MS = 1_500;

/** The block in the config file. */
export const embeddingProviderFileSchema = z.object({
  url: z.string().min(1),
  model: z.string().min(1).max(200),
  dimensions: z.number().int().min(1).max(16_384).optional(),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
    .optional(),
  api_key_file: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  query_prefix: z.string().max(200).optional(),
  document_prefix: z.string().max(200).optional(),
  batch_size: z.number().int().min(1).max(2_048).optional(),
  timeout_ms: z.number().int().min(100).max(600_000).optional(),
  query_timeout_ms: z.number().int().min(50).max(60_000).optional(),
  requests_per_second: z.number().positive().max(10_000).optional(),
  similarity_floor: z.number().min(-1).max(1).optional(),
}).strict();

/** The block as the config file holds it. */
export type EmbeddingProviderFile = z.infer<typeof embeddingProviderFileSchema>;

/** The resolved provider setting. Holds no secret: only where the key is. */
export interface EmbeddingProviderConfig {
  /** Base URL of the API, without a trailing slash; requests go to `{url}/embeddings`. */
  url: string;
  model: string;
  /** Expected vector length; checked against every answer. Unset: the first answer says. */
  dimensions?: number;
  /** The environment variable that holds the API key. */
  apiKeyEnv?: string;
  /** The file that holds the API key (first line). */
  apiKeyFile?: string;
  /** Extra request headers (e.g. an organisation id); never shown anywhere. */
  headers: Record<string, string>;
  queryPrefix: string;
  documentPrefix: string;
  batchSize: number;
  timeoutMs: number;
  queryTimeoutMs: number;
  /** Cap on requests per second; unset: no cap. */
  requestsPerSecond?: number;
  /** Cosine below which a semantic-only candidate is dropped (docs/SPEC.md §6). */
  similarityFloor?: number;
}

/** Environment overrides, in the project's `MEMA_*` style. */
export const PROVIDER_ENV = {
  url: "MEMA_EMBEDDING_PROVIDER_URL",
  model: "MEMA_EMBEDDING_PROVIDER_MODEL",
  dimensions: "MEMA_EMBEDDING_PROVIDER_DIMENSIONS",
  apiKeyEnv: "MEMA_EMBEDDING_PROVIDER_API_KEY_ENV",
} as const;

/** Checks a base URL: http(s) only, no credentials or query in it. */
export function checkProviderUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new MemaError("config_invalid", `${field} is not a URL: "${value}"`, {
      field,
      hint: "give the API's base URL, e.g. http://localhost:11434/v1",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new MemaError("config_invalid", `${field} must be an http:// or https:// URL`, { field });
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new MemaError(
      "config_invalid",
      `${field} must be a plain base URL (no user, password, query or fragment)`,
      { field, hint: "put the API key in an environment variable and name it in api_key_env" },
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/**
 * The provider setting from the file's block and the environment (each environment variable
 * overrides one key; `MEMA_EMBEDDING_PROVIDER_URL=none` switches a configured provider off).
 * Undefined when no provider is configured.
 */
export function resolveEmbeddingProvider(
  file: EmbeddingProviderFile | undefined,
  env: (name: string) => string | undefined,
): EmbeddingProviderConfig | undefined {
  const envUrl = env(PROVIDER_ENV.url);
  if (envUrl === "none") return undefined;
  const rawUrl = envUrl ?? file?.url;
  if (rawUrl === undefined) return undefined;
  const url = checkProviderUrl(
    rawUrl,
    envUrl !== undefined ? PROVIDER_ENV.url : "embedding_provider.url",
  );
  const model = env(PROVIDER_ENV.model) ?? file?.model;
  if (model === undefined) {
    throw new MemaError("config_invalid", "embedding_provider needs a model name", {
      field: "embedding_provider.model",
      hint: `set "model" in embedding_provider or ${PROVIDER_ENV.model}`,
    });
  }
  const envDims = env(PROVIDER_ENV.dimensions);
  let dimensions = file?.dimensions;
  if (envDims !== undefined) {
    dimensions = /^\d{1,5}$/.test(envDims) ? Number(envDims) : NaN;
    if (!(dimensions >= 1 && dimensions <= 16_384)) {
      throw new MemaError(
        "config_invalid",
        `${PROVIDER_ENV.dimensions} must be an integer from 1 to 16384 (got "${envDims}")`,
        { field: PROVIDER_ENV.dimensions },
      );
    }
  }
  const apiKeyEnv = env(PROVIDER_ENV.apiKeyEnv) ?? file?.api_key_env;
  if (apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) {
    throw new MemaError("config_invalid", `${PROVIDER_ENV.apiKeyEnv} must be a variable name`, {
      field: PROVIDER_ENV.apiKeyEnv,
      hint: "name the variable that holds the key, never the key itself",
    });
  }
  return {
    url,
    model,
    ...(dimensions === undefined ? {} : { dimensions }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    ...(file?.api_key_file === undefined ? {} : { apiKeyFile: expandHome(file.api_key_file) }),
    headers: file?.headers ?? {},
    queryPrefix: file?.query_prefix ?? "",
    documentPrefix: file?.document_prefix ?? "",
    batchSize: file?.batch_size ?? PROVIDER_BATCH_SIZE_DEFAULT,
    timeoutMs: file?.timeout_ms ?? PROVIDER_TIMEOUT_DEFAULT_MS,
    queryTimeoutMs: file?.query_timeout_ms ?? PROVIDER_QUERY_TIMEOUT_DEFAULT_MS,
    ...(file?.requests_per_second === undefined
      ? {}
      : { requestsPerSecond: file.requests_per_second }),
    ...(file?.similarity_floor === undefined ? {} : { similarityFloor: file.similarity_floor }),
  };
}
