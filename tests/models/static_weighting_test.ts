import assert from "node:assert/strict";
import {
  ENGLISH_STOPWORDS,
  weightWordVectors,
  zipfProbability,
} from "../../src/models/static_weighting.ts";

const TABLE = {
  dim: 2,
  size: 1000,
  words: ["the", "said", "engine"],
  ranks: Uint32Array.of(1, 15, 900),
  vectors: Float32Array.of(1, 2, 3, 4, -5, 6),
};

Deno.test("weightWordVectors scales each row by a / (a + p(rank))", () => {
  const rows = weightWordVectors(TABLE, { sifA: 2e-3, droppedWords: new Set() });
  const weights = [0, 1, 2].map((row) => {
    const weight = 2e-3 / (2e-3 + zipfProbability(TABLE.ranks[row], TABLE.size));
    for (let k = 0; k < 2; k++) {
      assert.equal(rows[row * 2 + k], Math.fround(TABLE.vectors[row * 2 + k] * weight));
    }
    return weight;
  });
  assert.ok(weights[0] < weights[1] && weights[1] < weights[2] && weights[2] < 1);
  assert.deepEqual(Array.from(TABLE.vectors), [1, 2, 3, 4, -5, 6], "the input is left alone");
});

Deno.test("weightWordVectors zeroes dropped words and leaves rows alone at a = 0", () => {
  const rows = weightWordVectors(TABLE, { sifA: 0, droppedWords: new Set(["the", "absent"]) });
  assert.deepEqual(Array.from(rows), [0, 0, 3, 4, -5, 6]);
});

Deno.test("weightWordVectors rejects tables that do not line up and a negative a", () => {
  const none = { sifA: 1e-3, droppedWords: new Set<string>() };
  assert.throws(
    () => weightWordVectors({ ...TABLE, ranks: Uint32Array.of(1, 2) }, none),
    RangeError,
  );
  assert.throws(
    () => weightWordVectors({ ...TABLE, vectors: Float32Array.of(1, 2, 3) }, none),
    RangeError,
  );
  assert.throws(
    () => weightWordVectors({ ...TABLE, ranks: Uint32Array.of(0, 1, 2) }, none),
    RangeError,
  );
  for (const sifA of [-1e-3, Number.NaN]) {
    assert.throws(() => weightWordVectors(TABLE, { ...none, sifA }), RangeError);
  }
});

Deno.test("weightWordVectors normalizes by the largest rank when it exceeds size", () => {
  const rows = weightWordVectors({ ...TABLE, size: 1 }, { sifA: 1, droppedWords: new Set() });
  const weight = 1 / (1 + zipfProbability(900, 900));
  assert.equal(rows[4], Math.fround(-5 * weight));
});

Deno.test("zipfProbability sums to one over the list", () => {
  let total = 0;
  for (let rank = 1; rank <= 500; rank++) total += zipfProbability(rank, 500);
  assert.ok(Math.abs(total - 1) < 1e-12, String(total));
  assert.ok(Math.abs(zipfProbability(1, 341_479) - 0.0748) < 1e-3);
});

Deno.test("ENGLISH_STOPWORDS holds NLTK's 153 words without an apostrophe", () => {
  assert.equal(ENGLISH_STOPWORDS.size, 153);
  for (const word of ["the", "what", "she", "didn", "ll"]) assert.ok(ENGLISH_STOPWORDS.has(word));
  for (const word of ["car", "said", ""]) assert.ok(!ENGLISH_STOPWORDS.has(word));
});
