import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("an answer two turns after the statement is found when the question between matches too", async () => {
  const t = await openTestContext();
  try {
    const ids: number[] = [];
    for (
      const content of [
        "John: Car trouble all spring, but the road trip last year with the family made up for it.",
        "Maria: Great pic! Where did you go?",
        "John: We explored the coast up in the Pacific Northwest and hit some national parks.",
      ]
    ) {
      const follows = ids.length > 0 ? ids[ids.length - 1] : undefined;
      ids.push(
        (await rememberMemory(t.ctx, { content, subject: "chat", workspace: "w", follows }))
          .memoryId,
      );
    }
    const others: number[] = [];
    for (
      const content of [
        "Maria: Last year I took a solo trip to Spain.",
        "Maria: The trip to England a few years ago gave me the idea.",
      ]
    ) {
      others.push(
        (await rememberMemory(t.ctx, { content, subject: "chat", workspace: "w" })).memoryId,
      );
    }
    const query = "Where did John go on his road trip last year?";
    const page = await findMemories(t.ctx, { query, workspace: "w" });
    const rank = (id: number) => page.items.findIndex((item) => item.memory.id === id);
    // The question between is a hit of its own ("go"), and the answer still gets the
    // statement's carry two hops down.
    assert.ok(rank(ids[1]) >= 0 && page.items[rank(ids[1])].matchedTerms.length > 0);
    const answer = page.items[rank(ids[2])];
    assert.equal(answer.carriedFrom, ids[0]);
    for (const other of others) assert.ok(rank(ids[2]) < rank(other));

    // Stopped at the question (the behaviour before), the answer falls below the others.
    const stopped = await findMemories(t.ctx, {
      query,
      workspace: "w",
      tuning: { followsThroughHits: false },
    });
    const stoppedRank = (id: number) => stopped.items.findIndex((item) => item.memory.id === id);
    for (const other of others) assert.ok(stoppedRank(ids[2]) > stoppedRank(other));
  } finally {
    t.cleanup();
  }
});
