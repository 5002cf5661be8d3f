/**
 * Hybrid recall over the real server with the built-in static model (issue 12 item 10): a text
 * whose words the model does not know has no direction, so it must never match anything, and
 * `mode` says `hybrid` only once vectors cover the library.
 */
import assert from "node:assert/strict";
import { libraryRowCount, onBothBackends, setLibraryMeta } from "../helpers/e2e_backends.ts";
import {
  type Envelope,
  type ServerSession,
  startServer,
  type TempHome,
  waitForVectorState,
} from "../helpers/server.ts";

function modelEnv(home: TempHome): Record<string, string> {
  return { MEMA_EMBEDDING_MODEL: "static-wink-100d", MEMA_MODELS_DIR: `${home.dir}/models` };
}

/** The index as another model of the same dimension would have left it. */
const OTHER_MODEL_SPACE = { key: "embedding_space", value: "other-model:100:0123456789ab" };

const FACTS: [string, string][] = [
  ["My car broke down on the highway, so I was late.", "commute trouble"],
  ["Quantum physics describes subatomic particles.", "physics notes"],
  ["I love eating fresh strawberries in June.", "food"],
  ["The quarterly tax filing is due on April 15.", "taxes"],
  ["The team meets every Monday morning to plan the week.", "standup"],
  ["Backups run nightly and are kept for thirty days.", "backups"],
];

async function seed(server: ServerSession): Promise<void> {
  for (const [content, subject] of FACTS) {
    const stored = await server.call("remember", { content, subject, workspace: "life" });
    assert.equal(stored.ok, true, JSON.stringify(stored.data));
  }
}

const BUILDING = /semantic index building: (\d+) of (\d+) rows embedded/;

/** Asserts the envelope's mode agrees with the coverage it reports, and returns the coverage. */
function checkCoverage(envelope: Envelope): { embedded: number; rows: number } | undefined {
  const warning = envelope.warnings.find((w) => BUILDING.test(w));
  if (!warning) return undefined;
  const [, embedded, rows] = BUILDING.exec(warning)!.map(Number);
  assert.ok(embedded < rows, warning);
  if (embedded < 0.95 * rows) assert.equal(envelope.mode, "lexical", warning);
  return { embedded, rows };
}

onBothBackends(
  "a query or a memory of words the model does not know never matches",
  async (home) => {
    const server = await startServer(home, { env: modelEnv(home) });
    try {
      await seed(server);
      const junk = await server.call("remember", {
        content: "Zzqx blorf wibblefrotz quuxor.",
        subject: "vrrmp gnarfle",
        workspace: "life",
      });
      assert.equal(junk.ok, true, JSON.stringify(junk.data));
      await waitForVectorState(server, "ready");

      const unknown = await server.call("find", { query: "qwyjibo snargle" });
      assert.equal(unknown.mode, "hybrid");
      assert.deepEqual(
        unknown.data.results.map((r: { memory_id: number }) => r.memory_id),
        [],
        "a query without one known word has no vector: nothing matches by meaning",
      );

      for (const query of ["banana", "tax deadline", "fresh strawberries", "automobile trouble"]) {
        const found = await server.call("find", { query, include_size: true });
        assert.equal(found.mode, "hybrid");
        const ids = found.data.results.map((r: { memory_id: number }) => r.memory_id);
        assert.ok(!ids.includes(junk.data.memory_id), `${query}: ${JSON.stringify(found.data)}`);
        for (const result of found.data.results) {
          assert.ok(
            result.similarity === undefined || result.similarity < 0.999,
            `${query}: similarity ${result.similarity} for ${result.memory_id}`,
          );
        }
      }
      // Rows without a vector still count as embedded: the index is complete, not stuck.
      const status = await server.call("status");
      assert.equal(status.data.capabilities.vector_state, "ready");
      assert.equal(status.data.evidence.coverage, 1);
      // The junk memory is still found by its words.
      const byWords = await server.call("find", { query: "wibblefrotz" });
      assert.equal(byWords.data.results[0]?.memory_id, junk.data.memory_id);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "mode is lexical with a coverage warning until vectors cover the library",
  async (home, backend) => {
    const lexical = await startServer(home);
    try {
      await seed(lexical);
    } finally {
      await lexical.close();
    }
    let server = await startServer(home, { env: modelEnv(home) });
    try {
      // Right after `setup --model` nothing is embedded yet; whatever the worker has done by
      // now, the reported mode must agree with the coverage.
      const early = await server.call("status");
      const coverage = checkCoverage(early);
      if (coverage && coverage.embedded < 0.95 * coverage.rows) {
        assert.equal(early.data.capabilities.mode, "lexical");
      }
      await waitForVectorState(server, "ready");
      const ready = await server.call("find", { query: "automobile stopped working" });
      assert.equal(ready.mode, "hybrid");
      assert.ok(!ready.warnings.some((w) => BUILDING.test(w)), ready.warnings.join("; "));
    } finally {
      await server.close();
    }
    // Another model's index: rebuild_evidence refills it in small batches while the server's own
    // background rebuild may fill it too. Until every row is embedded again each answer is
    // lexical and says how far the rebuild is; never hybrid over a half-filled index.
    await setLibraryMeta(home, backend, OTHER_MODEL_SPACE);
    const rows = await libraryRowCount(home, backend, "memory_rows");
    const REBUILDING =
      /being rebuilt for static-wink-100d after a model change \((\d+)\/(\d+) rows/;
    const checkRebuild = (response: Envelope): boolean => {
      const warning = response.warnings.find((w) => REBUILDING.test(w));
      if (!warning) return false;
      const [, done, total] = REBUILDING.exec(warning)!.map(Number);
      assert.equal(total, rows, warning);
      assert.ok(done < total, warning);
      assert.equal(response.mode, "lexical", warning);
      assert.equal(response.degraded, true);
      return true;
    };
    server = await startServer(home, { env: modelEnv(home) });
    try {
      const first = await server.repair("rebuild_evidence", { dry_run: false, batch_size: 2 });
      assert.equal(first.ok, true, JSON.stringify(first.data));
      for (
        const response of [await server.call("status"), await server.call("find", { query: "car" })]
      ) {
        if (checkRebuild(response)) {
          assert.equal(response.data.capabilities?.vector_state ?? "indexing", "indexing");
        }
      }
      // Lexical means lexical: no memory is found by meaning alone while the index fills.
      const paraphrase = await server.call("find", { query: "automobile stopped working" });
      if (checkRebuild(paraphrase)) {
        assert.equal(paraphrase.data.results.length, 0, JSON.stringify(paraphrase.data));
      }

      let complete = first.data.complete;
      for (let round = 0; round < 20 && !complete; round++) {
        const step = await server.repair("rebuild_evidence", { dry_run: false, batch_size: 2 });
        assert.equal(step.ok, true, JSON.stringify(step.data));
        complete = step.data.complete;
        checkRebuild(await server.call("status"));
      }
      assert.ok(complete, "rebuild completes in batches");
      const after = await server.call("find", { query: "automobile stopped working" });
      assert.equal(after.mode, "hybrid");
      assert.equal(after.degraded, false, after.warnings.join("; "));
      assert.equal((await server.call("status")).data.capabilities.mode, "hybrid");
    } finally {
      await server.close();
    }
  },
);
