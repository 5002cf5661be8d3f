/**
 * Conflict neighbours by meaning come from the real semantic index (the static model, built
 * locally): a paraphrase that shares no word is found, within the memory's scope only.
 */
import assert from "node:assert/strict";
import { semanticNeighbours } from "../../src/conflicts/neighbours.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openStaticModelContext } from "../helpers/context.ts";
import {
  DETECT_JOB_KIND,
  DETECT_VECTOR_BACKLOG_MAX,
} from "../../src/conflicts/constants_pipeline.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";

Deno.test("neighbours by meaning: a paraphrase in scope is found, other workspaces are not", async () => {
  const t = await openStaticModelContext();
  const { semantic } = t;
  try {
    const remember = async (content: string, workspace: string) =>
      (await rememberMemory(t.ctx, { content, subject: "notes", workspace })).memoryId;
    const car = await remember("My car broke down on the highway, so I was late.", "life");
    const elsewhere = await remember("My car broke down on the highway, so I was late.", "work");
    await remember("Quantum physics describes subatomic particles.", "life");
    await semantic.embedPendingRows();
    const vectors = semanticNeighbours(t.store, semantic);
    const near = await vectors.near("The automobile stopped working on the motorway.", [
      "life",
      "default",
    ]);
    assert.equal(near[0]?.memoryId, car, JSON.stringify(near));
    assert.ok(near[0].similarity > 0 && near[0].similarity <= 1);
    assert.ok(!near.some((hit) => hit.memoryId === elsewhere));
  } finally {
    await semantic.unload();
    t.cleanup();
  }
});

Deno.test("a bulk import's checks skip the by-meaning lookup (word neighbours only)", async () => {
  const t = await openStaticModelContext();
  const { semantic } = t;
  try {
    await rememberMemory(t.ctx, {
      content: "My car broke down on the highway, so I was late.",
      subject: "notes",
      workspace: "life",
    });
    await semantic.embedPendingRows();
    const query = "The automobile stopped working on the motorway.";
    assert.equal((await semanticNeighbours(t.store, semantic).near(query, ["life"])).length, 1);
    // More waiting checks than DETECT_VECTOR_BACKLOG_MAX: a bulk import is being checked.
    await t.store.write(async () => {
      for (let i = 0; i < DETECT_VECTOR_BACKLOG_MAX + 1; i++) {
        await enqueueJob(t.store, {
          kind: DETECT_JOB_KIND,
          dedupeKey: `bulk:${i}`,
          payload: { memory_id: 1 },
        });
      }
    });
    assert.deepEqual(await semanticNeighbours(t.store, semantic).near(query, ["life"]), []);
  } finally {
    await semantic.unload();
    t.cleanup();
  }
});
