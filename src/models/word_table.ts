/**
 * A word-level embedding model read without onnxruntime. The built-in static model
 * (static_model.ts) is a lookup table behind a word-level tokenizer: its ONNX graph is one
 * `Gather` of a float32 table by token id, and the text vector is the mean of the rows. For such a
 * model this module tokenizes exactly as transformers.js does for its `tokenizer.json` (added
 * tokens split out as they are written, `Lowercase`, `BertPreTokenizer`, `WordLevel`, truncation at
 * `model_max_length`) and averages the rows itself: the vectors are bit for bit the ones the
 * transformers.js pipeline and `poolBatch` give (tests/models/word_table_test.ts compares them on
 * real text), at a fraction of the cost — tokenizing through transformers.js, handing tensors to
 * onnxruntime and reading them back was ~70% of embedding a library with the static model.
 *
 * A model directory that is anything else (another tokenizer, a graph that is not a bare `Gather`,
 * weights not stored raw) reads as `undefined`, and the caller uses transformers.js.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildStaticModel } from "./static_model.ts";
 * import { readWordTableModel } from "./word_table.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * await buildStaticModel(`${dir}/static`, { maxWords: 2000 });
 * const model = readWordTableModel(`${dir}/static`, 100)!;
 * assert.deepEqual(model.tokenize("Deploys run on Fridays."), model.tokenize("deploys RUN on fridays."));
 * const vector = model.embed("Deploys run on Fridays.", true);
 * assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-6);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { readTextIfExists } from "../platform/files.ts";
import { MIN_VECTOR_NORM } from "./vectors.ts";

/** A word-level model loaded into memory. */
export interface WordTableModel {
  readonly dim: number;
  /** Token ids of `text`, truncated as the model's tokenizer truncates. */
  tokenize(text: string): number[];
  /**
   * The mean of the rows of `text`'s tokens, scaled to unit length when `normalize`; the zero
   * vector when it has no token or no direction (as `poolBatch` gives it).
   */
  embed(text: string, normalize: boolean): Float32Array;
}

/** transformers.js' BERT pre-tokenizer: runs of word characters, or one punctuation mark. */
const PUNCTUATION = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const BERT_PRE_TOKENS = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, "gu");

const ONNX_FLOAT = 1;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads the model in `dir` when it is a word table of `dim` columns (see the module
 * documentation); undefined otherwise, or when its files cannot be read.
 */
export function readWordTableModel(dir: string, dim: number): WordTableModel | undefined {
  try {
    const tokenizer = wordLevelTokenizer(dir);
    if (!tokenizer) return undefined;
    const table = gatherTable(Deno.readFileSync(`${dir}/onnx/model.onnx`));
    if (!table || table.columns !== dim || table.rows < tokenizer.maxId + 1) return undefined;
    return wordTableModel(tokenizer, table.values, dim);
  } catch {
    return undefined;
  }
}

interface WordLevelTokenizer {
  /** Added tokens, matched in the raw text (longest first at each position). */
  added: Map<string, number>;
  /** Word → id, without a prototype (a word such as "constructor" is only its own entry). */
  vocab: Record<string, number | undefined>;
  unkId: number;
  maxLength: number;
  maxId: number;
}

/** The tokenizer of `dir` when it is the word-level shape this module reproduces. */
function wordLevelTokenizer(dir: string): WordLevelTokenizer | undefined {
  const json = readTextIfExists(`${dir}/tokenizer.json`);
  const configText = readTextIfExists(`${dir}/tokenizer_config.json`);
  if (json === undefined || configText === undefined) return undefined;
  const spec = JSON.parse(json);
  const config = JSON.parse(configText);
  // The generic tokenizer class: a named one (BertTokenizer, …) may add steps of its own.
  const plain = config.tokenizer_class === "PreTrainedTokenizerFast" &&
    spec.normalizer?.type === "Lowercase" &&
    spec.pre_tokenizer?.type === "BertPreTokenizer" && spec.post_processor == null &&
    spec.truncation == null && spec.model?.type === "WordLevel" &&
    typeof spec.model.vocab === "object" && !config.remove_space &&
    !config.do_lowercase_and_remove_accent && Number.isInteger(config.model_max_length) &&
    config.model_max_length > 0 && spec.model.unk_token === config.unk_token;
  if (!plain) return undefined;
  // The parsed object itself, made prototype-free: building a Map of 30k words took ~40 ms.
  const vocab = Object.setPrototypeOf(spec.model.vocab, null) as Record<string, number | undefined>;
  const added = new Map<string, number>();
  for (const token of spec.added_tokens ?? []) {
    // Tokens matched after normalization, or that eat the spaces beside them, take more than
    // this module does.
    if (token.normalized || token.lstrip || token.rstrip || token.content === "") return undefined;
    added.set(token.content, token.id);
  }
  const unkId = vocab[config.unk_token];
  if (unkId === undefined) return undefined;
  const ids = [...Object.values(vocab) as number[], ...added.values()];
  let maxId = 0;
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0) return undefined;
    maxId = Math.max(maxId, id);
  }
  return { added, vocab, unkId, maxLength: config.model_max_length, maxId };
}

/**
 * The table of a graph that is one `Gather` (no attribute: axis 0) of a float32 initializer
 * by `input_ids` into `last_hidden_state`. ONNX protobuf: ModelProto.graph = 7;
 * GraphProto.node = 1, initializer = 5; NodeProto input = 1, output = 2, op_type = 4,
 * attribute = 5; TensorProto dims = 1, data_type = 2, name = 8, raw_data = 9.
 */
function gatherTable(
  bytes: Uint8Array,
): { rows: number; columns: number; values: Float32Array } | undefined {
  const graphs = fieldsOf(bytes).filter((field) => field.number === 7);
  if (graphs.length !== 1 || !graphs[0].bytes) return undefined;
  const graph = fieldsOf(graphs[0].bytes);
  const nodes = graph.filter((field) => field.number === 1);
  const initializers = graph.filter((field) => field.number === 5);
  if (nodes.length !== 1 || initializers.length !== 1) return undefined;
  const node = fieldsOf(nodes[0].bytes!);
  const strings = (number: number) =>
    node.filter((field) => field.number === number).map((field) => text(field.bytes!));
  const tensor = fieldsOf(initializers[0].bytes!);
  const name = tensor.find((field) => field.number === 8);
  const raw = tensor.find((field) => field.number === 9)?.bytes;
  const dims = tensor.filter((field) => field.number === 1).map((field) => field.value!);
  const dataType = tensor.find((field) => field.number === 2)?.value;
  const gather = strings(4).join() === "Gather" && strings(5).length === 0 &&
    strings(1).join() === `${name ? text(name.bytes!) : ""},input_ids` &&
    strings(2).join() === "last_hidden_state";
  if (!gather || !raw || dims.length !== 2 || dataType !== ONNX_FLOAT) return undefined;
  const [rows, columns] = dims;
  if (raw.length !== rows * columns * 4) return undefined;
  // raw_data is little-endian: a copy is the table on a little-endian host (every platform mema
  // ships for), a conversion otherwise.
  if (LITTLE_ENDIAN) return { rows, columns, values: new Float32Array(raw.slice().buffer) };
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const values = new Float32Array(rows * columns);
  for (let i = 0; i < values.length; i++) values[i] = view.getFloat32(i * 4, true);
  return { rows, columns, values };
}

interface ProtoField {
  number: number;
  /** A varint's value. */
  value?: number;
  /** A length-delimited field's bytes (a view, not a copy). */
  bytes?: Uint8Array;
}

/** The top-level fields of one protobuf message (varint and length-delimited wire types). */
function fieldsOf(bytes: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new RangeError("truncated varint");
      const byte = bytes[at++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    switch (key % 8) {
      case 0:
        fields.push({ number, value: varint() });
        break;
      case 2: {
        const length = varint();
        if (at + length > bytes.length) throw new RangeError("truncated field");
        fields.push({ number, bytes: bytes.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        at += 4;
        break;
      case 1:
        at += 8;
        break;
      default:
        throw new RangeError(`unsupported wire type ${key % 8}`);
    }
  }
  return fields;
}

function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

function wordTableModel(
  tokenizer: WordLevelTokenizer,
  table: Float32Array,
  dim: number,
): WordTableModel {
  const { added, vocab, unkId, maxLength } = tokenizer;
  const addedByLength = [...added.keys()].sort((a, b) => b.length - a.length);
  const firstChars = [...new Set(addedByLength.map((token) => token[0]))];

  /** The text cut around added tokens, as transformers.js' `DictionarySplitter` cuts it. */
  const sections = (input: string): string[] => {
    // Most texts hold no added token's first character at all.
    if (!firstChars.some((char) => input.includes(char))) return [input];
    const out: string[] = [];
    let start = 0;
    let i = 0;
    while (i < input.length) {
      const match = firstChars.includes(input[i])
        ? addedByLength.find((token) => input.startsWith(token, i))
        : undefined;
      if (match === undefined) {
        i++;
        continue;
      }
      if (i > start) out.push(input.slice(start, i));
      out.push(match);
      i += match.length;
      start = i;
    }
    if (start < input.length) out.push(input.slice(start));
    return out;
  };

  const tokenize = (input: string): number[] => {
    const ids: number[] = [];
    for (const section of sections(input)) {
      if (section.length === 0) continue;
      const special = added.get(section);
      if (special !== undefined) {
        ids.push(special);
        continue;
      }
      const words = section.toLowerCase().trim().match(BERT_PRE_TOKENS) ?? [];
      for (const word of words) ids.push(added.get(word) ?? vocab[word] ?? unkId);
    }
    return ids.length > maxLength ? ids.slice(0, maxLength) : ids;
  };

  return {
    dim,
    tokenize,
    embed(input: string, normalize: boolean): Float32Array {
      const ids = tokenize(input);
      const vector = new Float32Array(dim);
      // The same float32 sums, division and norm as poolBatch, in the same order.
      for (const id of ids) {
        const row = id * dim;
        for (let k = 0; k < dim; k++) vector[k] += table[row + k];
      }
      for (let k = 0; k < dim; k++) vector[k] /= ids.length;
      let norm = 0;
      for (let k = 0; k < dim; k++) norm += vector[k] * vector[k];
      norm = Math.sqrt(norm);
      if (!Number.isFinite(norm) || norm < MIN_VECTOR_NORM) return new Float32Array(dim);
      if (normalize) { for (let k = 0; k < dim; k++) vector[k] /= norm; }
      return vector;
    },
  };
}
