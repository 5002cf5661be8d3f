/**
 * The clustering behind `memory_review` clusters (src/views/topic_clusters.ts): topics come out
 * whole, labelled with the words the texts use, the same every time; texts with only common
 * words join none; k larger than the texts gives no empty topic.
 */
import assert from "node:assert/strict";
import { topicClusters } from "../../src/views/topic_clusters.ts";

const TEXTS = [
  "Invoices are sent on the first working day of the month",
  "Overdue invoices get a reminder after fourteen days",
  "Invoices above ten thousand need a second approval",
  "The garden hedges are trimmed in early spring",
  "Hedges along the garden path need trimming twice a year",
  "The garden shed holds the hedge trimmer",
  "Backups of the database run every night at two",
  "Database backups are kept for thirty days",
  "Restoring the database backup takes an hour",
  "It is what it is",
].map((text, index) => ({ id: 100 + index, text }));

Deno.test("topic clusters: whole topics in the texts' words, deterministic, no empty topic", () => {
  const result = topicClusters(TEXTS, 3);
  assert.deepEqual(
    result.clusters.map((c) => [...c.ids].sort()),
    [[100, 101, 102], [103, 104, 105], [106, 107, 108]].sort((a, b) =>
      result.clusters.findIndex((c) => c.ids.includes(a[0])) -
      result.clusters.findIndex((c) => c.ids.includes(b[0]))
    ),
  );
  const labels = result.clusters.map((c) => c.words.join(" "));
  assert.ok(labels.some((l) => l.includes("invoices")), labels.join(" | "));
  assert.ok(labels.some((l) => l.includes("garden")), labels.join(" | "));
  assert.ok(labels.some((l) => /database|backups/.test(l)), labels.join(" | "));
  assert.deepEqual(result.unclustered, [109], "only common words: no topic");
  assert.deepEqual(topicClusters(TEXTS, 3), result, "the same texts give the same clusters");

  const many = topicClusters(TEXTS.slice(0, 4), 10);
  assert.ok(many.clusters.every((c) => c.ids.length > 0));
  assert.deepEqual(topicClusters([], 4), { clusters: [], unclustered: [] });
});
