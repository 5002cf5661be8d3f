/**
 * A change of embedding model on a shared PostgreSQL database (issue 36): two real `mema serve`
 * processes start with the new model, both notice the other space, and one of them rebuilds the
 * index in the background; the library is embedded once, and both answer hybrid again.
 */
import assert from "node:assert/strict";
import { eventually, type Team, teamTest } from "../helpers/postgres_team.ts";
import { type ServerSession, startServer } from "../helpers/server.ts";
import { type FakeEmbeddingServer, startFakeEmbeddingServer } from "../helpers/embedding_server.ts";

const MEMORIES = [
  "My car broke down on the highway, so I was late.",
  "Quantum physics describes subatomic particles.",
  "I love eating fresh strawberries in June.",
  "The quarterly tax filing is due on April 15.",
];

function serverOn(team: Team, fake: FakeEmbeddingServer, model: string): Promise<ServerSession> {
  return startServer(team.home(), {
    env: {
      MEMA_DB_URL: team.url,
      MEMA_EMBEDDING_PROVIDER_URL: fake.url,
      MEMA_EMBEDDING_PROVIDER_MODEL: model,
    },
  });
}

async function readyIn(server: ServerSession, space: RegExp): Promise<void> {
  await eventually(`a ready index in ${space}`, async () => {
    const status = await server.repair("semantic_control", { action: "status" });
    return status.data.state === "ready" && space.test(status.data.space ?? "") &&
        !status.data.warning
      ? true
      : undefined;
  }, 30);
}

teamTest("a model change rebuilds the shared index once, by one server", async (team) => {
  const fake = startFakeEmbeddingServer();
  try {
    const first = await serverOn(team, fake, "fake-embed");
    let carId: number;
    try {
      const ids: number[] = [];
      for (const [index, content] of MEMORIES.entries()) {
        const subject = `note ${index + 1}`;
        const written = await first.call("remember", { content, subject, workspace: "team" });
        assert.equal(written.ok, true, JSON.stringify(written.data));
        ids.push(written.data.memory_id);
      }
      carId = ids[0];
      await readyIn(first, /^provider:fake-embed:64:/);
    } finally {
      await first.close();
    }

    const a = await serverOn(team, fake, "fake-embed-v2");
    const b = await serverOn(team, fake, "fake-embed-v2");
    try {
      await readyIn(a, /^provider:fake-embed-v2:64:/);
      await readyIn(b, /^provider:fake-embed-v2:64:/);
      // Each memory's text went to the new model once: one server re-embedded the library.
      const documents = fake.requests.filter((request) => request.model === "fake-embed-v2")
        .flatMap((request) => request.inputs);
      for (const content of MEMORIES) {
        assert.equal(
          documents.filter((input) => input.includes(content)).length,
          1,
          `${content} embedded once: ${JSON.stringify(documents)}`,
        );
      }
      for (const server of [a, b]) {
        const found = await server.call("find", {
          query: "automobile stopped working",
          workspace: "team",
        });
        assert.equal(found.mode, "hybrid", found.warnings.join("; "));
        assert.equal(found.data.results[0]?.memory_id, carId!);
      }
    } finally {
      await a.close();
      await b.close();
    }
  } finally {
    await fake.stop();
  }
});
