/**
 * The lexical channel's read plan: which terms are read whole and when the rarest words are
 * read newest first up to the postings budget.
 */
import assert from "node:assert/strict";
import { cappedTerms, pruneTerms } from "../../src/recall/lexical.ts";
import { QUERY_CAPPED_TERMS } from "../../src/recall/constants.ts";

Deno.test("terms within the budget are read whole; past it the rarest few share it", () => {
  const small = [{ token: "kafka", frequency: 40 }, { token: "team", frequency: 900 }];
  assert.equal(cappedTerms(small, { budget: 1_000 }), undefined);
  assert.equal(pruneTerms(small, { budget: 1_000 }).kept.length, 2);

  const common = ["famili", "support", "feel", "year", "make", "time"].map((token, i) => ({
    token,
    frequency: 20_000 * (i + 1),
  }));
  const capped = cappedTerms([...common, { token: "zzz", frequency: 0 }], { budget: 10_000 })!;
  assert.equal(capped.length, QUERY_CAPPED_TERMS);
  assert.deepEqual(
    capped.map((term) => term.token),
    common.slice(0, capped.length).map((t) => t.token),
  );
  const read = capped.reduce((sum, term) => sum + term.newest, 0);
  assert.ok(read <= 10_000, `${read} postings read`);
  // The term cap still holds.
  assert.equal(cappedTerms(common, { budget: 10_000, maxTerms: 1 })!.length, 1);
});
