/**
 * A local OpenAI-compatible embedding server for tests (`POST /v1/embeddings`), standing in for
 * Ollama or a hosted API. Vectors are deterministic: each word is mapped to a concept (a few
 * synonyms share one, so "automobile stopped working" lands near "car broke down"), each
 * concept to a fixed pseudo-random direction, and a text to the sum of its concepts' directions
 * (not normalised, as some servers answer). Failures are scripted per request.
 * @module
 */

/** What the server does with one request instead of answering it well. */
export type ScriptedReply =
  | { status: number; retryAfter?: string; body?: string }
  | { hangMs: number }
  | { malformed: true }
  | { wrongDims: number };

/** A running fake server. */
export interface FakeEmbeddingServer {
  /** Base URL, `http://127.0.0.1:PORT/v1`. */
  url: string;
  port: number;
  /** Requests received: when, how many inputs, the headers and the inputs. */
  requests: { at: number; inputs: string[]; headers: Headers; model: string }[];
  /** Queues replies for the next requests, in order. */
  script(...replies: ScriptedReply[]): void;
  /** Every request fails this way until `heal()`. */
  breakWith(reply: ScriptedReply): void;
  heal(): void;
  /** Stops listening (connections are refused) until `start()`. */
  stop(): Promise<void>;
  start(): void;
}

/** Vector length of the fake model. */
export const FAKE_DIM = 64;

const SYNONYMS: string[][] = [
  ["car", "automobile", "vehicle", "auto"],
  ["broke", "broken", "stopped", "failed", "breakdown", "down", "working"],
  ["highway", "road", "motorway"],
  ["late", "delayed"],
  ["strawberries", "berries", "fruit", "strawberry"],
  ["physics", "quantum", "particles", "subatomic"],
  ["tax", "taxes", "filing", "irs"],
  ["dog", "puppy", "hound", "barks"],
];
const CONCEPT = new Map<string, string>();
for (const group of SYNONYMS) for (const word of group) CONCEPT.set(word, group[0]);

/** A fixed direction per concept (FNV-1a seeded xorshift). */
function direction(concept: string, dim: number): number[] {
  let seed = 2166136261;
  for (const char of concept) seed = Math.imul(seed ^ char.charCodeAt(0), 16777619) >>> 0;
  const out: number[] = [];
  for (let i = 0; i < dim; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    out.push((seed / 0xffffffff) * 2 - 1);
  }
  return out;
}

/** The fake model's vector of a text. */
export function fakeVector(text: string, dim = FAKE_DIM): number[] {
  const sum = new Array(dim).fill(0);
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  for (const word of words) {
    if (word.length < 3 && !CONCEPT.has(word)) continue;
    const vector = direction(CONCEPT.get(word) ?? word, dim);
    for (let i = 0; i < dim; i++) sum[i] += vector[i] * 3;
  }
  return sum;
}

/** Starts the server on a free port (or `port`). */
export function startFakeEmbeddingServer(options: { port?: number } = {}): FakeEmbeddingServer {
  const queue: ScriptedReply[] = [];
  let broken: ScriptedReply | undefined;
  const requests: FakeEmbeddingServer["requests"] = [];
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  let port = options.port ?? 0;

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/v1/embeddings") {
      return new Response("not found", { status: 404 });
    }
    const body = await request.json();
    const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
    requests.push({ at: Date.now(), inputs, headers: request.headers, model: body.model });
    const reply = queue.shift() ?? broken;
    if (reply && "hangMs" in reply) {
      await new Promise((resolve) => setTimeout(resolve, reply.hangMs));
    } else if (reply && "status" in reply) {
      const headers: Record<string, string> = {};
      if (reply.retryAfter !== undefined) headers["retry-after"] = reply.retryAfter;
      return new Response(reply.body ?? `error ${reply.status}`, { status: reply.status, headers });
    } else if (reply && "malformed" in reply) {
      return new Response('{"data": [{"embedding": [0.1, 0.2', {
        headers: { "content-type": "application/json" },
      });
    }
    const dim = reply && "wrongDims" in reply ? reply.wrongDims : FAKE_DIM;
    return Response.json({
      object: "list",
      model: body.model,
      data: inputs.map((text, index) => ({
        object: "embedding",
        index,
        embedding: fakeVector(text, dim),
      })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  };

  const start = () => {
    server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, handle);
    port = server.addr.port;
  };
  start();
  return {
    get url() {
      return `http://127.0.0.1:${port}/v1`;
    },
    get port() {
      return port;
    },
    requests,
    script: (...replies) => queue.push(...replies),
    breakWith: (reply) => (broken = reply),
    heal: () => (broken = undefined),
    stop: async () => {
      await server?.shutdown();
      server = undefined;
    },
    start,
  };
}
