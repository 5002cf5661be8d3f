import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  buildStaticModel,
  isTokenizableWord,
  STATIC_MODEL_MAX_WORDS,
  STATIC_MODEL_SIF_A,
  STATIC_MODEL_SOURCE,
} from "../../src/models/static_model.ts";
import { MODEL_STACK } from "../../src/models/model_stack.ts";
import { ENGLISH_STOPWORDS, zipfProbability } from "../../src/models/static_weighting.ts";
import { readWinkVectors, winkVectorsPath } from "../../src/models/wink_vectors.ts";

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

/**
 * The float32 table of a built model: the `raw_data` field (tag 0x4a, then the varint byte
 * length) of the one initializer.
 */
function tableOf(model: Uint8Array, rows: number, dim: number): Float32Array {
  const length = rows * dim * 4;
  const header = [0x4a];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 128)) {
    header.push(rest >= 128 ? (rest % 128) | 0x80 : rest);
  }
  for (let start = 0; start + header.length + length <= model.length; start++) {
    if (header.every((byte, k) => model[start + k] === byte)) {
      const bytes = model.slice(start + header.length, start + header.length + length);
      const view = new DataView(bytes.buffer);
      return Float32Array.from({ length: rows * dim }, (_, i) => view.getFloat32(i * 4, true));
    }
  }
  throw new Error("no embedding table in the model");
}

function row(table: Float32Array, id: number, dim: number): number[] {
  return Array.from(table.slice(id * dim, (id + 1) * dim));
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
    // The default build's bytes, pinned: a change here changes every stored static vector's
    // meaning, so it must be deliberate (and re-measured, see STATIC_MODEL_SIF_A).
    assert.equal(info.sha256, "89e117a5ddb59647013b0e378b683320fb741696405bb9ebde87e8feaf005c64");
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

    assert.equal(config.mema.sif_a, STATIC_MODEL_SIF_A);
    assert.ok(config.mema.dropped_words > 100, "stopwords and punctuation get zero rows");

    const tokenizerConfig = JSON.parse(new TextDecoder().decode(files["tokenizer_config.json"]));
    assert.equal(tokenizerConfig.unk_token, "[UNK]");
    assert.equal(tokenizerConfig.pad_token, "[PAD]");

    assert.deepEqual(await siblings(root), ["static-wink-100d"], "no temporary directory left");
  });
});

Deno.test("buildStaticModel zeroes stopwords and punctuation and scales the rest by SIF weight", async () => {
  await withTempDir(async (root) => {
    const maxWords = 2000;
    const weighted = await buildStaticModel(`${root}/weighted`, { maxWords });
    const raw = await buildStaticModel(`${root}/raw`, {
      maxWords,
      sifA: 0,
      dropFunctionWords: false,
    });
    const dim = weighted.dim;
    const rows = weighted.vocabSize;
    const weightedTable = tableOf(
      await Deno.readFile(`${weighted.dir}/onnx/model.onnx`),
      rows,
      dim,
    );
    const rawTable = tableOf(await Deno.readFile(`${raw.dir}/onnx/model.onnx`), rows, dim);
    const source = await readWinkVectors(winkVectorsPath(), {
      maxWords,
      accept: (word) => isTokenizableWord(word) && word !== "[PAD]" && word !== "[UNK]",
    });
    assert.deepEqual(row(rawTable, 2, dim), row(source.vectors, 0, dim), "raw rows are wink's");
    const zero = new Array(dim).fill(0);
    for (const id of [0, 1]) assert.deepEqual(row(weightedTable, id, dim), zero);
    let dropped = 0;
    source.words.forEach((word, index) => {
      const id = index + 2;
      if (ENGLISH_STOPWORDS.has(word) || /^[\p{P}$+<=>^`|~]$/u.test(word)) {
        assert.deepEqual(row(weightedTable, id, dim), zero, word);
        dropped++;
        return;
      }
      const probability = zipfProbability(source.ranks[index], source.size);
      const weight = STATIC_MODEL_SIF_A / (STATIC_MODEL_SIF_A + probability);
      const expected = row(source.vectors, index, dim).map((value) => Math.fround(value * weight));
      assert.deepEqual(row(weightedTable, id, dim), expected, word);
    });
    assert.ok(dropped > 100 && dropped < 300, `${dropped} dropped rows`);
    // "said" (rank 15) weighs less than "car" (rank ~900): frequency fades a word.
    const ratio = (word: string): number => {
      const id = source.words.indexOf(word) + 2;
      return weightedTable[id * dim] / rawTable[id * dim];
    };
    assert.ok(ratio("said") < ratio("car") && ratio("car") < 1);
  });
});

Deno.test("the wink ranks count the words the tokenizer cannot produce", async () => {
  const source = await readWinkVectors(winkVectorsPath(), {
    maxWords: 8400,
    accept: (word) => isTokenizableWord(word),
  });
  assert.equal(source.size, 341_479);
  assert.deepEqual(Array.from(source.ranks.slice(0, 3)), [1, 2, 3], '"the", ",", "."');
  // "well-known" (rank 8,340) is the first word the pre-tokenizer splits; it is skipped
  // but keeps its rank, so the words after it rank one higher than their row.
  assert.equal(source.words.indexOf("well-known"), -1);
  assert.equal(source.ranks[8338], 8339);
  assert.equal(source.ranks[8339], 8341);
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

Deno.test("buildStaticModel resolves a relative directory and rejects a bad maxWords or sifA", async () => {
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
    for (const sifA of [-1e-3, Number.NaN, Infinity]) {
      await assert.rejects(
        () => buildStaticModel(`${root}/bad`, { maxWords: 50, sifA }),
        RangeError,
      );
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

Deno.test("the recorded source is the package version the model stack installs", async () => {
  const root = await Deno.readTextFile(
    new URL("../../src/models/stack/wink_vectors.ts", import.meta.url),
  );
  assert.ok(root.includes(`import "${STATIC_MODEL_SOURCE}";`), root);
  const { name, version } = MODEL_STACK.wink_vectors;
  assert.equal(`npm:${name}@${version}`, STATIC_MODEL_SOURCE);
});
