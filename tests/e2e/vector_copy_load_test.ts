/**
 * A server started on a library with vectors loads its copy of them in the background (issue
 * 38): a hybrid `find` asked before the copy is complete answers at once from the vectors
 * loaded so far and says so (`degraded`, a warning with the progress); once the load completes,
 * finds rank by meaning over every vector again, as a server that had them all from the start.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import {
  type Envelope,
  type ServerSession,
  startServer,
  type TempHome,
  waitForVectorState,
} from "../helpers/server.ts";

const STARTING = /semantic recall is starting: (\d+) of (\d+) vectors loaded/;
const QUERY = "automobile stopped working";

function modelEnv(home: TempHome): Record<string, string> {
  return { MEMA_EMBEDDING_MODEL: "static-wink-100d", MEMA_MODELS_DIR: `${home.dir}/models` };
}

/** Sentences of everyday words (the static model knows them), ~125 characters each. */
function sentences(count: number, seed: number): string {
  const pick = (words: string[], i: number) => words[(i * 7 + seed * 13) % words.length];
  const people = ["Maria", "the neighbour", "our teacher", "my cousin", "the baker", "a visitor"];
  const verbs = ["painted", "cleaned", "carried", "planted", "cooked", "repaired", "sold"];
  const things = ["the garden fence", "a wooden table", "fresh bread", "the old piano", "roses"];
  const places = ["near the river", "behind the school", "at the market", "in the village"];
  const times = ["on Sunday morning", "before the storm", "after lunch", "during the summer"];
  return Array.from(
    { length: count },
    (_, i) =>
      `${pick(people, i)} ${pick(verbs, i + 1)} ${pick(things, i + 2)} ${pick(places, i + 3)} ` +
      `${pick(times, i + 4)}, and everyone in the house agreed it was a good day number ${i}.`,
  )
    .join(" ");
}

function ids(envelope: Envelope): number[] {
  return envelope.data.results.map((r: { memory_id: number }) => r.memory_id);
}

/**
 * Finds until an answer no longer says the copy is loading (the load completes by itself), then
 * once more: the answer is told after its lookup, so the call during which the last page was
 * read may have looked at part of the copy; the next one starts after it was complete.
 */
async function findOnceLoaded(server: ServerSession): Promise<Envelope> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = await server.call("find", { query: QUERY });
    assert.equal(found.ok, true, JSON.stringify(found.data));
    if (!found.warnings.some((w) => STARTING.test(w))) break;
    assert.ok(Date.now() < deadline, `the copy never finished loading: ${found.warnings}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return await server.call("find", { query: QUERY });
}

onBothBackends(
  "a hybrid find before the vector copy is loaded answers from part of it, later ones from all",
  async (home) => {
    // ~2,700 vectors (about one per six sentences): more than the first page of the load (2,048).
    const seeding = await startServer(home, { env: modelEnv(home) });
    let carId: number;
    try {
      for (let part = 0; part < 9; part++) {
        const stored = await seeding.call("remember", {
          content: sentences(2_000, part),
          subject: `village diary ${part}`,
          workspace: "life",
        });
        assert.equal(stored.ok, true, JSON.stringify(stored.data));
      }
      // Written last, so its vector is among the last the copy loads.
      const car = await seeding.call("remember", {
        content: "My car broke down on the highway, so I was late.",
        subject: "commute trouble",
        workspace: "life",
      });
      carId = car.data.memory_id;
      await waitForVectorState(seeding, "ready");
      const whole = await seeding.call("find", { query: QUERY });
      assert.equal(whole.mode, "hybrid");
      assert.equal(whole.degraded, false, whole.warnings.join("; "));
      assert.equal(ids(whole)[0], carId, "found by meaning alone: no word in common");
    } finally {
      await seeding.close();
    }

    // The next server holds its load after the first slice until the test releases it.
    const release = `${home.dir}/release-vector-copy`;
    const server = await startServer(home, {
      env: { ...modelEnv(home), MEMA_TEST_VECTOR_COPY_HOLD: release },
    });
    try {
      const early = await server.call("find", { query: QUERY });
      assert.equal(early.ok, true, JSON.stringify(early.data));
      assert.equal(early.mode, "hybrid");
      assert.equal(early.degraded, true, early.warnings.join("; "));
      const progress = early.warnings.map((w) => STARTING.exec(w)).find((m) => m !== null);
      assert.ok(progress, `the answer says the copy is loading: ${early.warnings}`);
      const [loaded, total] = [Number(progress[1]), Number(progress[2])];
      // The first page is read a turn after start, before any call in practice; none is fine too.
      assert.ok(loaded < total, `${loaded} of ${total}`);
      assert.ok(total > 2_500, `${total} vectors`);
      assert.ok(!ids(early).includes(carId!), "its vector is not loaded yet");
      Deno.writeTextFileSync(release, "");
      const later = await findOnceLoaded(server);
      assert.equal(later.mode, "hybrid");
      assert.equal(later.degraded, false, later.warnings.join("; "));
      // Found by meaning again, as by the server that had every vector (the order may move: each
      // find counts as a use of what it returned, and the early ones returned other memories).
      assert.ok(ids(later).includes(carId!), JSON.stringify(ids(later)));
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "a small library's copy is read by the first find: it answers from every vector at once",
  async (home) => {
    const seeding = await startServer(home, { env: modelEnv(home) });
    let carId: number;
    try {
      const car = await seeding.call("remember", {
        content: "My car broke down on the highway, so I was late.",
        subject: "commute trouble",
        workspace: "life",
      });
      carId = car.data.memory_id;
      await seeding.call("remember", {
        content: sentences(40, 1),
        subject: "village diary",
        workspace: "life",
      });
      await waitForVectorState(seeding, "ready");
    } finally {
      await seeding.close();
    }
    // The background load is held before its first page: only the find can read the copy.
    const release = `${home.dir}/release-vector-copy`;
    const server = await startServer(home, {
      env: {
        ...modelEnv(home),
        MEMA_TEST_VECTOR_COPY_HOLD: release,
        MEMA_TEST_VECTOR_COPY_HOLD_FIRST: "1",
      },
    });
    try {
      const first = await server.call("find", { query: QUERY });
      assert.equal(first.mode, "hybrid");
      assert.equal(first.degraded, false, first.warnings.join("; "));
      assert.ok(!first.warnings.some((w) => STARTING.test(w)), first.warnings.join("; "));
      assert.equal(ids(first)[0], carId!, "found by meaning alone: no word in common");
    } finally {
      Deno.writeTextFileSync(release, "");
      await server.close();
    }
  },
);
