/**
 * Loads the committed tiny fixture models (tests/fixtures/models/, made by
 * scripts/fixtures/make_tiny_models.py) through transformers.js and onnxruntime-node under Deno,
 * the same path the real embedding model and NLI judge take, without any hub access.
 *
 * The weights are random, so these tests check loading, shapes, tokenization, padding and
 * truncation, and agreement with the PyTorch reference outputs, never meaning.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ensureModelStackPart, importTransformersModule } from "../../src/models/model_stack.ts";

const FIXTURES = new URL("../fixtures/models/", import.meta.url);
const EMBED_DIR = fileURLToPath(new URL("tiny-bert-embed", FIXTURES));
const NLI_DIR = fileURLToPath(new URL("tiny-nli", FIXTURES));

/** The ONNX graph and the PyTorch module differ only by float rounding. */
const REFERENCE_TOLERANCE = 1e-4;

// The package is not in deno.json (src/models/model_stack.ts), so its types are not either.
// deno-lint-ignore no-explicit-any
type Transformers = any;

async function loadTransformers(): Promise<Transformers> {
  // Imported inside the tests so that loading the native onnxruntime addon is part of what
  // they check, and so other test modules never pay for it.
  await ensureModelStackPart("transformers");
  const transformers = await importTransformersModule() as unknown as Transformers;
  transformers.env.allowRemoteModels = false;
  transformers.env.allowLocalModels = true;
  return transformers;
}

async function readReference(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(`${dir}/fixture_reference.json`));
}

async function loadNli(): Promise<{
  tokenizer: Transformers;
  model: Transformers;
}> {
  const { AutoTokenizer, AutoModelForSequenceClassification } = await loadTransformers();
  const tokenizer = await AutoTokenizer.from_pretrained(NLI_DIR);
  const model = await AutoModelForSequenceClassification.from_pretrained(NLI_DIR, {
    dtype: "fp32",
  });
  return { tokenizer, model };
}

function rows(data: ArrayLike<number>, width: number): number[][] {
  const flat = Array.from(data);
  const out: number[][] = [];
  for (let i = 0; i < flat.length; i += width) out.push(flat.slice(i, i + width));
  return out;
}

function assertClose(actual: number[][], expected: number[][], what: string): void {
  assert.equal(actual.length, expected.length, `${what}: row count`);
  actual.forEach((row, i) => {
    assert.equal(row.length, expected[i].length, `${what}[${i}]: width`);
    row.forEach((value, j) => {
      const gap = Math.abs(value - expected[i][j]);
      assert.ok(gap < REFERENCE_TOLERANCE, `${what}[${i}][${j}]: ${value} vs ${expected[i][j]}`);
    });
  });
}

function norm(vector: number[]): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function cosine(a: number[], b: number[]): number {
  return a.reduce((sum, x, i) => sum + x * b[i], 0) / (norm(a) * norm(b));
}

function softmax(logits: number[]): number[] {
  const top = Math.max(...logits);
  const exps = logits.map((x) => Math.exp(x - top));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((x) => x / total);
}

function idsOf(tensor: { data: ArrayLike<bigint | number>; dims: number[] }): number[][] {
  return rows(Array.from(tensor.data, Number), tensor.dims[1]);
}

function unpadded(ids: number[][], mask: number[][]): number[][] {
  return ids.map((row, i) => row.filter((_, j) => mask[i][j] === 1));
}

Deno.test("tiny-bert-embed gives distinct unit vectors of dimension 32", async () => {
  const { pipeline } = await loadTransformers();
  const reference = await readReference(EMBED_DIR);
  const texts = reference.texts as string[];
  const extractor = await pipeline("feature-extraction", EMBED_DIR, { dtype: "fp32" });
  try {
    const output = await extractor(texts, { pooling: "mean", normalize: true });
    assert.deepEqual(output.dims, [texts.length, 32]);
    const vectors = rows(output.data as Float32Array, 32);
    for (const vector of vectors) {
      assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `norm ${norm(vector)}`);
    }
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) {
        const similarity = cosine(vectors[i], vectors[j]);
        assert.ok(similarity < 0.99, `texts ${i} and ${j} embed alike (cosine ${similarity})`);
      }
    }
    assertClose(vectors, reference.mean_pooled_normalized as number[][], "embedding");

    const encoded = extractor.tokenizer(texts, { padding: true });
    const mask = idsOf(encoded.attention_mask);
    assert.deepEqual(unpadded(idsOf(encoded.input_ids), mask), reference.input_ids);
  } finally {
    await extractor.dispose();
  }
});

Deno.test("tiny-bert-embed: padding in a batch does not change a text's vector", async () => {
  const { pipeline } = await loadTransformers();
  const extractor = await pipeline("feature-extraction", EMBED_DIR, { dtype: "fp32" });
  try {
    const short = "green tea";
    const long = "a much longer sentence about the old river and the sea";
    const batch = await extractor([short, long], { pooling: "mean", normalize: true });
    const alone = await extractor(short, { pooling: "mean", normalize: true });
    const inBatch = rows(batch.data as Float32Array, 32)[0];
    assertClose([inBatch], rows(alone.data as Float32Array, 32), "alone vs in a padded batch");
  } finally {
    await extractor.dispose();
  }
});

Deno.test("tiny-nli scores a batch of pairs with the label names from config", async () => {
  const reference = await readReference(NLI_DIR);
  const pairs = reference.pairs as [string, string][];
  const { tokenizer, model } = await loadNli();
  try {
    // PretrainedConfig's type omits id2label, but from_pretrained keeps every config.json key.
    const { id2label } = model.config as unknown as { id2label: Record<string, string> };
    assert.deepEqual([0, 1, 2].map((i) => id2label[i]), ["contradiction", "entailment", "neutral"]);

    const inputs = tokenizer(pairs.map((p) => p[0]), {
      text_pair: pairs.map((p) => p[1]),
      padding: true,
      truncation: true,
    });
    const mask = idsOf(inputs.attention_mask);
    assert.deepEqual(unpadded(idsOf(inputs.input_ids), mask), reference.input_ids);
    assert.ok(inputs.token_type_ids, "a BERT pair encoding carries token_type_ids");
    assert.deepEqual(unpadded(idsOf(inputs.token_type_ids), mask), reference.token_type_ids);

    const { logits } = await model(inputs);
    assert.deepEqual(logits.dims, [2, 3]);
    const scores = rows(logits.data as Float32Array, 3);
    assertClose(scores, reference.logits as number[][], "logits");
    for (const probabilities of scores.map(softmax)) {
      assert.equal(probabilities.length, 3);
      assert.ok(probabilities.every((p) => p > 0 && p < 1));
      assert.ok(Math.abs(probabilities.reduce((a, b) => a + b, 0) - 1) < 1e-6);
    }
    assertClose(scores.map(softmax), reference.probabilities as number[][], "probabilities");
  } finally {
    await model.dispose();
  }
});

Deno.test("tiny-nli truncates pairs longer than its 128 positions instead of failing", async () => {
  const { tokenizer, model } = await loadNli();
  try {
    const long = "the old man walked to the river and sat down near the water ".repeat(20);
    const inputs = tokenizer([long, "short"], {
      text_pair: [long, long],
      padding: true,
      truncation: true,
    });
    assert.deepEqual(inputs.input_ids.dims, [2, 128]);
    const { logits } = await model(inputs);
    assert.deepEqual(logits.dims, [2, 3]);
    assert.ok(Array.from(logits.data as Float32Array).every(Number.isFinite));
  } finally {
    await model.dispose();
  }
});
