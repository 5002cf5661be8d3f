/**
 * With the built-in static model, the query's words are weighed by their rarity in the
 * library before its vector is taken: a word most memories share stops deciding which of
 * them is nearest by meaning, the question's topic word does.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { queryWords } from "../../src/recall/query_weights.ts";
import { findPage } from "../../src/views/recall_page.ts";
import { openStaticModelContext, openTestContext } from "../helpers/context.ts";

const DECOYS = [
  "Our weekend plans fell through because of the storm.",
  "My weekend plans: cleaning out the garage, finally.",
  "Weekend plans with my parents at their farm.",
  "The weekend plans changed twice before Friday.",
  "We made weekend plans to drive to the lake.",
  "Weekend plans again: sleeping in after the trip.",
];

Deno.test("hybrid find: the topic word, not the word every memory shares, picks the meaning match", async () => {
  const t = await openStaticModelContext();
  const { semantic } = t;
  try {
    for (const content of DECOYS) {
      await rememberMemory(t.ctx, { content, subject: "notes", workspace: "life" });
    }
    const { memoryId: music } = await rememberMemory(t.ctx, {
      content: "My weekend plans: practicing the violin for hours before my recital.",
      subject: "notes",
      workspace: "life",
    });
    await semantic.embedPendingRows();
    const { page } = await findPage(t.ctx, { query: "weekend plans music", limit: 3 });
    assert.equal(page.items[0]?.memory.id, music, JSON.stringify(page.items.map((i) => i.memory)));
    assert.ok(page.items[0].vectorCosine !== undefined, "found by meaning too");
  } finally {
    await semantic.unload();
    t.cleanup();
  }
});

Deno.test("query words: rare library words weigh more, common ones less, unknown ones 1", async () => {
  const t = await openTestContext();
  try {
    for (const content of [...DECOYS, "I practiced the violin before my recital on Sunday."]) {
      await rememberMemory(t.ctx, { content, subject: "notes", workspace: "life" });
    }
    const words = await t.store.read(async () =>
      await queryWords(t.store, "Weekend violin, or kazoo?")
    );
    const weight = new Map(words.map(({ word, weight }) => [word, weight]));
    assert.deepEqual(words.map(({ word }) => word), ["weekend", "violin", "or", "kazoo"]);
    assert.ok(weight.get("violin")! > 1, JSON.stringify(words));
    assert.ok(weight.get("weekend")! < 0.5, JSON.stringify(words));
    assert.equal(weight.get("kazoo"), 1, "a word no memory holds keeps weight 1");
    assert.equal(weight.get("or"), 1, "a function word keeps weight 1 (its row is zero)");
  } finally {
    t.cleanup();
  }
});

Deno.test("query vectors: words seen in earlier queries give the same vector as a fresh model", async () => {
  const first = await openStaticModelContext();
  const second = await openStaticModelContext();
  try {
    const words = [
      { word: "violin", weight: 2.5 },
      { word: "recital", weight: 1.7 },
      { word: "weekend", weight: 0.3 },
    ];
    // The first index embeds "violin" and "weekend" for an earlier query, then reuses them.
    await first.semantic.embedQuery("violin weekend", [words[0], words[2]]);
    const reused = await first.semantic.embedQuery("violin recital weekend", words);
    const fresh = await second.semantic.embedQuery("violin recital weekend", words);
    assert.ok(reused && fresh);
    assert.deepEqual([...reused], [...fresh]);
    const alone = await second.semantic.embedQuery("violin weekend", [words[0], words[2]]);
    assert.notDeepEqual([...alone!], [...fresh], "the weights and words still make the vector");
  } finally {
    await first.semantic.unload();
    await second.semantic.unload();
    first.cleanup();
    second.cleanup();
  }
});
