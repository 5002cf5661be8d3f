/**
 * The clusters view (src/views/clusters.ts) on both bases: with the built-in static model set up
 * and its rows embedded, topics are found on its vectors; without a model, on the words. Either
 * way a two-topic library comes out as its two topics, labelled in its own words.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { clustersView } from "../../src/views/clusters.ts";
import { openStaticModelContext, openTestContext, type TestContext } from "../helpers/context.ts";

const FACTS = [
  "The invoice run sends invoices on the first working day of the month.",
  "Overdue invoices get a payment reminder after fourteen days.",
  "Invoices above ten thousand euros need a second approval.",
  "The garden hedges are trimmed in early spring.",
  "Hedges along the garden path need trimming twice a year.",
  "The garden shed holds the hedge trimmer and the ladder.",
];

async function seed(t: TestContext): Promise<number[]> {
  const ids: number[] = [];
  for (const content of FACTS) {
    ids.push(
      (await rememberMemory(t.ctx, { content, subject: content.slice(0, 30), workspace: "home" }))
        .memoryId,
    );
  }
  return ids;
}

function assertTwoTopics(view: Awaited<ReturnType<typeof clustersView>>, ids: number[]): void {
  assert.equal(view.clusters.length, 2, JSON.stringify(view.clusters));
  const groups = view.clusters.map((c) => c.samples.map((s) => s.id).sort((a, b) => a - b));
  assert.deepEqual(groups.sort((a, b) => a[0] - b[0]), [ids.slice(0, 3), ids.slice(3)]);
  const labels = view.clusters.map((c) => c.label).join(" | ");
  assert.match(labels, /invoices/);
  assert.match(labels, /garden|hedges/);
}

Deno.test("clusters view: words without a model", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids = await seed(t);
    const view = await clustersView(t.ctx, { k: 2, workspace: "home" });
    assert.equal(view.basis, "words");
    assertTwoTopics(view, ids);
    await assert.rejects(() => clustersView(t.ctx, { k: 21 }), /k must be an integer/);
  } finally {
    t.cleanup();
  }
});

Deno.test("clusters view: the built-in model's vectors once its rows are embedded", async () => {
  const t = await openStaticModelContext();
  try {
    const ids = await seed(t);
    await t.semantic.embedPendingRows();
    const view = await clustersView(t.ctx, { k: 2, workspace: "home" });
    assert.equal(view.basis, "vectors");
    assertTwoTopics(view, ids);
  } finally {
    await t.semantic.unload();
    t.cleanup();
  }
});
