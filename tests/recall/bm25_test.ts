import assert from "node:assert/strict";
import { bm25Scores, countTokens } from "../../src/recall/bm25.ts";

const library = { frequencies: new Map([["camp", 5], ["famili", 50]]), documents: 1000 };

Deno.test("bm25: a whole word beats the same word inside a longer one, which beats none", () => {
  const scores = bm25Scores(["camp", "famili"], [
    { id: 1, tokens: countTokens(["went", "camp", "famili"]) },
    { id: 2, tokens: countTokens(["roast", "campfir", "famili"]) },
    { id: 3, tokens: countTokens(["famili", "dinner"]) },
  ], library);
  assert.equal(scores.get(1), 1, "the best candidate is normalized to 1");
  assert.ok(scores.get(1)! > scores.get(2)!);
  assert.ok(scores.get(2)! > scores.get(3)!, "campfire counts as part of camp");
});

Deno.test("bm25: a rare term outweighs a common one; no terms score 0", () => {
  const scores = bm25Scores(["camp", "famili"], [
    { id: 1, tokens: countTokens(["camp"]) },
    { id: 2, tokens: countTokens(["famili"]) },
    { id: 3, tokens: countTokens(["other"]) },
  ], library);
  assert.ok(scores.get(1)! > scores.get(2)!);
  assert.equal(scores.get(3), 0);
});

Deno.test("bm25: short prefixes do not count (art is not artist)", () => {
  const scores = bm25Scores(["art"], [{ id: 1, tokens: countTokens(["artist"]) }, {
    id: 2,
    tokens: countTokens(["art"]),
  }], {
    frequencies: new Map([["art", 2]]),
    documents: 10,
  });
  assert.equal(scores.get(1), 0);
  assert.equal(scores.get(2), 1);
});
