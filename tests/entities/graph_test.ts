/**
 * The entity graph as the write path keeps it: what a remembered fact names, aliases folding
 * across facts, caller-named entities and relations, retire, purge, move and workspace
 * isolation. Real SQLite file, real services.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { retireMemory } from "../../src/govern/lifecycle.ts";
import { purgeMemories } from "../../src/govern/purge.ts";
import { entitiesView, entityView } from "../../src/views/entities.ts";
import { findMemories } from "../../src/recall/find.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

async function remember(t: TestContext, content: string, extra: Record<string, unknown> = {}) {
  return (await rememberMemory(t.ctx, {
    content,
    subject: content.slice(0, 30),
    workspace: "infra",
    ...extra,
  })).memoryId;
}

Deno.test("a remembered fact names its entities and relations; aliases fold across facts", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await remember(t, "The Payments API depends on PostgreSQL 16.");
    await remember(t, "Ledger uses PG for its journal; Alice Chen owns the Ledger service.");
    const pg = await entityView(t.ctx, { name: "Postgres", depth: 1 });
    assert.equal(pg.entities[0].name, "PostgreSQL", "Postgres, PG and PostgreSQL are one entity");
    assert.deepEqual(pg.entities[0].aliases, ["PG"]);
    const edges = pg.relations.map((r) => `${r.from} ${r.type} ${r.to}`);
    assert.ok(edges.includes("Payments API depends_on PostgreSQL"), edges.join("; "));
    assert.ok(edges.includes("Ledger uses PostgreSQL"), edges.join("; "));
    assert.ok(edges.includes("PostgreSQL 16 version_of PostgreSQL"), edges.join("; "));
    assert.equal(pg.entities[0].facts.length, 2);
    const page = await entitiesView(t.ctx, { kind: "person" });
    assert.deepEqual(page.entities.map((e) => e.name), ["Alice Chen"]);
  } finally {
    t.cleanup();
  }
});

Deno.test("caller-named entities and relations are kept, stated, beside what the text says", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const id = await remember(t, "the nightly export job is flaky", {
      entities: [{ name: "Export Job", kind: "service" }],
      relations: [{ from: "Export Job", type: "Owned By", to: "Data Team" }],
    });
    const view = await entityView(t.ctx, { name: "export job", depth: 1 });
    assert.equal(view.entities[0].kind, "service");
    assert.deepEqual(view.relations, [{
      from: "Export Job",
      type: "owned_by",
      to: "Data Team",
      memory_id: id,
      origin: "stated",
    }]);
    // Bad input changes nothing and names the field.
    await assert.rejects(
      () => remember(t, "another fact", { relations: [{ from: "A", type: " ", to: "B" }] }),
      (error: MemaError) => error.field === "relations.0.type",
    );
    // Named on update without a text change: replaces the memory's part of the graph.
    await updateMemory(t.ctx, {
      memoryId: id,
      edit: { kind: "metadata_only" },
      relations: [{ from: "Export Job", type: "depends_on", to: "S3" }],
    });
    const after = await entityView(t.ctx, { name: "Export Job", depth: 1 });
    assert.deepEqual(after.relations.map((r) => `${r.from} ${r.type} ${r.to}`), [
      "Export Job depends_on S3",
    ]);
    await assert.rejects(() => entityView(t.ctx, { name: "Data Team" }), /no entity/);
    // An edit of the text reads it again; what the caller named still holds.
    await updateMemory(t.ctx, {
      memoryId: id,
      edit: { kind: "new_content", content: "the nightly export job is flaky on Mondays" },
    });
    const edited = await entityView(t.ctx, { name: "Export Job", depth: 1 });
    assert.deepEqual(edited.relations.map((r) => `${r.from} ${r.type} ${r.to} ${r.origin}`), [
      "Export Job depends_on S3 stated",
    ]);
  } finally {
    t.cleanup();
  }
});

Deno.test("retire and purge take the fact's relations and orphan entities with them", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const kept = await remember(t, "The Search API uses Redis.");
    const retired = await remember(t, "The Search API depends on Kafka.");
    const purged = await remember(t, "Zanzibar Gateway reports to Search API.");
    await retireMemory(t.ctx, { memoryId: retired, reason: "moved off Kafka", authorized: true });
    await assert.rejects(() => entityView(t.ctx, { name: "Kafka" }), /no entity/);
    await purgeMemories(t.ctx, { memoryIds: [purged], reason: "test", authorized: true });
    await assert.rejects(() => entityView(t.ctx, { name: "Zanzibar Gateway" }), /no entity/);
    const search = await entityView(t.ctx, { name: "Search API", depth: 1 });
    assert.deepEqual(search.relations.map((r) => r.memory_id), [kept]);
    assert.deepEqual(search.entities[0].facts.map((f) => f.memory_id), [kept]);
  } finally {
    t.cleanup();
  }
});

Deno.test("entities stay in their workspace; strict isolation sees only its own", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await remember(t, "Orion Project depends on Vault.", { workspace: "alpha" });
    await remember(t, "Orion Project uses Consul.", { workspace: "beta" });
    const both = await entitiesView(t.ctx, { kind: "project" });
    assert.equal(both.total, 2, "one Orion Project per workspace");
    const strict = {
      ...t.ctx,
      caller: { ...t.ctx.caller, workspace: "beta" },
      settings: { ...t.ctx.settings, workspaceIsolation: "strict" as const },
    };
    const seen = await entityView(strict, { name: "Orion Project", depth: 1 });
    assert.deepEqual(seen.relations.map((r) => r.to), ["Consul"]);
    await assert.rejects(() => entityView(strict, { name: "Vault" }), /no entity/);
    assert.ok((await entitiesView(strict, {})).entities.every((e) => e.workspace === "beta"));
  } finally {
    t.cleanup();
  }
});

Deno.test("the entity walk stays within its token budget and says when it stopped", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    for (let i = 0; i < 40; i++) {
      await remember(
        t,
        `Service${i} API depends on the Core Platform. ${
          "It handles a long stream of requests. ".repeat(5)
        }`,
      );
    }
    const small = await entityView(t.ctx, { name: "Core Platform", depth: 2, budgetTokens: 300 });
    assert.equal(small.truncated, true);
    assert.ok(small.usedTokens <= 300, `${small.usedTokens} tokens`);
    assert.equal(small.budgetTokens, 300);
    const large = await entityView(t.ctx, {
      name: "Core Platform",
      depth: 1,
      budgetTokens: 20_000,
    });
    assert.ok(large.relations.length >= 40);
    assert.ok(large.usedTokens > small.usedTokens);
    await assert.rejects(() => entityView(t.ctx, { name: "Core Platform", depth: 4 }), /depth/);
  } finally {
    t.cleanup();
  }
});

Deno.test("find with entity narrows to the facts about it, by name or alias", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const a = await remember(t, "The Billing API depends on PostgreSQL for invoices.");
    const b = await remember(t, "Nightly backups of PG run at 02:00.");
    await remember(t, "The Billing API sends invoices by email.");
    await remember(t, "Redis holds the invoices cache.");
    const byQuery = await findMemories(t.ctx, { query: "invoices", entity: "Postgres" });
    assert.deepEqual(byQuery.items.map((i) => i.memory.id), [a, b], "matches first, then the rest");
    const browsed = await findMemories(t.ctx, { entity: "pg" });
    assert.deepEqual(browsed.items.map((i) => i.memory.id).sort(), [a, b].sort());
    const unknown = await findMemories(t.ctx, { query: "invoices", entity: "Oracle" });
    assert.equal(unknown.items.length, 0);
    assert.match(unknown.hint ?? "", /no entity is named "Oracle"/);
    const elsewhere = await findMemories(t.ctx, {
      entity: "Postgres",
      workspace: "other",
      workspaceOnly: true,
    });
    assert.equal(elsewhere.items.length, 0, "the workspace scope applies to entities too");
  } finally {
    t.cleanup();
  }
});

Deno.test("a query naming an entity can reach facts one relation away (expansion lever)", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await remember(t, "The Payments API depends on the Ledger service.");
    const far = await remember(t, "Ledger service invoices stay archived for seven years.");
    await remember(t, "Unrelated note about the Payments API retries.");
    const question = "how long does the Payments API keep records";
    const off = await findMemories(t.ctx, { query: question, tuning: { entityExpansion: 0 } });
    assert.ok(
      !off.items.some((i) => i.memory.id === far),
      "no shared word, no expansion: not found",
    );
    const on = await findMemories(t.ctx, { query: question, tuning: { entityExpansion: 0.3 } });
    assert.ok(
      on.items.some((i) => i.memory.id === far),
      "found through Payments API → Ledger service",
    );
  } finally {
    t.cleanup();
  }
});
