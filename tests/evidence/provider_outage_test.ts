/**
 * While the model server is away the embedding job is never a failure: however many rounds run,
 * it leaves one pending job due at the server's retry time and nothing poisoned; when the server
 * answers, that job embeds everything that waited.
 */
import assert from "node:assert/strict";
import { runEvidenceJob } from "../../src/evidence/worker.ts";
import { SemanticIndex } from "../../src/evidence/semantic.ts";
import { EMBED_JOB_KIND } from "../../src/evidence/constants.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext } from "../helpers/context.ts";
import { startFakeEmbeddingServer } from "../helpers/embedding_server.ts";

Deno.test("provider outage: the embedding job waits for the server instead of failing, then drains", async () => {
  const t = await openTestContext();
  const fake = startFakeEmbeddingServer();
  await fake.stop();
  const semantic = new SemanticIndex(t.store, {
    modelsDir: `${t.dir}/models`,
    provider: {
      url: fake.url,
      model: "fake-embed",
      dimensions: 64,
      headers: {},
      queryPrefix: "",
      documentPrefix: "",
      batchSize: 64,
      timeoutMs: 1_000,
      queryTimeoutMs: 500,
    },
  });
  t.ctx.semantic = semantic;
  try {
    for (const content of ["We deploy on Tuesdays.", "The staging database is in Frankfurt."]) {
      await rememberMemory(t.ctx, { content, subject: "ops", workspace: "infra" });
    }
    // Ten rounds while the server is away (a worker would run them as the job comes due).
    for (let round = 0; round < 10; round++) {
      await runEvidenceJob(t.store, semantic, { complete: true });
    }
    const jobs = (await t.store.read(async () => await t.store.countJobs()))[EMBED_JOB_KIND];
    assert.equal(jobs?.poisoned ?? 0, 0, JSON.stringify(jobs));
    assert.ok((jobs?.pending ?? 0) >= 1, `a job waits for the server: ${JSON.stringify(jobs)}`);
    const away = await semantic.describe();
    assert.equal(away.searchable, false);
    assert.match(away.warning ?? "", /embedding provider .* is unavailable/);
    assert.equal(away.embeddedRows, 0);

    fake.start();
    // The waiting job comes due at the retry time (2 s after the first failure).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await runEvidenceJob(t.store, semantic, { complete: true });
    semantic.invalidate();
    const back = await semantic.describe();
    assert.equal(back.state, "ready", JSON.stringify(back));
    assert.equal(back.embeddedRows, back.rows);
    assert.equal(back.warning, undefined);
  } finally {
    await fake.stop();
    await semantic.unload();
    t.cleanup();
  }
});
