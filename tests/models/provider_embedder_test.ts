import assert from "node:assert/strict";
import type { EmbeddingProviderConfig } from "../../src/config/embedding_provider.ts";
import {
  createProviderEmbedder,
  ProviderUnavailable,
  retryAfterMs,
} from "../../src/models/provider_embedder.ts";
import { PROVIDER_INPUT_MAX_CHARS } from "../../src/models/provider_constants.ts";
import { FAKE_DIM, fakeVector, startFakeEmbeddingServer } from "../helpers/embedding_server.ts";

const KEY = "sk-test-5ecret-key-never-shown";

function configFor(url: string, extra: Partial<EmbeddingProviderConfig> = {}) {
  return {
    url,
    model: "fake-embed",
    headers: {},
    queryPrefix: "",
    documentPrefix: "",
    batchSize: 64,
    timeoutMs: 5_000,
    queryTimeoutMs: 1_000,
    ...extra,
  } satisfies EmbeddingProviderConfig;
}

async function rejection(promise: Promise<unknown>): Promise<ProviderUnavailable> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderUnavailable, String(error));
    return error;
  }
  assert.fail("expected the call to fail");
}

Deno.test("provider: vectors come back as the server gave them, in input order, in batches", async () => {
  const server = startFakeEmbeddingServer();
  try {
    const embedder = createProviderEmbedder(
      configFor(server.url, { batchSize: 2, documentPrefix: "passage: " }),
    );
    const texts = ["car broke down", "", "fresh strawberries", "tax filing"];
    const vectors = await embedder.embed(texts, "passage");
    assert.equal(server.requests.length, 2, "3 texts with words in batches of 2");
    assert.deepEqual(server.requests[0].inputs, [
      "passage: car broke down",
      "passage: fresh strawberries",
    ]);
    assert.equal(vectors.length, 4);
    assert.deepEqual(
      [...vectors[0]],
      Float32Array.from(fakeVector("passage: car broke down")).values().toArray(),
    );
    assert.ok(vectors[1].every((x) => x === 0), "a blank text keeps the zero vector");
    assert.equal(embedder.dim, FAKE_DIM);
  } finally {
    await server.stop();
  }
});

Deno.test("provider: a 429 with Retry-After is waited out, then the batch succeeds", async () => {
  const server = startFakeEmbeddingServer();
  try {
    server.script({ status: 429, retryAfter: "1" });
    const embedder = createProviderEmbedder(configFor(server.url));
    const started = Date.now();
    const [vector] = await embedder.embed(["dog"], "passage");
    assert.equal(vector.length, FAKE_DIM);
    assert.equal(server.requests.length, 2);
    const gap = server.requests[1].at - server.requests[0].at;
    assert.ok(gap >= 950, `the retry waited for Retry-After (gap ${gap} ms)`);
    assert.ok(Date.now() - started < 4_000);
    assert.equal(embedder.outage, undefined);
  } finally {
    await server.stop();
  }
});

Deno.test("provider: 500s are retried with backoff; a lasting failure opens an outage that makes no requests", async () => {
  const server = startFakeEmbeddingServer();
  try {
    server.script({ status: 500 }, { status: 502 });
    const embedder = createProviderEmbedder(configFor(server.url));
    await embedder.embed(["dog"], "passage");
    assert.equal(server.requests.length, 3, "two failures, then the answer");

    server.breakWith({ status: 503, body: "overloaded" });
    const error = await rejection(embedder.embed(["dog"], "passage"));
    assert.match(error.reason, /HTTP 503: overloaded/);
    const asked = server.requests.length;
    assert.equal(asked, 3 + 4, "first try and three retries");
    assert.ok(embedder.outage && embedder.outage.retryAt > Date.now());
    // Until the retry time nothing is sent: a find answers at once.
    const started = performance.now();
    await rejection(embedder.embed(["dog"], "query"));
    assert.ok(performance.now() - started < 50);
    assert.equal(server.requests.length, asked);
  } finally {
    await server.stop();
  }
});

Deno.test("provider: a query tries once, within its own timeout", async () => {
  const server = startFakeEmbeddingServer();
  try {
    server.script({ hangMs: 1_500 });
    const embedder = createProviderEmbedder(configFor(server.url, { queryTimeoutMs: 200 }));
    const started = performance.now();
    const error = await rejection(embedder.embed(["dog"], "query"));
    assert.ok(performance.now() - started < 1_000, "the query did not wait for the server");
    assert.match(error.reason, /did not answer within 200 ms/);
    assert.equal(server.requests.length, 1, "a query is not retried");
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await server.stop();
  }
});

Deno.test("provider: wrong dimensions and malformed JSON are refused with the reason", async () => {
  const server = startFakeEmbeddingServer();
  try {
    const configured = createProviderEmbedder(configFor(server.url, { dimensions: 32 }));
    const wrong = await rejection(configured.embed(["dog"], "passage"));
    assert.match(wrong.reason, /64-dimensional vectors for fake-embed, expected 32/);
    assert.equal(server.requests.length, 1, "a wrong answer is not retried");

    const learnt = createProviderEmbedder(configFor(server.url));
    await learnt.embed(["dog"], "passage");
    server.script({ wrongDims: 16 });
    const changed = await rejection(learnt.embed(["cat"], "passage"));
    assert.match(changed.reason, /16-dimensional vectors for fake-embed, expected 64/);

    const fresh = createProviderEmbedder(configFor(server.url));
    server.script({ malformed: true });
    const malformed = await rejection(fresh.embed(["dog"], "passage"));
    assert.match(malformed.reason, /unusable answer: not JSON/);
  } finally {
    await server.stop();
  }
});

Deno.test("provider: the key is sent as a bearer token and cut out of every message", async () => {
  const server = startFakeEmbeddingServer();
  Deno.env.set("MEMA_TEST_PROVIDER_KEY", KEY);
  try {
    const embedder = createProviderEmbedder(
      configFor(server.url, {
        apiKeyEnv: "MEMA_TEST_PROVIDER_KEY",
        headers: { "x-org": "org-12345678" },
      }),
    );
    await embedder.embed(["dog"], "passage");
    assert.equal(server.requests[0].headers.get("authorization"), `Bearer ${KEY}`);
    assert.equal(server.requests[0].headers.get("x-org"), "org-12345678");
    // A server that echoes the request headers in its error body.
    server.script({ status: 401, body: `invalid key ${KEY} for org org-12345678` });
    const error = await rejection(embedder.embed(["cat"], "passage"));
    assert.ok(!error.reason.includes(KEY), error.reason);
    assert.ok(!error.reason.includes("org-12345678"), error.reason);
    assert.match(error.reason, /HTTP 401: invalid key \[redacted\]/);
    assert.ok(!String(embedder.outage?.reason).includes(KEY));
  } finally {
    Deno.env.delete("MEMA_TEST_PROVIDER_KEY");
    await server.stop();
  }
});

Deno.test("provider: a missing key variable is said by name, without a request", async () => {
  const server = startFakeEmbeddingServer();
  try {
    const embedder = createProviderEmbedder(
      configFor(server.url, { apiKeyEnv: "MEMA_TEST_PROVIDER_KEY_UNSET" }),
    );
    const error = await rejection(embedder.embed(["dog"], "passage"));
    assert.match(error.reason, /MEMA_TEST_PROVIDER_KEY_UNSET/);
    assert.equal(server.requests.length, 0);
  } finally {
    await server.stop();
  }
});

Deno.test("provider: the requests-per-second cap spaces requests out", async () => {
  const server = startFakeEmbeddingServer();
  try {
    const embedder = createProviderEmbedder(
      configFor(server.url, { batchSize: 1, requestsPerSecond: 10 }),
    );
    await embedder.embed(["one", "two", "three", "four", "five"], "passage");
    const times = server.requests.map((request) => request.at);
    const span = times[times.length - 1] - times[0];
    console.log(`5 requests at 10/s spanned ${span} ms`);
    assert.ok(span >= 380, `4 gaps of 100 ms (span ${span} ms)`);
  } finally {
    await server.stop();
  }
});

Deno.test("provider: Retry-After reads seconds and HTTP dates", () => {
  assert.equal(retryAfterMs("2"), 2_000);
  assert.equal(retryAfterMs(null), undefined);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now), 5_000);
  assert.equal(retryAfterMs("soon"), undefined);
});

Deno.test("provider: the key can come from a file's first line; an empty file is said by path", async () => {
  const server = startFakeEmbeddingServer();
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/key`, `${KEY}\n# a comment line mema does not read\n`);
    const embedder = createProviderEmbedder(configFor(server.url, { apiKeyFile: `${dir}/key` }));
    await embedder.embed(["dog"], "passage");
    assert.equal(server.requests[0].headers.get("authorization"), `Bearer ${KEY}`);
    Deno.writeTextFileSync(`${dir}/empty`, "\n");
    const empty = createProviderEmbedder(configFor(server.url, { apiKeyFile: `${dir}/empty` }));
    const error = await rejection(empty.embed(["dog"], "passage"));
    assert.match(error.reason, new RegExp(`key file ${dir}/empty .* is missing or empty`));
    assert.equal(server.requests.length, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
    await server.stop();
  }
});

Deno.test("provider: a text longer than a hosted API takes is cut before it is sent", async () => {
  const server = startFakeEmbeddingServer();
  try {
    const embedder = createProviderEmbedder(configFor(server.url));
    const long = "🚗".repeat(PROVIDER_INPUT_MAX_CHARS + 50);
    await embedder.embed([long], "passage");
    const sent = server.requests[0].inputs[0];
    assert.equal(Array.from(sent).length, PROVIDER_INPUT_MAX_CHARS);
    assert.ok(sent.endsWith("🚗"), "no half surrogate pair at the end");
  } finally {
    await server.stop();
  }
});
