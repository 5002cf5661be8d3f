import assert from "node:assert/strict";
import { onBothBackends, setLibraryMeta } from "../helpers/e2e_backends.ts";
import {
  type ServerSession,
  startServer,
  type TempHome,
  waitForVectorState,
} from "../helpers/server.ts";

/** The index as another model of the same dimension would have left it. */
const OTHER_MODEL_SPACE = { key: "embedding_space", value: "other-model:100:0123456789ab" };

const STATIC = { MEMA_EMBEDDING_MODEL: "static-wink-100d" };

async function seed(server: ServerSession): Promise<number> {
  const car = await server.call("remember", {
    content: "My car broke down on the highway, so I was late.",
    subject: "commute trouble",
    workspace: "life",
  });
  for (
    const [content, subject] of [
      ["Quantum physics describes subatomic particles.", "physics notes"],
      ["I love eating fresh strawberries in June.", "food"],
      ["The quarterly tax filing is due on April 15.", "taxes"],
    ]
  ) {
    await server.call("remember", { content, subject, workspace: "life" });
  }
  return car.data.memory_id;
}

function modelEnv(home: TempHome): Record<string, string> {
  return { ...STATIC, MEMA_MODELS_DIR: `${home.dir}/models` };
}

onBothBackends("the static model finds a paraphrase that lexical recall misses", async (home) => {
  const lexical = await startServer(home);
  let carId: number;
  try {
    carId = await seed(lexical);
    const miss = await lexical.call("find", { query: "automobile stopped working" });
    assert.equal(miss.mode, "lexical");
    assert.equal(miss.data.results.length, 0, "no shared word, so lexical finds nothing");
  } finally {
    await lexical.close();
  }
  const hybrid = await startServer(home, { env: modelEnv(home) });
  try {
    await waitForVectorState(hybrid, "ready");
    const found = await hybrid.call("find", {
      query: "automobile stopped working",
      include_size: true,
    });
    assert.equal(found.mode, "hybrid");
    assert.equal(found.degraded, false, found.warnings.join("; "));
    assert.equal(found.data.results[0]?.memory_id, carId!);
    assert.ok(found.data.results[0].similarity > 0.6);
    const status = await hybrid.call("status");
    assert.equal(status.data.capabilities.vector_state, "ready");
    assert.equal(status.data.evidence.coverage, 1);
  } finally {
    await hybrid.close();
  }
});

onBothBackends("hits mode returns exact source slices with neighbouring rows", async (home) => {
  const server = await startServer(home, { env: modelEnv(home) });
  try {
    const content = [
      "# Release checklist",
      "Bump the version in deno.json. Run the whole test suite.",
      "Tag the commit, e.g. v1.2.3, and push the tag.",
      "Announce the release in the team channel.",
      "",
      "| step | owner |",
      "| --- | --- |",
      "| announce | Ada |",
      "",
      "Archive the old branch afterwards. Close the milestone. Update the changelog file.",
    ].join("\n");
    const id = (await server.call("remember", { content, subject: "release", workspace: "w" })).data
      .memory_id;
    await waitForVectorState(server, "ready");
    const response = await server.call("find", { query: "push the tag", content_mode: "hits" });
    const result = response.data.results.find((r: { memory_id: number }) => r.memory_id === id);
    assert.ok(result.hit_spans?.length > 0, JSON.stringify(result));
    for (const span of result.hit_spans) {
      assert.equal(content.slice(span.start_offset, span.end_offset), span.text);
    }
    assert.ok(result.hit_spans.some((s: { text: string }) => s.text.includes("push the tag")));
    const wide = await server.call("find", {
      query: "push the tag",
      content_mode: "hits",
      hit_window: 1,
    });
    const wider = wide.data.results.find((r: { memory_id: number }) => r.memory_id === id);
    const widest = wider.hit_spans ?? [{ text: wider.content }];
    assert.ok(widest.some((s: { text: string }) => s.text.includes("Run the whole test suite.")));
    for (const span of wider.hit_spans ?? []) {
      assert.equal(content.slice(span.start_offset, span.end_offset), span.text);
    }
    const short = await server.call("remember", {
      content: "Lunch is at noon.",
      subject: "lunch",
      workspace: "w",
    });
    const upgraded = await server.call("find", { query: "lunch noon", content_mode: "hits" });
    const lunch = upgraded.data.results.find((r: { memory_id: number }) =>
      r.memory_id === short.data.memory_id
    );
    assert.equal(
      lunch.content,
      "Lunch is at noon.",
      "hits covering the whole text return the content",
    );
  } finally {
    await server.close();
  }
});

onBothBackends(
  "a changed embedding model rebuilds the index by itself; find is lexical with the progress until it is done",
  async (home, backend) => {
    let server = await startServer(home, { env: modelEnv(home) });
    let carId: number;
    try {
      carId = await seed(server);
      await waitForVectorState(server, "ready");
    } finally {
      await server.close();
    }
    // Pretend the index was built by another model of the same dimension.
    await setLibraryMeta(home, backend, OTHER_MODEL_SPACE);
    server = await startServer(home, { env: modelEnv(home) });
    try {
      // Right after the start the rebuild is queued (the worker waits a second before its first
      // job): recall is lexical and says a rebuild runs, with how far it is.
      const before = await server.call("find", { query: "automobile stopped working" });
      if (before.mode === "lexical") {
        assert.equal(before.degraded, true);
        assert.ok(
          before.warnings.some((w) => /rebuilt .*\d+\/\d+ rows embedded/.test(w)),
          before.warnings.join("; "),
        );
        assert.equal(before.data.results.length, 0);
      }
      await waitForVectorState(server, "ready");
      const status = await server.repair("semantic_control", { action: "status" });
      assert.match(status.data.space, /^static-wink-100d:100:/);
      assert.equal(status.data.rebuild, undefined);
      assert.equal(status.data.warning, null);
      const after = await server.call("find", { query: "automobile stopped working" });
      assert.equal(after.mode, "hybrid", after.warnings.join("; "));
      assert.equal(after.data.results[0]?.memory_id, carId!);
      // By hand it still answers, and finds nothing left to do.
      const dry = await server.repair("rebuild_evidence", {});
      assert.equal(dry.data.complete, true, JSON.stringify(dry.data));
    } finally {
      await server.close();
    }
  },
);
