/** Zero vectors never reach the vector index, and never match when an older build stored one. */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { vectorCandidates } from "../../src/recall/vector.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";
import type { EvidenceRowRecord } from "../../src/store/mod.ts";

const SPACE = "test-model:3:000000000000";

async function vectorlessRows(t: TestContext): Promise<void> {
  assert.equal(t.store.capabilities.vec, true, t.store.capabilities.vecError);
  const ids: number[] = [];
  for (const content of ["North is up.", "East is right.", "Zzqx blorf."]) {
    ids.push(
      (await rememberMemory(t.ctx, { content, subject: "axes", workspace: "w" })).memoryId,
    );
  }
  await t.store.write(async () => await t.store.recreateVecTable(3));
  const rows: EvidenceRowRecord[][] = [];
  for (const id of ids) rows.push(await t.store.rowsOfMemory(id));
  const directions = [Float32Array.of(0, 1, 0), Float32Array.of(1, 0, 0)];
  await t.store.write(async () =>
    await t.store.writeRowVectors(SPACE, [
      ...rows[0].map((row) => ({ rowId: row.id, vector: directions[0] })),
      ...rows[1].map((row) => ({ rowId: row.id, vector: directions[1] })),
      ...rows[2].map((row) => ({ rowId: row.id, vector: null })),
    ])
  );
  const counts = await t.store.countEvidence(SPACE);
  assert.equal(counts.embedded, counts.rows, "rows without a vector count as embedded");
  assert.deepEqual(await t.store.rowsToEmbed(SPACE, 100), [], "and are not embedded again");
  const junk = new Set(rows[2].map((row) => row.id));
  const nearest = await t.store.nearestRows(Float32Array.of(0, 0, 1), 100);
  assert.ok(nearest.length > 0);
  assert.ok(nearest.every((n) => !junk.has(n.rowId)), JSON.stringify(nearest));
}

async function legacyZeroVectors(t: TestContext): Promise<void> {
  const real = await rememberMemory(t.ctx, {
    content: "North is up.",
    subject: "n",
    workspace: "w",
  });
  const zeros: number[] = [];
  for (let i = 0; i < 3; i++) {
    const memory = await rememberMemory(t.ctx, {
      content: `Zzqx blorf ${"q".repeat(i + 1)}.`,
      subject: "zz",
      workspace: "w",
    });
    zeros.push(memory.memoryId);
  }
  await t.store.write(async () => await t.store.recreateVecTable(3));
  const zeroRows: EvidenceRowRecord[][] = [];
  for (const id of zeros) zeroRows.push(await t.store.rowsOfMemory(id));
  await t.store.write(async () =>
    await t.store.writeRowVectors(SPACE, [
      ...(await t.store.rowsOfMemory(real.memoryId)).map((row) => ({
        rowId: row.id,
        vector: Float32Array.of(0, 1, 0),
      })),
      ...zeroRows.flatMap((rows) =>
        rows.map((row) => ({
          rowId: row.id,
          vector: new Float32Array(3),
        }))
      ),
    ])
  );
  const query = Float32Array.of(0.1, 1, 0);
  const nearest = await t.store.nearestRows(query, 1);
  assert.equal(nearest.length, 1);
  assert.ok(Number.isFinite(nearest[0].distance));
  assert.ok(nearest[0].distance < 0.01, JSON.stringify(nearest));

  const hits = await vectorCandidates(t.store, query, {
    filters: { statuses: ["active"] },
    floor: 0.5,
  });
  assert.deepEqual(hits.map((hit) => hit.memoryId), [real.memoryId]);
  assert.deepEqual(
    await vectorCandidates(t.store, new Float32Array(3), {
      filters: { statuses: ["active"] },
      floor: 0,
    }),
    [],
  );
}

// One store for both: sqlite-vec is copied once per process into the first store's cache
// directory, which a second test's cleanup would delete.
Deno.test("zero vectors never reach the index, and old ones never match", async (test) => {
  const t = await openTestContext();
  try {
    assert.equal(t.store.capabilities.vec, true, t.store.capabilities.vecError);
    await test.step("a row without a vector counts as embedded and never matches", () =>
      vectorlessRows(t));
    await test.step("zero vectors of an older build neither match nor crowd out neighbours", () =>
      legacyZeroVectors(t));
  } finally {
    t.cleanup();
  }
});
