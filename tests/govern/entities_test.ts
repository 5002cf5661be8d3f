/**
 * Merging and splitting entities through governance: the graph follows, the audit log says
 * who and why, and a call without authorization or with a bad name changes nothing.
 */
import assert from "node:assert/strict";
import { AuthorizationRequired } from "../../src/core/authorization.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { mergeEntities, splitEntity } from "../../src/govern/entities.ts";
import { entityView } from "../../src/views/entities.ts";
import { openTestContext, snapshotDatabase } from "../helpers/context.ts";

Deno.test("merge folds two names into one entity and split takes one back out, audited", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    for (
      const content of ["Payments depends on Kafka.", "The Payments API is owned by Ana Lima."]
    ) {
      await rememberMemory(t.ctx, { content, subject: "payments", workspace: "w" });
    }
    const before = snapshotDatabase(t.dbPath);
    await assert.rejects(
      () => mergeEntities(t.ctx, { from: "Payments", into: "Payments API", reason: "same" }),
      AuthorizationRequired,
    );
    await assert.rejects(
      () =>
        mergeEntities(t.ctx, {
          from: "Nothing",
          into: "Payments API",
          reason: "x",
          authorized: true,
        }),
      /no entity is named "Nothing"/,
    );
    assert.equal(snapshotDatabase(t.dbPath), before, "refusals change nothing");

    const merged = await mergeEntities(t.ctx, {
      from: "Payments",
      into: "Payments API",
      reason: "one service",
      authorized: true,
    });
    assert.deepEqual(merged.aliases.sort(), ["Payments", "Payments API"]);
    const view = await entityView(t.ctx, { name: "payments", depth: 1 });
    assert.deepEqual(view.relations.map((r) => `${r.from} ${r.type} ${r.to}`).sort(), [
      "Payments API depends_on Kafka",
      "Payments API owned_by Ana Lima",
    ]);

    const split = await splitEntity(t.ctx, {
      entity: "Payments API",
      alias: "payments",
      kind: "team",
      reason: "Payments is the team",
      authorized: true,
    });
    assert.deepEqual(split.split, { name: "Payments", kind: "team", aliases: ["Payments"] });
    const team = await entityView(t.ctx, { name: "Payments", depth: 1 });
    assert.deepEqual(team.relations.map((r) => `${r.from} ${r.type} ${r.to}`), [
      "Payments depends_on Kafka",
    ]);
    const audit = await t.store.listAudit({ limit: 10, offset: 0 });
    const actions = audit.rows.map((row) => row.action);
    assert.ok(
      actions.includes("merge_entities") && actions.includes("split_entity"),
      actions.join(),
    );
  } finally {
    t.cleanup();
  }
});
