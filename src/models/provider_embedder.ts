/**
 * Embeddings from an OpenAI-compatible server (`POST {url}/embeddings`, the route Ollama,
 * LM Studio, llama.cpp, vLLM, Hugging Face TEI and the hosted APIs share), behind the same
 * {@linkcode Embedder} face as the local model.
 *
 * What it does beyond one `fetch`:
 * - batches of `batch_size` texts; a cap on requests per second shared by every caller;
 * - background batches retry on 429, 5xx, timeouts and refused connections, waiting what
 *   `Retry-After` asks (else a doubling backoff); a query (a `find` waiting) tries once within
 *   its own short timeout;
 * - after a failure the endpoint is "out" until a retry time that doubles with each failure:
 *   until then every call fails at once without a request, so a `find` answers lexically
 *   without waiting and the embedding job sleeps until the retry time;
 * - every answer is checked: JSON, one vector per input, finite numbers, the same dimension
 *   (the configured one, else the first answer's);
 * - the API key (and every extra header value) is cut out of every message it builds, since a
 *   server may echo the request in its error body.
 *
 * Vectors are used as the server returns them: the vector index compares by cosine, which does
 * not depend on a vector's length, so nothing is normalised here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createProviderEmbedder } from "./provider_embedder.ts";
 *
 * const server = Deno.serve({ port: 0, onListen() {} }, async (request) => {
 *   const body = await request.json();
 *   const data = body.input.map((_: string, index: number) => ({ index, embedding: [1, index] }));
 *   return Response.json({ data });
 * });
 * const embedder = createProviderEmbedder({
 *   url: `http://127.0.0.1:${server.addr.port}/v1`,
 *   model: "fake",
 *   headers: {},
 *   queryPrefix: "",
 *   documentPrefix: "",
 *   batchSize: 64,
 *   timeoutMs: 5_000,
 *   queryTimeoutMs: 1_000,
 * });
 * const vectors = await embedder.embed(["a", "b"], "passage");
 * assert.deepEqual([...vectors[1]], [1, 1]);
 * assert.equal(embedder.dim, 2); // learnt from the first answer
 * await server.shutdown();
 * ```
 * @module
 */
import type { EmbeddingProviderConfig } from "../config/embedding_provider.ts";
import { MemaError } from "../errors/mod.ts";
import { envVar } from "../platform/env.ts";
import { readTextIfExists } from "../platform/files.ts";
import type { EmbedKind } from "./embedder.ts";
import {
  PROVIDER_ERROR_BODY_CHARS,
  PROVIDER_INPUT_MAX_CHARS,
  PROVIDER_OUTAGE_BASE_MS,
  PROVIDER_OUTAGE_MAX_MS,
  PROVIDER_RETRIES,
  PROVIDER_RETRY_AFTER_MAX_MS,
  PROVIDER_RETRY_BASE_MS,
} from "./provider_constants.ts";

/** Why the endpoint cannot be used now, and when it is tried again. */
export interface ProviderOutage {
  /** ISO time of the first failure of this outage. */
  since: string;
  /** The last failure, key redacted. */
  reason: string;
  /** Epoch ms before which no request is made. */
  retryAt: number;
  failures: number;
}

/** One timed request, for doctor and setup. */
export interface ProviderProbe {
  dim: number;
  latencyMs: number;
}

/** An embedder backed by a model server. */
export interface ProviderEmbedder {
  /** The vector length: configured, else learnt from the first answer (0 until then). */
  readonly dim: number;
  /** True once an answer came (the provider has nothing to load). */
  readonly loaded: boolean;
  /** `POST` target, for messages (holds no secret: the URL may not carry credentials). */
  readonly endpoint: string;
  /** Set while the endpoint is down or refusing. */
  readonly outage: ProviderOutage | undefined;
  /** One vector per text, in order (the zero vector for a blank text). */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  /**
   * Records a failure seen by the caller (a `find` that stopped waiting): the endpoint is out
   * until the next retry time, as after a failed request.
   */
  reportFailure(reason: string): ProviderOutage;
  /** One request now, whatever the outage says; throws what went wrong. */
  probe(): Promise<ProviderProbe>;
  unload(): Promise<void>;
}

/** Thrown while the endpoint is out; `retryAt` says when to come back. */
export class ProviderUnavailable extends MemaError {
  readonly retryAt: number;
  constructor(reason: string, retryAt: number) {
    super("provider_unavailable", reason, {
      hint: "check that the model server runs and answers `mema doctor`",
    });
    this.name = "ProviderUnavailable";
    this.retryAt = retryAt;
  }
}

/** Test seams: the clock and the sleep. */
export interface ProviderEmbedderOptions {
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** A failed attempt: whether another attempt may help, and how long to wait for it. */
interface AttemptFailure {
  reason: string;
  retryable: boolean;
  waitMs?: number;
}

/** Reads the API key from where the config says it is; undefined when none is configured. */
export function readProviderKey(config: EmbeddingProviderConfig): string | undefined {
  if (config.apiKeyEnv !== undefined) {
    const key = envVar(config.apiKeyEnv);
    if (key === undefined) {
      throw new MemaError(
        "config_invalid",
        `the environment variable ${config.apiKeyEnv} (embedding_provider.api_key_env) is not set`,
        { field: "embedding_provider.api_key_env", hint: "export it where mema runs" },
      );
    }
    return key.trim();
  }
  if (config.apiKeyFile !== undefined) {
    const text = readTextIfExists(config.apiKeyFile);
    const key = text?.split(/\r?\n/)[0].trim();
    if (!key) {
      throw new MemaError(
        "config_invalid",
        `the key file ${config.apiKeyFile} (embedding_provider.api_key_file) is missing or empty`,
        { field: "embedding_provider.api_key_file" },
      );
    }
    return key;
  }
  return undefined;
}

/** Cuts every secret out of a text (each occurrence, whole). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short values (e.g. "1") would shred ordinary text and are no secret worth hiding.
    if (secret.length >= 6) out = out.split(secret).join("[redacted]");
  }
  return out;
}

/** `Retry-After` as ms: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Creates the embedder; nothing is sent until the first `embed` or `probe`. */
export function createProviderEmbedder(
  config: EmbeddingProviderConfig,
  options: ProviderEmbedderOptions = {},
): ProviderEmbedder {
  const endpoint = `${config.url}/embeddings`;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const spacingMs = config.requestsPerSecond ? 1000 / config.requestsPerSecond : 0;
  let dim = config.dimensions ?? 0;
  let answered = false;
  let outage: ProviderOutage | undefined;
  let nextSlot = 0;
  const headerSecrets = Object.values(config.headers);

  const secrets = (): string[] => {
    try {
      const key = readProviderKey(config);
      return key === undefined ? headerSecrets : [key, ...headerSecrets];
    } catch {
      return headerSecrets;
    }
  };
  const redact = (text: string): string => redactSecrets(text, secrets());

  /** Waits for this request's turn under the requests-per-second cap. */
  const takeSlot = async (): Promise<void> => {
    if (spacingMs === 0) return;
    const now = Date.now();
    const at = Math.max(now, nextSlot);
    nextSlot = at + spacingMs;
    if (at > now) await sleep(at - now);
  };

  const markDown = (reason: string, waitMs?: number): ProviderOutage => {
    const failures = (outage?.failures ?? 0) + 1;
    const backoff = Math.min(PROVIDER_OUTAGE_MAX_MS, PROVIDER_OUTAGE_BASE_MS * 2 ** (failures - 1));
    outage = {
      since: outage?.since ?? new Date().toISOString(),
      reason,
      retryAt: Date.now() + Math.max(backoff, waitMs ?? 0),
      failures,
    };
    return outage;
  };

  /** One request for one batch: vectors, or why not. */
  const attempt = async (
    inputs: string[],
    timeoutMs: number,
  ): Promise<Float32Array[] | AttemptFailure> => {
    let key: string | undefined;
    try {
      key = readProviderKey(config);
    } catch (error) {
      return { reason: (error as MemaError).reason, retryable: false };
    }
    await takeSlot();
    let response: Response;
    let text: string;
    try {
      response = await doFetch(endpoint, {
        method: "POST",
        headers: {
          ...config.headers,
          "content-type": "application/json",
          ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        },
        body: JSON.stringify({ model: config.model, input: inputs, encoding_format: "float" }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      return {
        reason: timedOut
          ? `${endpoint} did not answer within ${timeoutMs} ms`
          : `${endpoint} cannot be reached (${redact(describeFetchError(error))})`,
        retryable: true,
      };
    }
    if (!response.ok) {
      const retryable = response.status === 429 || response.status >= 500;
      const body = redact(text.replace(/\s+/g, " ").trim().slice(0, PROVIDER_ERROR_BODY_CHARS));
      return {
        reason: `${endpoint} answered HTTP ${response.status}${body ? `: ${body}` : ""}`,
        retryable,
        waitMs: retryAfterMs(response.headers.get("retry-after")),
      };
    }
    const parsed = parseAnswer(text, inputs.length);
    if (typeof parsed === "string") {
      return { reason: `${endpoint} gave an unusable answer: ${redact(parsed)}`, retryable: false };
    }
    const got = parsed[0].length;
    if (dim !== 0 && got !== dim) {
      return {
        reason: `${endpoint} gave ${got}-dimensional vectors for ${config.model}, expected ${dim}`,
        retryable: false,
      };
    }
    dim = got;
    answered = true;
    return parsed;
  };

  /** A batch with retries (background) or one try (query); marks the outage on failure. */
  const runBatch = async (inputs: string[], kind: EmbedKind): Promise<Float32Array[]> => {
    const isQuery = kind === "query";
    const retries = isQuery ? 0 : PROVIDER_RETRIES;
    const timeoutMs = isQuery ? config.queryTimeoutMs : config.timeoutMs;
    for (let tried = 0;; tried++) {
      const result = await attempt(inputs, timeoutMs);
      if (Array.isArray(result)) {
        outage = undefined;
        return result;
      }
      const wait = result.waitMs ?? PROVIDER_RETRY_BASE_MS * 2 ** tried;
      if (!result.retryable || tried >= retries || wait > PROVIDER_RETRY_AFTER_MAX_MS) {
        const down = markDown(result.reason, result.waitMs);
        throw new ProviderUnavailable(result.reason, down.retryAt);
      }
      await sleep(wait);
    }
  };

  return {
    get dim(): number {
      return dim;
    },
    get loaded(): boolean {
      return answered;
    },
    endpoint,
    get outage(): ProviderOutage | undefined {
      return outage;
    },
    async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
      if (outage && Date.now() < outage.retryAt) {
        throw new ProviderUnavailable(outage.reason, outage.retryAt);
      }
      const prefix = kind === "query" ? config.queryPrefix : config.documentPrefix;
      const vectors: (Float32Array | undefined)[] = texts.map(() => undefined);
      // Blank texts carry no meaning and some servers refuse them: they keep the zero vector.
      const work = texts.flatMap((text, index) => text.trim() === "" ? [] : [index]);
      for (let start = 0; start < work.length; start += config.batchSize) {
        const indexes = work.slice(start, start + config.batchSize);
        const batch = await runBatch(
          indexes.map((index) => clip(prefix + texts[index], PROVIDER_INPUT_MAX_CHARS)),
          kind,
        );
        indexes.forEach((index, row) => (vectors[index] = batch[row]));
      }
      return vectors.map((vector) => vector ?? new Float32Array(dim));
    },
    reportFailure(reason: string): ProviderOutage {
      return markDown(redact(reason));
    },
    async probe(): Promise<ProviderProbe> {
      const started = performance.now();
      const result = await attempt(
        [`${config.documentPrefix}mema checks this endpoint`],
        config.timeoutMs,
      );
      if (!Array.isArray(result)) {
        markDown(result.reason, result.waitMs);
        throw new ProviderUnavailable(result.reason, outage!.retryAt);
      }
      outage = undefined;
      return { dim, latencyMs: Math.round(performance.now() - started) };
    },
    unload(): Promise<void> {
      return Promise.resolve();
    },
  };
}

/** `text` cut to at most `max` code points (a surrogate pair is never split). */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join("");
}

/** A failed fetch's message with its cause (the runtime puts "connection refused" there). */
function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  return cause === undefined ? String(error) : `${error}: ${cause}`;
}

/** The vectors of an OpenAI-style answer in input order, or what is wrong with it. */
function parseAnswer(text: string, count: number): Float32Array[] | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON (${JSON.stringify(text.slice(0, 80))}…)`;
  }
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return 'no "data" list in the answer';
  if (data.length !== count) return `${data.length} vectors for ${count} inputs`;
  const ordered = [...data].sort((a, b) => (a?.index ?? 0) - (b?.index ?? 0));
  const vectors: Float32Array[] = [];
  for (const item of ordered) {
    const embedding = item?.embedding;
    if (!Array.isArray(embedding) || embedding.length === 0) {
      return 'an item without an "embedding" list of numbers (ask for encoding_format "float")';
    }
    if (!embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
      return "an embedding holds something other than finite numbers";
    }
    if (vectors.length > 0 && embedding.length !== vectors[0].length) {
      return "vectors of different lengths in one answer";
    }
    vectors.push(Float32Array.from(embedding));
  }
  return vectors;
}
