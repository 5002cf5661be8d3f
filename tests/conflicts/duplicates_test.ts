import assert from "node:assert/strict";
import { detectConflicts, type VectorNeighbours } from "../../src/conflicts/detect.ts";
import { duplicateSimilarity, isNearDuplicate } from "../../src/conflicts/duplicates.ts";
import { assessPair } from "../../src/conflicts/rules.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

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

async function fact(t: TestContext, content: string): Promise<number> {
  return (await rememberMemory(t.ctx, { content, subject: "contact", workspace: "acme" })).memoryId;
}

Deno.test("near-duplicates by meaning: detection's vector neighbours give a possible_duplicate notice", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const email = await fact(t, "Alice can be reached at alice@acme.com.");
    const other = await fact(t, "Bob can be reached at bob@acme.com.");
    const reworded = await fact(t, "Alice's email address is alice@acme.com.");
    assert.ok(
      !isNearDuplicate(duplicateSimilarity(
        "Alice can be reached at alice@acme.com.",
        "Alice's email address is alice@acme.com.",
      )),
      "too few shared words for the word test",
    );
    const vectors: VectorNeighbours = {
      near: () =>
        Promise.resolve([{ memoryId: email, similarity: 0.9 }, {
          memoryId: other,
          similarity: 0.95,
        }]),
    };
    await detectConflicts(t.ctx, reworded, { assess: assessPair, vectors });
    const notices = (await t.store.read(async () =>
      await t.store.conflicts.notices({ statuses: ["pending"], limit: 10, offset: 0 })
    )).filter((n) =>
      n.kind === "possible_duplicate"
    );
    assert.deepEqual(notices.map((n) => n.payload.memory_ids), [[reworded, email]]);
    // Running the check again does not repeat the notice; a weak neighbour gives none.
    await detectConflicts(t.ctx, reworded, { assess: assessPair, vectors });
    const weak: VectorNeighbours = {
      near: () => Promise.resolve([{ memoryId: email, similarity: 0.5 }]),
    };
    const third = await fact(t, "Alice's mail address is alice@acme.com.");
    await detectConflicts(t.ctx, third, { assess: assessPair, vectors: weak });
    const after = (await t.store.read(async () =>
      await t.store.conflicts.notices({ statuses: ["pending"], limit: 10, offset: 0 })
    )).filter((n) => n.kind === "possible_duplicate");
    assert.equal(after.length, 1);
  } finally {
    t.cleanup();
  }
});
