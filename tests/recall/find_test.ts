import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { batchFindMemories, findMemories } from "../../src/recall/find.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

async function library(): Promise<TestContext> {
  const t = await openTestContext();
  const facts: [string, string, string, string[], string?][] = [
    ["Production deploys run on Tuesdays after 14:00 UTC.", "deploy schedule", "billing", [
      "deploy",
      "ops",
    ], "2025-01-10"],
    [
      "The staging database is PostgreSQL 16 on port 5433.",
      "staging database",
      "billing",
      ["db"],
      "2025-02-01",
    ],
    [
      "Ada prefers tabs over spaces in Go code.",
      "editor preferences",
      "default",
      ["style"],
      "2024-06-01",
    ],
    ["我们每周二在北京部署生产环境。", "部署时间", "billing", ["部署"], "2025-03-01"],
    ["The search service deploys itself on every merge to main.", "search deploys", "search", [
      "deploy",
    ], "2025-03-05"],
    ["Coffee machine on floor 3 is broken.", "office", "default", [], "2025-03-06"],
  ];
  for (const [content, subject, workspace, tags, eventTime] of facts) {
    await rememberMemory(t.ctx, { content, subject, workspace, tags, eventTime });
  }
  return t;
}

Deno.test("find ranks the memory that holds the query's words first", async () => {
  const t = await library();
  try {
    const page = await findMemories(t.ctx, { query: "when do production deploys run?" });
    assert.equal(page.retrievalMode, "query");
    assert.equal(page.items[0].memory.subject, "deploy schedule");
    assert.ok(page.items.every((item) => item.matchedTerms.length > 0));
    assert.ok(!page.items.some((item) => item.memory.subject === "office"));
  } finally {
    t.cleanup();
  }
});

Deno.test("find matches CJK text and short tokens", async () => {
  const t = await library();
  try {
    assert.equal(
      (await findMemories(t.ctx, { query: "北京部署" })).items[0]?.memory.subject,
      "部署时间",
    );
    assert.equal(
      (await findMemories(t.ctx, { query: "部署" })).items[0]?.memory.subject,
      "部署时间",
    );
    assert.equal(
      (await findMemories(t.ctx, { query: "北京的部署时间" })).items[0]?.memory.subject,
      "部署时间",
    );
    assert.equal(
      (await findMemories(t.ctx, { query: "Go" })).items[0]?.memory.subject,
      "editor preferences",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("an unrelated query returns an honest empty page", async () => {
  const t = await library();
  try {
    const page = await findMemories(t.ctx, { query: "quantum chromodynamics" });
    assert.equal(page.items.length, 0);
    assert.equal(page.hasMore, false);
    assert.equal(page.totalEstimate, 0);
    assert.equal(page.retrievalMode, "empty");
    assert.ok(page.hint);
  } finally {
    t.cleanup();
  }
});

Deno.test("filters narrow every channel", async () => {
  const t = await library();
  try {
    const scoped = await findMemories(t.ctx, { query: "deploys", workspace: "Search" });
    assert.deepEqual(scoped.items.map((i) => i.memory.subject), ["search deploys"]);
    const withDefault = await findMemories(t.ctx, { query: "tabs", workspace: "billing" });
    assert.equal(withDefault.items[0]?.memory.subject, "editor preferences");
    const only = await findMemories(t.ctx, {
      query: "tabs",
      workspace: "billing",
      workspaceOnly: true,
    });
    assert.equal(only.items.length, 0);
    const tagged = await findMemories(t.ctx, { query: "deploys", tagsFilter: ["deploy", "OPS"] });
    assert.deepEqual(tagged.items.map((i) => i.memory.subject), ["deploy schedule"]);
    const recent = await findMemories(t.ctx, { query: "deploys", afterTime: "2025-03-01" });
    assert.deepEqual(recent.items.map((i) => i.memory.subject), ["search deploys"]);
    const old = await findMemories(t.ctx, { query: "deploys", beforeTime: "2025-02-01" });
    assert.deepEqual(old.items.map((i) => i.memory.subject), ["deploy schedule"]);
    assert.equal(
      (await findMemories(t.ctx, { query: "deploys", sourceType: ["user_confirmed"] })).items
        .length,
      0,
    );
    await assert.rejects(
      async () =>
        await findMemories(t.ctx, {
          query: "x",
          afterTime: "2025-02-01",
          beforeTime: "2025-01-01",
        }),
      (e: unknown) => e instanceof MemaError && e.field === "after_time",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("pages are honest: has_more and total_estimate agree with the pages", async () => {
  const t = await openTestContext();
  try {
    for (let i = 0; i < 25; i++) {
      await rememberMemory(t.ctx, {
        content: `Release note ${i}: fixed bug number ${i * 7}.`,
        subject: `release ${i}`,
        workspace: "w",
      });
    }
    await rememberMemory(t.ctx, { content: "Unrelated text", subject: "other", workspace: "w" });
    const seen = new Set<number>();
    let offset = 0;
    for (;;) {
      const page = await findMemories(t.ctx, { query: "release note", limit: 10, offset });
      assert.equal(page.totalEstimate, 25);
      for (const item of page.items) {
        assert.ok(!seen.has(item.memory.id), "no memory appears on two pages");
        seen.add(item.memory.id);
      }
      if (!page.hasMore) break;
      assert.equal(page.items.length, 10);
      offset += 10;
    }
    assert.equal(seen.size, 25);
    const browse = await findMemories(t.ctx, { limit: 20 });
    assert.equal(browse.retrievalMode, "browse");
    assert.equal(browse.totalEstimate, 26);
    assert.equal(browse.hasMore, true);
    assert.equal((await findMemories(t.ctx, { limit: 20, offset: 20 })).hasMore, false);
  } finally {
    t.cleanup();
  }
});

Deno.test("batch_find merges queries and tags results with the queries that found them", async () => {
  const t = await library();
  try {
    const page = await batchFindMemories(t.ctx, {
      queries: [{ id: "a", query: "deploys" }, { id: "b", query: "production deploys" }, {
        id: "c",
        query: "staging database",
      }],
      filters: { limit: 3 },
      deduplicate: true,
    });
    const ids = page.items.map((i) => i.memory.id);
    assert.equal(new Set(ids).size, ids.length);
    const schedule = page.items.find((i) => i.memory.subject === "deploy schedule")!;
    assert.deepEqual(schedule.matchedQueries.sort(), ["a", "b"]);
    assert.ok(
      page.items.some((i) => i.memory.subject === "staging database" && i.bestQueryId === "c"),
    );
    assert.deepEqual(page.perQuery.map((q) => q.id), ["a", "b", "c"]);
  } finally {
    t.cleanup();
  }
});

Deno.test("find falls back to LIKE when the database has no full-text index", async () => {
  const t = await library();
  try {
    (t.store.capabilities as { fts: boolean }).fts = false;
    const page = await findMemories(t.ctx, { query: "staging database" });
    assert.equal(page.items[0].memory.subject, "staging database");
  } finally {
    t.cleanup();
  }
});
