/**
 * The word-table engine (src/models/word_table.ts) against transformers.js on the built-in static
 * model: the same token ids and bit-identical vectors for real text nobody here wrote (the README
 * files of the installed npm dependencies, paragraph by paragraph) and for the edges of the
 * tokenizer; and it declines any model it does not reproduce.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createEmbedder, type EmbedderOptions } from "../../src/models/embedder.ts";
import { buildStaticModel } from "../../src/models/static_model.ts";
import { readWordTableModel } from "../../src/models/word_table.ts";
import { importTransformers } from "../../src/models/transformers_runtime.ts";

const root = await Deno.makeTempDir({ prefix: "mema-word-table-" });
const model = await buildStaticModel(`${root}/static-wink-100d`);
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

const STATIC: EmbedderOptions = { modelDir: model.dir, dim: 100, pooling: "mean", normalize: true };

/** Paragraphs of the dependencies' README files (real prose, code and tables). */
function dependencyParagraphs(limit: number): string[] {
  const base = fileURLToPath(new URL("../../node_modules/.deno/", import.meta.url));
  const paragraphs: string[] = [];
  const packages = [...Deno.readDirSync(base)].map((entry) => entry.name).sort();
  for (const name of packages) {
    for (const path of readmesUnder(`${base}${name}/node_modules`, 2)) {
      const text = Deno.readTextFileSync(path);
      paragraphs.push(...text.split(/\n\s*\n/).map((part) => part.trim()).filter(Boolean));
      if (paragraphs.length >= limit) return paragraphs.slice(0, limit);
    }
  }
  return paragraphs;
}

function readmesUnder(dir: string, depth: number): string[] {
  const found: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return found;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isFile && /^readme\.md$/i.test(entry.name)) found.push(path);
    else if (entry.isDirectory && depth > 0) found.push(...readmesUnder(path, depth - 1));
  }
  return found;
}

const EDGES = [
  "Deploys run on Fridays.",
  "[UNK] and [PAD] are written as they are; [unk] and [Pad] are words in brackets.",
  "x[UNK]y[PAD][PAD]z",
  "İstanbul ŞEHRİ, Straße, ΟΔΥΣΣΕΥΣ, naïve café, ﬁne",
  "emoji 🚀🔥 and CJK 東京タワー, Arabic مرحبا, combining e\u0301",
  "tabs\tand\nnewlines\r\nand\u00a0no-break\u2003spaces\u200bzero-width",
  "!!!...???",
  "don't can't it's O'Reilly e-mail 3.14 1,000,000 v2.9.6",
  "https://example.com/a/b?c=d&e=f#g user@example.com",
  "const x = { a: [1, 2], b: `tpl ${y}` }; // comment",
  "   leading and trailing spaces   ",
  "a",
  "unknownwordzzz qwrtypsdf",
  "constructor __proto__ prototype hasOwnProperty toString valueOf",
  Array.from({ length: 2600 }, (_, i) => ["deploy", "staging", "the", "fridays"][i % 4]).join(" "),
  Array.from({ length: 1500 }, () => "wait, what?").join(" "),
];

Deno.test("the word table tokenizes as transformers.js does, edges and real text", async () => {
  const table = readWordTableModel(model.dir, 100);
  assert.ok(table, "the static model is read as a word table");
  const transformers = await importTransformers();
  const tokenizer = await transformers.AutoTokenizer.from_pretrained(model.dir, {
    local_files_only: true,
  }) as (
    text: string,
    options: Record<string, unknown>,
  ) => { input_ids: { data: ArrayLike<bigint> } };
  const texts = [...EDGES, ...dependencyParagraphs(1500)];
  assert.ok(texts.length > 1000, `${texts.length} texts`);
  for (const text of texts) {
    const encoded = tokenizer(text, { truncation: true, padding: false });
    const expected = Array.from(encoded.input_ids.data, Number);
    assert.deepEqual(table.tokenize(text), expected, text.slice(0, 200));
  }
});

Deno.test("the word table's vectors are bit for bit transformers.js' (pooled, normalized or not)", async () => {
  const auto = createEmbedder(STATIC);
  const onnx = createEmbedder({ ...STATIC, engine: "transformers" });
  try {
    const texts = [...EDGES, "", "   ", ...dependencyParagraphs(1500)];
    for (const normalize of [true, false]) {
      const ours = await auto.embed(texts, "passage", { normalize });
      const theirs = await onnx.embed(texts, "passage", { normalize });
      let nonZero = 0;
      texts.forEach((text, i) => {
        const same = ours[i].every((value, k) => Object.is(value, theirs[i][k]));
        assert.ok(
          same,
          `${text.slice(0, 120)}: ${ours[i].slice(0, 3)} vs ${theirs[i].slice(0, 3)}`,
        );
        if (ours[i].some((value) => value !== 0)) nonZero++;
      });
      assert.ok(nonZero > texts.length * 0.9, `${nonZero} of ${texts.length} have a direction`);
    }
  } finally {
    await auto.unload();
    await onnx.unload();
  }
});

Deno.test("a model that is not a bare word table is left to transformers.js", async () => {
  const fixture = fileURLToPath(new URL("../fixtures/models/tiny-bert-embed", import.meta.url));
  assert.equal(readWordTableModel(fixture, 32), undefined, "a BERT graph");
  assert.equal(readWordTableModel(model.dir, 384), undefined, "another dimension");
  assert.equal(readWordTableModel(`${root}/missing`, 100), undefined, "no files");
  // A tokenizer with another normalizer is not reproduced, whatever the graph.
  const changed = `${root}/changed`;
  await Deno.mkdir(`${changed}/onnx`, { recursive: true });
  await Deno.copyFile(`${model.dir}/onnx/model.onnx`, `${changed}/onnx/model.onnx`);
  await Deno.copyFile(`${model.dir}/tokenizer_config.json`, `${changed}/tokenizer_config.json`);
  await Deno.copyFile(`${model.dir}/config.json`, `${changed}/config.json`);
  const spec = JSON.parse(await Deno.readTextFile(`${model.dir}/tokenizer.json`));
  spec.normalizer = { type: "NFKC" };
  await Deno.writeTextFile(`${changed}/tokenizer.json`, JSON.stringify(spec));
  assert.equal(readWordTableModel(changed, 100), undefined, "an NFKC normalizer");
  const named = `${root}/named`;
  await Deno.mkdir(`${named}/onnx`, { recursive: true });
  for (const file of ["onnx/model.onnx", "tokenizer.json", "config.json"]) {
    await Deno.copyFile(`${model.dir}/${file}`, `${named}/${file}`);
  }
  const config = JSON.parse(await Deno.readTextFile(`${model.dir}/tokenizer_config.json`));
  await Deno.writeTextFile(
    `${named}/tokenizer_config.json`,
    JSON.stringify({ ...config, tokenizer_class: "BertTokenizer" }),
  );
  assert.equal(readWordTableModel(named, 100), undefined, "a named tokenizer class");
  // The embedder still embeds it, through transformers.js.
  const embedder = createEmbedder({ ...STATIC, modelDir: changed });
  try {
    const [vector] = await embedder.embed(["Deploys run on Fridays."], "passage");
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5);
  } finally {
    await embedder.unload();
  }
});
