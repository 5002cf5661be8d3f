/**
 * Conflict neighbours by meaning come from the real semantic index (the static model, built
 * locally): a paraphrase that shares no word is found, within the memory's scope only.
 */
import assert from "node:assert/strict";
import { semanticNeighbours } from "../../src/conflicts/neighbours.ts";
import { SemanticIndex } from "../../src/evidence/semantic.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("neighbours by meaning: a paraphrase in scope is found, other workspaces are not", async () => {
  const t = await openTestContext();
  const semantic = new SemanticIndex(t.store, {
    modelId: "static-wink-100d",
    modelsDir: `${t.dir}/models`,
  });
  t.ctx.semantic = semantic;
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
