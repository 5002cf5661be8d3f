/**
 * Neighbours for the conflict and duplicate checks (`sharedWordCandidates`): memories that
 * hold more of a text's rare words come first, filters apply even when the best hits are
 * out of scope, and a memory sharing no word is never a neighbour.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { sharedWordCandidates } from "../../src/recall/lexical.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("shared-word neighbours: most rare words first, scope filtered, unrelated never", async () => {
  const t = await openTestContext();
  try {
    const remember = async (content: string, workspace: string) =>
      (await rememberMemory(t.ctx, { content, subject: "notes", workspace })).memoryId;
    // Common filler so that the probe's rare words stand out by document frequency.
    for (let i = 0; i < 12; i++) await remember(`The team met on day ${i} to talk.`, "ops");
    const both = await remember("The Zephyr cluster runs Kafka brokers.", "ops");
    const one = await remember("Kafka topics were renamed by the team.", "ops");
    // Out of scope: the best match of all, but in another workspace.
    const elsewhere = await remember("Zephyr cluster with Kafka brokers again.", "lab");
    const unrelated = await remember("Lunch is at noon on Fridays.", "ops");
    const found = await t.store.read(async () =>
      await sharedWordCandidates(t.store, "Zephyr cluster Kafka brokers", {
        filters: { statuses: ["active"], workspaces: ["ops"] },
        pool: 3,
        maxTerms: 6,
        budget: 300,
      })
    );
    assert.equal(found[0], both, JSON.stringify(found));
    assert.ok(found.includes(one), JSON.stringify(found));
    assert.ok(!found.includes(elsewhere));
    assert.ok(!found.includes(unrelated));
  } finally {
    t.cleanup();
  }
});

Deno.test("a word held past the postings budget is read newest first, and still finds", async () => {
  const t = await openTestContext();
  try {
    const remember = async (content: string) =>
      (await rememberMemory(t.ctx, { content, subject: "notes", workspace: "ops" })).memoryId;
    const old = await remember("The Zephyr cluster runs Kafka brokers.");
    for (let i = 0; i < 30; i++) {
      await remember(`Kafka and Zephyr mentioned in passing, item ${i}.`);
    }
    const newest = await remember("The Zephyr cluster runs Kafka brokers today.");
    const options = {
      filters: { statuses: ["active" as const] },
      pool: 5,
      maxTerms: 6,
    };
    // Every word of the probe is held by more memories than the budget of 10 postings.
    const capped = await t.store.read(async () =>
      await sharedWordCandidates(t.store, "Zephyr Kafka", { ...options, budget: 10 })
    );
    assert.ok(capped.length > 0 && capped.length <= 5, JSON.stringify(capped));
    assert.ok(capped.includes(newest), JSON.stringify(capped));
    assert.ok(!capped.includes(old), "the read stopped before the oldest holder");
    // With room in the budget the oldest holder is a neighbour again (exact path).
    const whole = await t.store.read(async () =>
      await sharedWordCandidates(t.store, "Zephyr cluster brokers", { ...options, budget: 1_000 })
    );
    assert.ok(whole.includes(old), JSON.stringify(whole));
  } finally {
    t.cleanup();
  }
});
