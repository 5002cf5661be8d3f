import assert from "node:assert/strict";
import { duplicateSimilarity, isNearDuplicate } from "../../src/conflicts/duplicates.ts";

const SAME: [string, string][] = [
  ["The deploy happens every Tuesday.", "Deploys happen on Tuesdays."],
  ["We deploy every Tuesday.", "Deploys happen every Tuesday."],
  ["We use PostgreSQL 16 for the main database.", "The main database runs on PostgreSQL 16."],
  ["Logs are retained for 3 days.", "Logs are retained for 72 hours."],
  ["The team prefers dark mode in the editor.", "In the editor, the team prefers dark mode."],
  ["Ada owns the billing service.", "The billing service is owned by Ada."],
  ["Uploads are limited to 1 GB.", "Uploads are limited to 1024 MB."],
];

const DIFFERENT: [string, string, string][] = [
  ["Alice likes tea.", "Bob likes tea.", "another person"],
  ["Alice likes black tea.", "Bob likes black tea.", "another person, more shared words"],
  ["Logs are retained for 3 days.", "Logs are retained for 5 days.", "another value"],
  ["The API is rate limited.", "The API is not rate limited.", "negated"],
  ["Ada owns the billing service.", "Ada owns the search service.", "one slot differs"],
  ["Uploads are limited to 50 MB.", "The 50 MB limit applies per file.", "a qualifier"],
  ["Customer support is available 24/7.", "Customer support answers by chat and email.", "more"],
  ["The v2 deadline is Friday, March 14.", "The v2 deadline moved to Monday, March 17.", "moved"],
  ["Feature flags are managed in LaunchDarkly.", "We no longer use LaunchDarkly.", "change"],
  ["Staging runs on k8s v1.29.", "Staging runs on k8s v1.30.", "another version"],
];

Deno.test("near-duplicates: rewordings of one fact pass, whatever the word order or units", () => {
  for (const [a, b] of SAME) {
    const similarity = duplicateSimilarity(a, b);
    assert.ok(isNearDuplicate(similarity), `${a} / ${b}: ${similarity}`);
    assert.equal(duplicateSimilarity(b, a), similarity, "symmetric");
  }
});

Deno.test("near-duplicates: other people, values, polarity or one changed slot never pass", () => {
  for (const [a, b, why] of DIFFERENT) {
    const similarity = duplicateSimilarity(a, b);
    assert.ok(!isNearDuplicate(similarity), `${why}: ${a} / ${b}: ${similarity}`);
  }
});

Deno.test("near-duplicates: contractions and possessives are read as words", () => {
  assert.ok(
    !isNearDuplicate(duplicateSimilarity("We use Jenkins for CI.", "We don't use Jenkins for CI.")),
  );
  assert.ok(
    isNearDuplicate(
      duplicateSimilarity("Ada's team owns billing.", "The billing is owned by Ada's team."),
    ),
  );
});
