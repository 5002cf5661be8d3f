/**
 * Facts written before the entity graph existed are read in bounded slices, resume where the
 * last slice stopped, and are never read again once the library is read through.
 */
import assert from "node:assert/strict";
import { backfillEntities, entityBackfillOwed } from "../../src/entities/backfill.ts";
import { entityView } from "../../src/views/entities.ts";
import { openTestContext } from "../helpers/context.ts";
import { testMemory } from "../store/memory_rows.ts";

Deno.test("older facts are read for entities in slices, once", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    // Stored below the write path (as a database from before the graph holds them).
    await t.store.write(async (tx) => {
      for (let i = 0; i < 5; i++) {
        await tx.insertMemory(testMemory(`Service${i} API depends on the Core Platform.`));
      }
    });
    assert.equal(await entityBackfillOwed(t.store), true);
    assert.deepEqual(
      [
        await backfillEntities(t.store, 2),
        await backfillEntities(t.store, 2),
        await backfillEntities(t.store, 2),
      ],
      [2, 2, 1],
    );
    assert.equal(await entityBackfillOwed(t.store), false);
    assert.equal(await backfillEntities(t.store, 2), 0, "read through: nothing more");
    const core = await entityView(t.ctx, { name: "Core Platform", depth: 1 });
    assert.equal(core.relations.length, 5);
  } finally {
    t.cleanup();
  }
});
