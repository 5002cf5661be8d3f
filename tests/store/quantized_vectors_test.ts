/**
 * The in-process vector copy is int8 (issue 38): it must find what the exact float32 scan finds
 * on real text embedded by the built-in static model, follow every put, replacement and removal,
 * and stay within its memory budget (≤ 150 MB for a million 100-dimension vectors with ids).
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { QuantizedVectors } from "../../src/store/quantized_vectors.ts";
import { openStaticModelContext } from "../helpers/context.ts";
import { seededRandom } from "../helpers/random.ts";

/** Exact cosine distances of `query` to every vector, nearest first (ties: lower id). */
function exactNearest(vectors: Map<number, Float32Array>, query: Float32Array) {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return [...vectors].map(([rowId, v]) => {
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i] * query[i];
    return { rowId, distance: 1 - dot / (norm(v) * norm(query)) };
  }).sort((a, b) => a.distance - b.distance || a.rowId - b.rowId);
}

function randomVector(random: () => number, dim: number): Float32Array {
  return Float32Array.from({ length: dim }, () => random() - 0.5);
}

/** Sentences of one of the project's own documents: real English prose, a few hundred. */
function documentSentences(name: string, count: number): string[] {
  const text = Deno.readTextFileSync(new URL(`../../docs/${name}`, import.meta.url))
    .replace(/[`*|#>\[\]()_]/g, " ");
  const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
  const out = new Set<string>();
  for (const { segment } of segmenter.segment(text)) {
    const sentence = segment.replace(/\s+/g, " ").trim();
    if (sentence.length >= 60 && sentence.length <= 300 && /[a-z]{4}/.test(sentence)) {
      out.add(sentence);
    }
    if (out.size === count) break;
  }
  return [...out];
}

Deno.test("the copy follows puts, replacements and removals, and reuses freed slots", () => {
  if (!QuantizedVectors.supported()) return;
  const random = seededRandom(7);
  const copy = new QuantizedVectors();
  const held = new Map<number, Float32Array>();
  for (let step = 0; step < 3_000; step++) {
    const rowId = 1 + Math.floor(random() * 600);
    const roll = random();
    if (roll < 0.6) {
      const vector = randomVector(random, 24);
      copy.put(rowId, vector);
      held.set(rowId, vector);
    } else if (roll < 0.9) {
      copy.remove(rowId);
      held.delete(rowId);
    } else {
      // No direction: the row is dropped, as a removal would.
      copy.put(rowId, new Float32Array(24));
      held.delete(rowId);
    }
    if (step % 300 !== 299) continue;
    assert.equal(copy.size, held.size);
    const query = randomVector(random, 24);
    const exact = exactNearest(held, query);
    const found = copy.nearest(query, held.size + 5);
    assert.equal(found.length, held.size, "every held row, once, and nothing removed");
    assert.deepEqual(new Set(found.map((n) => n.rowId)), new Set(held.keys()));
    const exactOf = new Map(exact.map((n) => [n.rowId, n.distance]));
    for (const { rowId, distance } of found) {
      assert.ok(Math.abs(distance - exactOf.get(rowId)!) < 5e-3, `step ${step}`);
    }
  }
  // Another dimension starts the copy over.
  copy.put(9_999, new Float32Array([1, 0, 0]));
  assert.equal(copy.size, 1);
  assert.deepEqual(copy.nearest(new Float32Array([2, 0, 0]), 3).map((n) => n.rowId), [9_999]);
  assert.deepEqual(copy.nearest(new Float32Array(24).fill(1), 3), [], "another size: nothing");
  assert.deepEqual(copy.nearest(new Float32Array(3), 3), [], "no direction: nothing");
});

Deno.test("identical vectors tie in row-id order, whatever order they were put in", () => {
  if (!QuantizedVectors.supported()) return;
  const copy = new QuantizedVectors();
  const same = new Float32Array([0.3, -0.2, 0.9, 0.1]);
  for (const rowId of [50, 7, 31, 2]) copy.put(rowId, same);
  copy.put(99, new Float32Array([-1, 0, 0, 0]));
  assert.deepEqual(copy.nearest(same, 4).map((n) => n.rowId), [2, 7, 31, 50]);
});

Deno.test("ties stay in row-id order across thousands of slots, freed ones skipped", () => {
  if (!QuantizedVectors.supported()) return;
  const copy = new QuantizedVectors();
  // 40 directions far apart, 137 rows each, put in an order unrelated to their ids: the best
  // direction's rows tie, and the selection cuts its buffer many times before the end.
  const directions = Array.from({ length: 40 }, (_, d) => {
    const angle = (d / 40) * Math.PI;
    return new Float32Array([Math.cos(angle), Math.sin(angle), 0.1]);
  });
  const random = seededRandom(11);
  const rows = Array.from({ length: 40 * 137 }, (_, i) => ({ rowId: 1 + i, direction: i % 40 }));
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  for (const { rowId, direction } of rows) copy.put(rowId, directions[direction]);
  const best = rows.filter((row) => row.direction === 0).map((row) => row.rowId)
    .sort((a, b) => a - b);
  copy.remove(best[0]);
  const found = copy.nearest(directions[0], 100);
  assert.deepEqual(found.map((n) => n.rowId), best.slice(1, 101));
  assert.ok(found.every((n) => n.distance < 1e-3));
  // A few: the bar reaches the tied score early, and later ties with lower ids still join.
  assert.deepEqual(copy.nearest(directions[0], 5).map((n) => n.rowId), best.slice(1, 6));
});

Deno.test("a million 100-dimension vectors fit in 150 MB with their ids (measured at 20,000)", () => {
  if (!QuantizedVectors.supported()) return;
  const random = seededRandom(3);
  const copy = new QuantizedVectors();
  const count = 20_000;
  // Row ids far apart, as after years of edits: the table does not grow with the largest id.
  for (let i = 0; i < count; i++) copy.put(1 + i * 37, randomVector(random, 100));
  const perVector = copy.bytes / count;
  assert.ok(perVector * 1_000_000 <= 150e6, `${perVector.toFixed(1)} bytes a vector`);
});

Deno.test("on real text embedded by the static model, the copy's top 10 are the exact ones", async () => {
  const t = await openStaticModelContext();
  try {
    for (const content of documentSentences("ARCHITECTURE.md", 300)) {
      await rememberMemory(t.ctx, { content, subject: "architecture", workspace: "w" });
    }
    await t.semantic.embedPendingRows();
    t.semantic.invalidate();
    const queries = documentSentences("configuration.md", 40);
    let overlap = 0;
    let asked = 0;
    for (const query of queries) {
      const vector = await t.semantic.embedQuery(query);
      if (vector === undefined) continue;
      // Inside a write the store answers from sqlite-vec's float32 scan: the exact answer.
      let exact: { rowId: number; distance: number }[] = [];
      await t.store.writeBlocking(async () => {
        exact = await t.store.nearestRows(vector, 10);
      });
      const found = await t.store.nearestRows(vector, 10);
      assert.equal(found.length, exact.length);
      const expected = new Set(exact.map((n) => n.rowId));
      overlap += found.filter((n) => expected.has(n.rowId)).length / exact.length;
      asked++;
      // The nearest's distance is the exact one up to rounding.
      assert.ok(Math.abs(found[0].distance - exact[0].distance) < 5e-3, query);
    }
    assert.ok(asked >= 30, `${asked} queries had a direction`);
    assert.ok(overlap / asked >= 0.95, `top-10 overlap ${(overlap / asked).toFixed(3)}`);
  } finally {
    await t.semantic.unload();
    t.cleanup();
  }
});
