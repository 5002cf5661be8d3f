import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { editDistanceWithin } from "../../src/text/edit_distance.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("edit distance counts a swap of neighbours as one edit and stops past the bound", () => {
  assert.equal(editDistanceWithin("recieve", "receive", 2), 1);
  assert.equal(editDistanceWithin("fesetival", "festival", 1), 1);
  assert.equal(editDistanceWithin("kitten", "sitting", 3), 3);
  assert.equal(editDistanceWithin("kitten", "sitting", 2), 3);
  assert.equal(editDistanceWithin("pottery", "pottery", 0), 0);
  assert.equal(editDistanceWithin("abc", "abcdef", 2), 3);
});

Deno.test("a misspelt query word finds the memories holding the word it stands for", async () => {
  const t = await openTestContext();
  try {
    const remember = async (content: string) =>
      (await rememberMemory(t.ctx, { content, subject: "chat", workspace: "w" })).memoryId;
    const festival = await remember("Caroline: We went to the pride festival together last June.");
    const fundraiser = await remember("Maria: The shelter's fundraiser needs more volunteers.");
    await remember("Melanie: The kids loved the museum trip.");

    const typo = await findMemories(t.ctx, {
      query: "When was the pride fesetival?",
      workspace: "w",
    });
    assert.equal(typo.items[0]?.memory.id, festival);
    // matched_terms names the memory's own word, not the index token searched.
    assert.ok(typo.items[0].matchedTerms.includes("festival"), typo.items[0].matchedTerms.join());

    // The only query word is misspelt: without the stand-in nothing would be found.
    const alone = await findMemories(t.ctx, { query: "funraiser", workspace: "w" });
    assert.deepEqual(alone.items.map((item) => item.memory.id), [fundraiser]);

    // Off (the benchmark's ablation), the slip finds nothing.
    const off = await findMemories(t.ctx, {
      query: "funraiser",
      workspace: "w",
      tuning: { spellingWeight: 0 },
    });
    assert.equal(off.items.length, 0);
  } finally {
    t.cleanup();
  }
});

Deno.test("a short unknown word, or one far from every word, is not read as a slip", async () => {
  const t = await openTestContext();
  try {
    await rememberMemory(t.ctx, {
      content: "Jon: The train to the studio was late again.",
      subject: "chat",
      workspace: "w",
    });
    // "trait" is one edit from "train" but a real word: short words are left alone.
    assert.equal((await findMemories(t.ctx, { query: "trait", workspace: "w" })).items.length, 0);
    // Seven letters and more, but no library word within reach.
    assert.equal(
      (await findMemories(t.ctx, { query: "xylophonist", workspace: "w" })).items.length,
      0,
    );
    // A word the library holds is searched as itself only.
    const held = await findMemories(t.ctx, { query: "studio", workspace: "w" });
    assert.equal(held.items.length, 1);
    assert.deepEqual(held.items[0].matchedTerms, ["studio"]);
  } finally {
    t.cleanup();
  }
});
