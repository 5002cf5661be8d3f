/**
 * Every response reports the vector index's state, and counting it grows with the rows (~4–20 ms
 * at 100k memories). A serving process answers a stale state as it was and counts again after
 * the call; elsewhere (CLI, tests) a stale state is counted at once.
 */
import assert from "node:assert/strict";
import { DESCRIBE_CACHE_MS, DESCRIBE_COST_FACTOR } from "../../src/evidence/constants.ts";
import { SemanticIndex } from "../../src/evidence/semantic.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext } from "../helpers/context.ts";

for (const recountAfterCalls of [true, false]) {
  Deno.test(`a stale index state is ${recountAfterCalls ? "recounted after the call" : "recounted at once"}`, async () => {
    const t = await openTestContext();
    const semantic = new SemanticIndex(t.store, {
      modelId: "static-wink-100d",
      modelsDir: `${t.dir}/models`,
      recountAfterCalls,
    });
    try {
      const started = performance.now();
      assert.equal((await semantic.describe()).rows, 0);
      // The count inside took no longer than the whole call, so once this much time has passed
      // the state it kept is stale, whatever the machine's load (a slow count is kept longer).
      const keptAtMost = Math.max(
        DESCRIBE_CACHE_MS,
        (performance.now() - started) * DESCRIBE_COST_FACTOR,
      );
      await rememberMemory(t.ctx, {
        content: "The VPN gateway moved to Dublin. It serves the EU offices.",
        subject: "network",
        workspace: "infra",
      });
      await new Promise((resolve) => setTimeout(resolve, keptAtMost + 50));
      const answered = (await semantic.describe()).rows;
      if (!recountAfterCalls) {
        assert.ok(answered > 0, "the first call after the state went stale counted the new rows");
        return;
      }
      assert.equal(answered, 0, "the call itself got the state it had");
      // The recount runs after the call: a later call sees the new rows.
      let later = 0;
      const deadline = Date.now() + 10_000;
      while (later === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        later = (await semantic.describe()).rows;
      }
      assert.ok(later > 0, "the rows of the new memory are counted after the call");
    } finally {
      await semantic.unload();
      t.cleanup();
    }
  });
}
