import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import type { RecallFilters } from "../../src/store/mod.ts";
import { ScopeVerdicts } from "../../src/store/scope_verdicts.ts";
import { indexTokens } from "../../src/text/index_terms.ts";
import { openTestContext } from "../helpers/context.ts";

const inWorkspace = (workspace: string): RecallFilters => ({
  statuses: ["active"],
  workspaces: [workspace],
});

Deno.test("neighbour lookups repeated with the same filters see every change of a memory's scope", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids: Record<string, number> = {};
    for (const [name, workspace] of [["a1", "alpha"], ["a2", "alpha"], ["b1", "beta"]]) {
      ids[name] = (await rememberMemory(t.ctx, {
        subject: "harbour lantern",
        content: `The harbour lantern ${name} is lit at dusk`,
        workspace,
      })).memoryId;
    }
    const [lantern] = indexTokens("lantern");
    const holders = async (filters: RecallFilters) =>
      (await t.store.read(async () =>
        await t.store.weightedTermHits([{ token: lantern, weight: 1 }], filters, 10)
      )).map((hit) => hit.id).sort((x, y) => x - y);

    // Asked twice (the second answer from the kept verdicts), and with other filters.
    assert.deepEqual(await holders(inWorkspace("alpha")), [ids.a1, ids.a2]);
    assert.deepEqual(await holders(inWorkspace("alpha")), [ids.a1, ids.a2]);
    assert.deepEqual(await holders(inWorkspace("beta")), [ids.b1]);

    // Another connection retires one and moves another behind the store's back.
    const other = new DatabaseSync(t.dbPath);
    other.exec(`UPDATE memories SET status = 'retired' WHERE id = ${ids.a1}`);
    other.exec(`UPDATE memories SET workspace_canonical = 'alpha' WHERE id = ${ids.b1}`);
    other.close();
    assert.deepEqual(await holders(inWorkspace("alpha")), [ids.a2, ids.b1]);
    assert.deepEqual(await holders(inWorkspace("beta")), []);

    // Inside a write the snapshot may hold what is not committed: nothing is kept from it.
    await assert.rejects(
      t.store.write(async () => {
        await t.store.setStatus(ids.a2, {
          status: "retired",
          supersededBy: null,
          now: new Date().toISOString(),
        });
        assert.deepEqual(await holders(inWorkspace("alpha")), [ids.b1]);
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.deepEqual(await holders(inWorkspace("alpha")), [ids.a2, ids.b1]);
  } finally {
    t.cleanup();
  }
});

Deno.test("kept verdicts are bounded: a few filters at a time, none without a stamp", () => {
  const verdicts = new ScopeVerdicts(2);
  const alpha = verdicts.of("1:1", "alpha")!;
  alpha.set(1, true).set(2, false).set(3, true);
  // The oldest verdict left to make room.
  assert.deepEqual([...alpha.keys()], [2, 3]);
  for (const key of ["beta", "gamma", "delta", "epsilon"]) verdicts.of("1:1", key)!.set(9, true);
  // A fifth filter starts over rather than growing.
  assert.equal(verdicts.of("1:1", "alpha")!.size, 0);
  assert.equal(verdicts.of(undefined, "alpha"), undefined);
});
