import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { verbForms } from "../../src/text/irregular.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("a base form lists its irregular past forms; a past form or another word none", () => {
  assert.deepEqual(verbForms("choose"), ["choose", "chose", "chosen"]);
  assert.deepEqual(verbForms("choosing"), ["choose", "chose", "chosen"]);
  assert.deepEqual(verbForms("goes"), ["go", "goes", "went", "gone"]);
  assert.deepEqual(verbForms("chose"), []);
  assert.deepEqual(verbForms("paint"), []);
});

Deno.test("a question in the base form finds what was said in the past form", async () => {
  const t = await openTestContext();
  try {
    const remember = async (content: string) =>
      (await rememberMemory(t.ctx, { content, subject: "chat", workspace: "w" })).memoryId;
    const bought = await remember("Melanie: I bought new running shoes yesterday.");
    const chose = await remember("Caroline: I chose that agency because they help LGBTQ folks.");
    await remember("Caroline: The agency called about the home visit.");

    const shoes = await findMemories(t.ctx, { query: "What did she buy?", workspace: "w" });
    assert.equal(shoes.items[0]?.memory.id, bought);
    assert.ok(shoes.items[0].matchedTerms.includes("bought"));

    const agency = await findMemories(t.ctx, {
      query: "Why did Caroline choose the agency?",
      workspace: "w",
    });
    assert.equal(agency.items[0]?.memory.id, chose);
    assert.ok(agency.items[0].matchedTerms.includes("chose"));

    // Off (the benchmark's ablation), the past form is not found by the verb.
    const off = await findMemories(t.ctx, {
      query: "What did she buy?",
      workspace: "w",
      tuning: { verbFormWeight: 0 },
    });
    assert.ok(!off.items.some((item) => item.memory.id === bought));
  } finally {
    t.cleanup();
  }
});
