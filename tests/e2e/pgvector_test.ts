/**
 * The pgvector path on PostgreSQL (issue 33), against PGlite with pgvector installed
 * (tests/helpers/pglite.ts): hybrid finds are answered by the HNSW index and say so, rank as the
 * vector copy does (the SQLite library's search, the same code PostgreSQL without pgvector runs),
 * keep strict workspaces apart across two servers, drop
 * an updated, retired or purged memory's vectors, and follow a change of embedding space.
 */
import assert from "node:assert/strict";
import { onPgvector, type PgliteServer } from "../helpers/pglite.ts";
import { queryRows } from "../helpers/postgres_rows.ts";
import {
  type Envelope,
  makeTempHome,
  runCli,
  type ServerSession,
  startServer,
  type TempHome,
} from "../helpers/server.ts";
import { rememberConfirmed } from "../helpers/workspaces.ts";
import { startFakeEmbeddingServer } from "../helpers/embedding_server.ts";

const STATIC_MODEL = "static-wink-100d";

function modelEnv(home: TempHome): Record<string, string> {
  return { MEMA_EMBEDDING_MODEL: STATIC_MODEL, MEMA_MODELS_DIR: `${home.dir}/models` };
}

/** A home whose servers and commands use `db` (none: the home's SQLite file). */
function homeOn(db: PgliteServer | undefined): TempHome {
  const home = makeTempHome();
  if (db) home.env.MEMA_DB_URL = db.url;
  return home;
}

/** Polls status until every evidence row has its vector, and `also` holds (60 s at most). */
async function waitEmbedded(
  server: ServerSession,
  also: (status: Envelope) => boolean = () => true,
): Promise<Envelope> {
  let status: Envelope | undefined;
  for (let attempt = 0; attempt < 600; attempt++) {
    status = await server.call("status");
    const { evidence, jobs } = status.data;
    // Every response reports the server's vector state, counted at most every 500 ms
    // (DESCRIBE_CACHE_MS): the rows are embedded once `status` counts them all, and a find is
    // answered by the index once the state the server reports says so too.
    const ready = evidence.coverage === 1 && !jobs.embed_rows && status.mode === "hybrid";
    if (ready && also(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the evidence rows were never all embedded: ${JSON.stringify(status?.data)}`);
}

function ids(found: Envelope): number[] {
  assert.equal(found.ok, true, JSON.stringify(found.data));
  return found.data.results.map((r: { memory_id: number }) => r.memory_id);
}

const CORPUS: [string, string][] = [
  ["My car broke down on the highway, so I was late.", "life"],
  ["The baker sold fresh bread and warm rolls at the market.", "life"],
  ["Our cat sleeps on the sofa all afternoon.", "life"],
  ["The quarterly tax filing is due on April 15.", "work"],
  ["Quantum physics describes subatomic particles.", "work"],
  ["We planted roses and tulips in the garden in spring.", "life"],
  ["The database server was restarted after the kernel update.", "work"],
  ["She swims in the lake every summer morning.", "life"],
];

const QUERIES = [
  "automobile stopped working",
  "pastry shop",
  "kitten napping",
  "income taxes deadline",
  "flowers",
  "swimming",
];

/** The corpus remembered in order on the library `home` names; the answers to the queries. */
async function answers(home: TempHome): Promise<{ found: number[][]; status: Envelope }> {
  const server = await startServer(home, { env: modelEnv(home) });
  try {
    for (const [content, workspace] of CORPUS) {
      const stored = await server.call("remember", { content, subject: "notes", workspace });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
    }
    await waitEmbedded(server);
    const found: number[][] = [];
    for (const query of QUERIES) {
      const answer = await server.call("find", { query });
      assert.equal(answer.mode, "hybrid", answer.warnings.join("; "));
      found.push(ids(answer).slice(0, 3));
    }
    return { found, status: await server.call("status") };
  } finally {
    await server.close();
  }
}

onPgvector(
  "a hybrid find is answered by the HNSW index, as the vector copy answers",
  async (db) => {
    const copyHome = homeOn(undefined);
    const pgHome = homeOn(db);
    try {
      const byCopy = await answers(copyHome);
      const byIndex = await answers(pgHome);
      assert.match(byIndex.status.data.backend.vector_path, /^pgvector \d+\.\d+\.\d+ \(HNSW/);
      assert.equal(byIndex.status.data.capabilities.vector_state, "ready");
      // Same memories, same order: the copy's int8 scan and the index agree on this corpus.
      assert.deepEqual(byIndex.found, byCopy.found);
      assert.equal(byIndex.found[0][0], 1, "the car memory answers the car question");

      const doctor = await runCli(pgHome, ["doctor"], modelEnv(pgHome));
      assert.match(doctor.stdout, /vector search runs in pgvector \d+\.\d+\.\d+ \(HNSW index/);
      const index = await queryRows(
        db.url,
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'memory_row_vectors_hnsw'",
      );
      assert.match(String(index[0]?.indexdef), /USING hnsw \(embedding_hnsw vector_cosine_ops\)/);
    } finally {
      copyHome.cleanup();
      pgHome.cleanup();
    }
  },
);

onPgvector(
  "strict workspaces hold: a nearer memory of another workspace is never found",
  async (db) => {
    const home = homeOn(db);
    const strict = (workspace: string) =>
      startServer(home, {
        env: {
          ...modelEnv(home),
          MEMA_WORKSPACE_ISOLATION: "strict",
          MEMA_WORKSPACE: workspace,
        },
      });
    const beta = await strict("beta");
    const alpha = await strict("alpha");
    try {
      // Beta's memory is nearer to alpha's question than alpha's own (more rows behind a filter
      // than a lookup's k: tests/store/pgvector_index_test.ts).
      const betaId = await rememberConfirmed(beta, {
        content: "Her automobile stopped working and would not start.",
        subject: "fleet log",
      });
      const alphaId = await rememberConfirmed(alpha, {
        content: "My car broke down on the highway, so I was late.",
        subject: "commute",
      });
      await rememberConfirmed(alpha, {
        content: "The baker sold fresh bread at the market.",
        subject: "shopping",
      });
      await waitEmbedded(beta);
      await waitEmbedded(alpha);
      assert.deepEqual(ids(await beta.call("find", { query: "automobile stopped working" })), [
        betaId,
      ]);

      const query = "automobile stopped working";
      const seenByAlpha = await alpha.call("find", { query });
      assert.equal(seenByAlpha.mode, "hybrid", seenByAlpha.warnings.join("; "));
      // The filter holds inside the index scan: beta's nearer memory is not alpha's to see.
      assert.deepEqual(ids(seenByAlpha).slice(0, 1), [alphaId]);
      assert.ok(!ids(seenByAlpha).includes(betaId), "beta's memory never reaches alpha");
      const seenByBeta = await beta.call("find", { query: "bread market" });
      assert.ok(!ids(seenByBeta).some((id) => id !== betaId), "alpha's memories never reach beta");
    } finally {
      await alpha.close();
      await beta.close();
      home.cleanup();
    }
  },
);

/** How many vectors of `memoryId`'s rows the index table holds. */
async function vectorsOf(db: PgliteServer, memoryId: number): Promise<number> {
  const rows = await queryRows(
    db.url,
    `SELECT count(*)::int AS n FROM memory_row_vectors v JOIN memory_rows r ON r.id = v.row_id
     WHERE r.memory_id = ?`,
    [memoryId],
  );
  return Number(rows[0].n);
}

onPgvector("updated, retired and purged memories leave the index", async (db) => {
  const home = homeOn(db);
  const server = await startServer(home, { env: modelEnv(home) });
  try {
    const remember = async (content: string) => {
      const stored = await server.call("remember", { content, subject: "notes", workspace: "w" });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      return stored.data.memory_id as number;
    };
    const car = await remember("My car broke down on the highway, so I was late.");
    const cat = await remember("Our cat sleeps on the sofa all afternoon.");
    const rose = await remember("We planted roses and tulips in the garden in spring.");
    await waitEmbedded(server);
    assert.equal(ids(await server.call("find", { query: "automobile stopped working" }))[0], car);

    // Updated: the old text's vectors go, the new text's come.
    const updated = await server.call("update", {
      memory_id: car,
      new_content: "She swims in the lake every summer morning.",
    });
    assert.equal(updated.ok, true, JSON.stringify(updated.data));
    await waitEmbedded(server);
    assert.ok(
      !ids(await server.call("find", { query: "automobile stopped working" })).includes(car),
    );
    assert.equal(ids(await server.call("find", { query: "swimming" }))[0], car);

    const retired = await server.call("retire", {
      memory_id: cat,
      reason: "the cat moved out",
      authorized: true,
    }, "memory_govern");
    assert.equal(retired.ok, true, JSON.stringify(retired.data));
    assert.ok(!ids(await server.call("find", { query: "kitten napping" })).includes(cat));

    assert.ok(await vectorsOf(db, rose) > 0);
    const purged = await server.call(
      "purge",
      { memory_ids: [rose], reason: "stored by mistake", authorized: true },
      "memory_govern",
    );
    assert.equal(purged.ok, true, JSON.stringify(purged.data));
    assert.equal(await vectorsOf(db, rose), 0, "no vector of a purged memory is left");
    assert.ok(!ids(await server.call("find", { query: "flowers" })).includes(rose));
  } finally {
    await server.close();
    home.cleanup();
  }
});

onPgvector("a new embedding space rebuilds the index at its dimension", async (db) => {
  const home = homeOn(db);
  const fake = startFakeEmbeddingServer();
  try {
    const first = await startServer(home, { env: modelEnv(home) });
    let car: number;
    try {
      const stored = await first.call("remember", {
        content: "My car broke down on the highway, so I was late.",
        subject: "commute",
        workspace: "life",
      });
      car = stored.data.memory_id;
      await waitEmbedded(first);
      assert.match((await first.call("status")).data.backend.vector_path, /100 dimensions/);
    } finally {
      await first.close();
    }

    // Another model (the fake provider's 64 dimensions): the column and index follow.
    Deno.mkdirSync(`${home.dir}/config/mema`, { recursive: true });
    Deno.writeTextFileSync(
      `${home.dir}/config/mema/config.json`,
      JSON.stringify({ embedding_provider: { url: fake.url, model: "fake-embed" } }),
    );
    const second = await startServer(home);
    try {
      // The rebuild job switches the space, then the embedding job fills the new index.
      const status = await waitEmbedded(
        second,
        (status) => /64 dimensions/.test(status.data.backend.vector_path),
      );
      assert.match(status.data.backend.vector_path, /^pgvector .*64 dimensions/);
      const found = await second.call("find", { query: "automobile stopped working" });
      assert.equal(found.mode, "hybrid", found.warnings.join("; "));
      assert.equal(ids(found)[0], car);
      const column = await queryRows(
        db.url,
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
         WHERE attrelid = 'memory_row_vectors'::regclass AND attname = 'embedding_hnsw'`,
      );
      assert.equal(column[0]?.type, "vector(64)");
    } finally {
      await second.close();
    }
  } finally {
    await fake.stop();
    home.cleanup();
  }
});
