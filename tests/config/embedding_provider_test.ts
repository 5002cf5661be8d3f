/**
 * `embedding_provider`: the user's own model server, from the config file with one environment
 * override per main key; bad values are refused naming the key; the resolved setting names where
 * the API key is, never holds it.
 */
import { withEnvironment } from "../../src/platform/env.ts";
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import { MemaError } from "../../src/errors/mod.ts";

const ENV_NAMES = [
  "MEMA_EMBEDDING_PROVIDER_URL",
  "MEMA_EMBEDDING_PROVIDER_MODEL",
  "MEMA_EMBEDDING_PROVIDER_DIMENSIONS",
  "MEMA_EMBEDDING_PROVIDER_API_KEY_ENV",
  "MEMA_TEST_PROVIDER_SECRET",
];

function withConfig(
  file: Record<string, unknown>,
  run: (
    load: () => ReturnType<typeof loadConfig>,
    env: Record<string, string | undefined>,
  ) => void,
): void {
  const dir = Deno.makeTempDirSync();
  const env: Record<string, string | undefined> = Object.fromEntries(
    ENV_NAMES.map((name) => [name, undefined]),
  );
  try {
    const configPath = `${dir}/config.json`;
    Deno.writeTextFileSync(configPath, JSON.stringify(file));
    withEnvironment(
      env,
      () => run(() => loadConfig({ flags: { configPath, dbPath: `${dir}/mema.sqlite3` } }), env),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

function refused(load: () => unknown, pattern: RegExp): void {
  assert.throws(load, (error: unknown) => {
    assert.ok(error instanceof MemaError);
    assert.equal(error.code, "config_invalid");
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("embedding_provider: read from the file with its defaults; the key stays where it is", () => {
  withConfig({
    embedding_provider: {
      url: "http://localhost:11434/v1/",
      model: "nomic-embed-text",
      api_key_env: "MEMA_TEST_PROVIDER_SECRET",
      query_prefix: "search_query: ",
      document_prefix: "search_document: ",
      requests_per_second: 5,
      similarity_floor: 0.55,
    },
  }, (load, env) => {
    env["MEMA_TEST_PROVIDER_SECRET"] = "sk-config-test-secret";
    const config = load();
    const provider = config.embeddingProvider!;
    assert.equal(provider.url, "http://localhost:11434/v1");
    assert.equal(provider.model, "nomic-embed-text");
    assert.equal(provider.apiKeyEnv, "MEMA_TEST_PROVIDER_SECRET");
    assert.equal(provider.batchSize, 64);
    assert.equal(provider.queryTimeoutMs, 1_500);
    assert.equal(provider.requestsPerSecond, 5);
    assert.equal(provider.similarityFloor, 0.55);
    assert.equal(config.settingSources.embeddingProvider, "file");
    assert.ok(!JSON.stringify(config).includes("sk-config-test-secret"));
  });
});

Deno.test("embedding_provider: the environment overrides url, model and dimensions, or switches it off", () => {
  withConfig({ embedding_provider: { url: "http://a.example/v1", model: "one" } }, (load, env) => {
    env["MEMA_EMBEDDING_PROVIDER_URL"] = "https://api.example.com/v1";
    env["MEMA_EMBEDDING_PROVIDER_MODEL"] = "two";
    env["MEMA_EMBEDDING_PROVIDER_DIMENSIONS"] = "768";
    const provider = load().embeddingProvider!;
    assert.deepEqual([provider.url, provider.model, provider.dimensions], [
      "https://api.example.com/v1",
      "two",
      768,
    ]);
    env["MEMA_EMBEDDING_PROVIDER_DIMENSIONS"] = "wide";
    refused(load, /MEMA_EMBEDDING_PROVIDER_DIMENSIONS must be an integer/);
    env["MEMA_EMBEDDING_PROVIDER_URL"] = "none";
    assert.equal(load().embeddingProvider, undefined);
  });
  withConfig({}, (load, env) => {
    assert.equal(load().embeddingProvider, undefined);
    env["MEMA_EMBEDDING_PROVIDER_URL"] = "http://localhost:8080/v1";
    refused(load, /embedding_provider needs a model name/);
  });
});

Deno.test("embedding_provider: bad values are refused naming the key, and a key in the URL is refused", () => {
  withConfig({ embedding_provider: { url: "ftp://x/v1", model: "m" } }, (load) => {
    refused(load, /embedding_provider.url must be an http/);
  });
  withConfig({ embedding_provider: { url: "https://user:sk-abc@x/v1", model: "m" } }, (load) => {
    refused(load, /plain base URL/);
  });
  withConfig({ embedding_provider: { url: "http://x/v1", model: "m", batch_size: 0 } }, (load) => {
    refused(load, /embedding_provider.batch_size/);
  });
  withConfig(
    { embedding_provider: { url: "http://x/v1", model: "m", api_key: "sk-1" } },
    (load) => {
      refused(load, /unknown key "embedding_provider.api_key"/);
    },
  );
});
