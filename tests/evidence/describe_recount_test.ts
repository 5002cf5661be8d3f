/**
 * Every response reports the vector index's state, and counting it grows with the rows (~4–20 ms
 * at 100k memories). A serving process answers a stale state as it was and counts again after
 * the call; elsewhere (CLI, tests) a stale state is counted at once.
 */
import assert from "node:assert/strict";
import { DESCRIBE_CACHE_MS } from "../../src/evidence/constants.ts";
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
      assert.equal((await semantic.describe()).rows, 0);
      await rememberMemory(t.ctx, {
        content: "The VPN gateway moved to Dublin. It serves the EU offices.",
        subject: "network",
        workspace: "infra",
      });
      await new Promise((resolve) => setTimeout(resolve, DESCRIBE_CACHE_MS + 50));
      // A count that took long (a loaded machine) is kept longer than DESCRIBE_CACHE_MS: ask
      // until the state has gone stale and the new rows show, each time once more after a pause.
      let answered = 0;
      let later = 0;
      const deadline = Date.now() + 10_000;
      while (later === 0 && Date.now() < deadline) {
        answered = (await semantic.describe()).rows;
        await new Promise((resolve) => setTimeout(resolve, 20));
        later = (await semantic.describe()).rows;
      }
      assert.ok(later > 0, "the rows of the new memory are counted");
      if (recountAfterCalls) assert.equal(answered, 0, "the call itself got the state it had");
      else assert.equal(answered, later, "counted on the call");
    } finally {
      await semantic.unload();
      t.cleanup();
    }
  });
}
