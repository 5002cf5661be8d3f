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
