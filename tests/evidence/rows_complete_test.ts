/**
 * The serve start's search for memories without evidence rows reads the whole library, so it
 * runs only until it has come back empty once (or never, on a database created by this build):
 * a database from before rows existed is still backfilled, and then marked complete.
 * @module
 */
import assert from "node:assert/strict";
import { openDatabase } from "../../src/app/mod.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { EVIDENCE_ROWS_COMPLETE_KEY } from "../../src/evidence/constants.ts";
import { SemanticIndex } from "../../src/evidence/semantic.ts";
import { startEvidenceWorker } from "../../src/evidence/worker.ts";
import { openStore } from "../../src/store/mod.ts";
import { testMemory } from "../store/memory_rows.ts";

Deno.test("a new database is born with every memory's rows known complete", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-rows-" });
  try {
    const config = loadConfig({
      flags: { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/absent.json` },
    });
    const store = await openDatabase(config, { skipVec: true });
    try {
      assert.ok(await store.read(async () => await store.getMeta(EVIDENCE_ROWS_COMPLETE_KEY)));
    } finally {
      await store.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a library with memories missing rows is backfilled at start, then marked", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-rows-" });
  // Opened below the composition root, as `mema upgrade` writes its target: no mark.
  const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
  const semantic = new SemanticIndex(store, { modelsDir: `${dir}/models` });
  try {
    const id = await store.write(async (tx) =>
      await tx.insertMemory(testMemory("Deploys run on Fridays.", { contentSha: "rows-1" }))
    );
    assert.deepEqual(await store.read(async () => await store.memoriesMissingRows(10)), [id]);
    assert.equal(
      await store.read(async () => await store.getMeta(EVIDENCE_ROWS_COMPLETE_KEY)),
      undefined,
    );
    const worker = await startEvidenceWorker(store, semantic);
    try {
      const deadline = Date.now() + 10_000;
      while (
        !(await store.read(async () => await store.getMeta(EVIDENCE_ROWS_COMPLETE_KEY))) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await worker.stop();
    }
    assert.deepEqual(await store.read(async () => await store.memoriesMissingRows(10)), []);
    assert.ok(await store.read(async () => await store.getMeta(EVIDENCE_ROWS_COMPLETE_KEY)));
  } finally {
    await semantic.unload();
    await store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
