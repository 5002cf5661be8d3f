import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { retireMemory } from "../../src/govern/lifecycle.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openTestContext, snapshotDatabase, type TestContext } from "../helpers/context.ts";

/** A short conversation; with `link`, each turn follows the one before it. */
async function conversation(link: boolean): Promise<{ t: TestContext; ids: number[] }> {
  const t = await openTestContext();
  const turns = [
    "Caroline: How was the dinosaur museum with the kids?",
    "Melanie: They loved it! The bones were so cool, and they want to go back.",
    "Caroline: I started a pottery class on Mondays.",
    "Melanie: Nice, I bought new running shoes yesterday.",
  ];
  const ids: number[] = [];
  for (const content of turns) {
    const follows = link && ids.length > 0 ? ids[ids.length - 1] : undefined;
    ids.push(
      (await rememberMemory(t.ctx, { content, subject: "chat", workspace: "family", follows }))
        .memoryId,
    );
  }
  return { t, ids };
}

const QUERY = "How did the kids like the dinosaur museum?";

Deno.test("a reply that repeats none of the query's words is found through the turn it follows", async () => {
  const unlinked = await conversation(false);
  try {
    const page = await findMemories(unlinked.t.ctx, { query: QUERY, workspace: "family" });
    assert.ok(!page.items.some((item) => item.memory.id === unlinked.ids[1]));
  } finally {
    unlinked.t.cleanup();
  }
  const { t, ids } = await conversation(true);
  try {
    const page = await findMemories(t.ctx, { query: QUERY, workspace: "family" });
    assert.deepEqual(page.items.slice(0, 2).map((item) => item.memory.id), [ids[0], ids[1]]);
    const reply = page.items[1];
    assert.equal(reply.carriedFrom, ids[0]);
    assert.equal(reply.memory.follows, ids[0]);
    assert.ok(reply.score < page.items[0].score);
    // Two hops: the turn after the reply gets less, the one after that nothing.
    const second = page.items.find((item) => item.memory.id === ids[2]);
    assert.equal(second?.carriedFrom, ids[0]);
    assert.ok(second.score < reply.score);
    assert.ok(!page.items.some((item) => item.memory.id === ids[3]));
    assert.ok(page.totalEstimate >= page.items.length);

    // A follower outside the filters stays out.
    await retireMemory(t.ctx, { memoryId: ids[1], reason: "test", authorized: true });
    const after = await findMemories(t.ctx, { query: QUERY, workspace: "family" });
    assert.ok(!after.items.some((item) => item.memory.id === ids[1]));
  } finally {
    t.cleanup();
  }
});

Deno.test("follows must name a stored memory of the same workspace, or nothing is written", async () => {
  const { t, ids } = await conversation(true);
  try {
    const before = snapshotDatabase(t.dbPath);
    await assert.rejects(
      () =>
        rememberMemory(t.ctx, {
          content: "orphan reply",
          subject: "chat",
          workspace: "family",
          follows: 9999,
        }),
      (e: unknown) => e instanceof MemaError && e.code === "not_found" && e.field === "follows",
    );
    await assert.rejects(
      () =>
        rememberMemory(t.ctx, {
          content: "reply in another project",
          subject: "chat",
          workspace: "work",
          follows: ids[0],
        }),
      (e: unknown) =>
        e instanceof MemaError && e.code === "invalid_input" && /one workspace/.test(e.reason),
    );
    assert.equal(snapshotDatabase(t.dbPath), before);
  } finally {
    t.cleanup();
  }
});

Deno.test("the word index matches whole words, not the same letters inside other words", async () => {
  const t = await openTestContext();
  try {
    const noise = (await rememberMemory(t.ctx, {
      content: "We start the party early; the start of the party is at noon.",
      subject: "party plan",
      workspace: "w",
    })).memoryId;
    const art = (await rememberMemory(t.ctx, {
      content: "Melanie's favourite art is pottery.",
      subject: "hobby",
      workspace: "w",
    })).memoryId;
    const page = await findMemories(t.ctx, { query: "art", workspace: "w" });
    assert.deepEqual(page.items.map((item) => item.memory.id), [art], `not ${noise} ("party")`);
    // Inflections meet through the stemmer: "painted" finds "paints".
    const paints = (await rememberMemory(t.ctx, {
      content: "Caroline paints sunsets.",
      subject: "hobby",
      workspace: "w",
    })).memoryId;
    assert.equal(
      (await findMemories(t.ctx, { query: "who painted", workspace: "w" })).items[0]?.memory.id,
      paints,
    );
  } finally {
    t.cleanup();
  }
});
