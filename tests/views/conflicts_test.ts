import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { openConflictsOf } from "../../src/views/conflicts.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("under strict isolation a memory's open conflicts leave out those reaching another workspace", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const remember = async (content: string, workspace: string) =>
      (await rememberMemory(t.ctx, { content, subject: "deploys", workspace })).memoryId;
    const own = await remember("Deploys run on Monday.", "alpha");
    const ownTwin = await remember("Deploys run on Friday.", "alpha");
    const foreign = await remember("Deploys run on Sunday.", "beta");
    const member = (id: number, text: string) => ({
      memory_id: id,
      version: 1,
      row_text: text,
      start_offset: null,
      end_offset: null,
    });
    const group = (key: string, ids: number[]) =>
      t.store.write(async (tx) =>
        (await tx.conflicts.insert({
          workspaceCanonical: "alpha",
          status: "open",
          source: "agent",
          candidateKey: key,
          members: ids.map((id) => member(id, `memory ${id}`)),
          valueGroups: [],
          detection: {},
          createdAt: new Date().toISOString(),
        }))!
      );
    const inside = await group("inside", [own, ownTwin]);
    const across = await group("across", [own, foreign]);
    const strict: ServiceContext = {
      ...t.ctx,
      caller: { ...t.ctx.caller, workspace: "alpha" },
      settings: { ...t.ctx.settings, workspaceIsolation: "strict" },
    };
    const shown = await openConflictsOf(strict, [own]);
    assert.deepEqual(shown.get(own)?.map((ref) => ref.conflictId), [inside]);
    const all = await openConflictsOf(t.ctx, [own]);
    assert.deepEqual(all.get(own)?.map((ref) => ref.conflictId).sort(), [inside, across].sort());
  } finally {
    t.cleanup();
  }
});
