/**
 * The store contract for the word index, run on every backend (tests/store/backends.ts), and one
 * side-by-side check: the same library on SQLite (FTS5) and PostgreSQL (tsvector + GIN) ranks
 * every query's full-text hits in the same order with the same BM25 relevance.
 */
import assert from "node:assert/strict";
import type { NewMemory, RecallFilters } from "../../src/store/mod.ts";
import { indexTokens } from "../../src/text/index_terms.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { openPostgresStore } from "../../src/store/postgres/mod.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { BACKENDS, backendTest, type RoomsStore, testPostgresUrl } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const AT = "2026-03-01T00:00:00.000Z";
const ACTIVE: RecallFilters = { statuses: ["active"] };
const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

function memory(subject: string, content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return testMemory(content, { subject, contentSha: `${subject}|${content}`, ...overrides });
}

/** A library whose term counts, lengths and columns vary, so BM25's every part matters. */
function corpus(): NewMemory[] {
  const words = ["postgres", "deploy", "cache", "rollback", "paint", "garden", "train", "tokyo"];
  const out: NewMemory[] = [];
  for (let i = 0; i < 40; i++) {
    const a = words[i % words.length];
    const b = words[(i * 3 + 1) % words.length];
    const c = words[(i * 5 + 2) % words.length];
    const filler = "the quick note about many things ".repeat(i % 4);
    out.push(memory(
      i % 3 === 0 ? `${a} plan` : `note ${i}`,
      `${filler}${b} ${c} ${i % 2 === 0 ? b : ""} 北京大学 ${i % 5 === 0 ? "部署" : ""}`,
      {
        contentSha: `corpus-${i}`,
        tags: i % 4 === 0 ? [c, "todo"] : [a],
        workspace: i % 2 === 0 ? "A" : "B",
        workspaceCanonical: i % 2 === 0 ? "a" : "b",
        ingestTime: `2026-03-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00.000Z`,
      },
    ));
  }
  return out;
}

async function fill(store: RoomsStore): Promise<number[]> {
  return await store.write(async (tx) => {
    const ids: number[] = [];
    for (const m of corpus()) ids.push(await tx.insertMemory(m));
    return ids;
  });
}

Deno.test({
  name: `SQLite and PostgreSQL rank full-text hits alike, BM25 for BM25${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const opened = await Promise.all(BACKENDS.map((backend) => backend.open()));
    try {
      const [sqlite, postgres] = opened.map((o) => o.store);
      await fill(sqlite);
      await fill(postgres);
      const queries: [string, RecallFilters][] = [
        ["postgres deploy", ACTIVE],
        ["cache rollback garden", ACTIVE],
        ["paint", { ...ACTIVE, workspaces: ["a"] }],
        ["train tokyo postgres", { ...ACTIVE, tagsAll: ["todo"] }],
        ["北京大学的部署", ACTIVE],
        ["plan note", { ...ACTIVE, excludeWorkspaces: ["b"] }],
        ["nothing matches this", ACTIVE],
      ];
      for (const [query, filters] of queries) {
        const tokens = indexTokens(query);
        const [left, right] = await Promise.all(
          [sqlite, postgres].map((store) => store.termHits(tokens, filters, 10)),
        );
        assert.equal(right.length, left.length, query);
        assert.equal(left.length > 0, query !== "nothing matches this", query);
        for (let i = 0; i < left.length; i++) {
          assert.ok(
            Math.abs(left[i].relevance - right[i].relevance) < 1e-9,
            `${query}: ${JSON.stringify(left)} vs ${JSON.stringify(right)}`,
          );
          // Equal scores may come in either order; unequal ones never.
          if (left[i].id !== right[i].id) {
            const other = right.find((hit) => hit.id === left[i].id);
            assert.ok(other && Math.abs(other.relevance - left[i].relevance) < 1e-9, query);
          }
        }
        const weighted = tokens.map((token, index) => ({ token, weight: index + 1 }));
        const [wl, wr] = await Promise.all(
          [sqlite, postgres].map((store) => store.weightedTermHits(weighted, filters, 10)),
        );
        assert.deepEqual(wr, wl, query);
      }
      const probe = ["postgr", "deploy", "北京", "", "zzz", "plan"];
      assert.deepEqual(
        await postgres.tokenFrequencies(probe),
        await sqlite.tokenFrequencies(probe),
      );
      assert.deepEqual(
        await postgres.vocabularyByPrefix("p", { min: 4, max: 8 }, 50),
        await sqlite.vocabularyByPrefix("p", { min: 4, max: 8 }, 50),
      );
    } finally {
      await Promise.all(opened.map((o) => o.close()));
    }
  },
});

Deno.test({
  name: `postgres: memories indexed before the weighted counts were kept rank as the others${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const store = await openPostgresStore(scratch.url, { poolMax: 2 });
    const sql = await connectPostgres(scratch.url, { max: 1 });
    try {
      await fill(store);
      const queries = ["postgres deploy", "cache rollback garden", "train tokyo postgres deploy"];
      const ranked = async () =>
        await Promise.all(queries.map((query) => store.termHits(indexTokens(query), ACTIVE, 40)));
      const before = await ranked();
      assert.ok(before.every((hits) => hits.length > 0));
      // What migration 10 leaves on a database indexed before it: no counts on the old rows.
      await sql`UPDATE memory_terms SET counts = NULL WHERE memory_id % 2 = 0`;
      assert.deepEqual(await ranked(), before);
    } finally {
      await sql.end({ timeout: 1 });
      await store.close();
      await scratch.drop();
    }
  },
});

backendTest(
  "a capped word reads only its newest holders, best first by the words held",
  async (store) => {
    const ids = await fill(store);
    const [postgr] = indexTokens("postgres");
    const [deploy] = indexTokens("deploy");
    const holders = (await store.weightedTermHits([{ token: postgr, weight: 1 }], ACTIVE, 100))
      .map((hit) => hit.id).sort((a, b) => b - a);
    assert.ok(holders.length > 6, `${holders.length} holders`);
    const capped = await store.weightedTermHits(
      [{ token: postgr, weight: 1, newest: 3 }],
      ACTIVE,
      100,
    );
    assert.deepEqual(capped.map((hit) => hit.id).sort((a, b) => b - a), holders.slice(0, 3));
    // Two capped words: a memory among the newest holders of both comes before the others.
    const both = await store.weightedTermHits(
      [
        { token: postgr, weight: 1, newest: 6 },
        { token: deploy, weight: 1, newest: 6 },
      ],
      ACTIVE,
      100,
    );
    assert.ok(both.length <= 12);
    const top = both.filter((hit) => hit.relevance === both[0].relevance).map((hit) => hit.id);
    const newestDeploy = (await store.weightedTermHits([{ token: deploy, weight: 1 }], ACTIVE, 100))
      .map((hit) => hit.id).sort((a, b) => b - a).slice(0, 6);
    for (const id of top) {
      assert.ok(holders.slice(0, 6).includes(id) && newestDeploy.includes(id), `${id}`);
    }
    // A capped word beside one read whole: the newest holders of one, every holder of the other.
    const mixed = await store.weightedTermHits(
      [{ token: postgr, weight: 1, newest: 3 }, { token: deploy, weight: 1 }],
      ACTIVE,
      100,
    );
    const everyDeploy = (await store.weightedTermHits([{ token: deploy, weight: 1 }], ACTIVE, 100))
      .map((hit) => hit.id);
    assert.deepEqual(
      mixed.map((hit) => hit.id).sort((a, b) => a - b),
      [...new Set([...holders.slice(0, 3), ...everyDeploy])].sort((a, b) => a - b),
    );
    assert.ok(ids.length === 40);
  },
);

Deno.test({
  name:
    `postgres: inside a read unit the index's counts hold its snapshot while another server writes${
      SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
    }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { store, close } = await BACKENDS.find((backend) => backend.name === "postgres")!.open();
    try {
      await fill(store);
      const [zebra] = indexTokens("zebra");
      // Another request (as another server would), started from inside the unit and awaited
      // there: PostgreSQL does not make it wait for the read unit.
      let start!: () => void;
      const other = new Promise<void>((resolve) => start = resolve)
        .then(() => store.write((tx) => tx.insertMemory(memory("zebra", "a zebra crossing"))));
      const inside = await store.read(async (r) => {
        const before = await r.tokenFrequencies([zebra]);
        start();
        await other;
        return {
          before: before.get(zebra),
          after: (await r.tokenFrequencies([zebra])).get(zebra),
          documents: await r.indexedMemories(),
          hits: (await r.termHits([zebra], ACTIVE, 5)).length,
        };
      });
      assert.deepEqual(inside, { before: 0, after: 0, documents: 40, hits: 0 });
      // The next unit sees the write.
      const next = await store.read(async (r) => ({
        zebra: (await r.tokenFrequencies([zebra])).get(zebra),
        documents: await r.indexedMemories(),
      }));
      assert.deepEqual(next, { zebra: 1, documents: 41 });
    } finally {
      await close();
    }
  },
});

backendTest("the index follows writes: changes, moves and the counts", async (store) => {
  const ids = await fill(store);
  assert.equal(await store.indexedMemories(), 40);
  const before = await store.tokenFrequencies(["postgr", "zebra", ""]);
  assert.equal(before.get(""), 40);
  assert.equal(before.get("zebra"), 0);
  const zebra = indexTokens("zebra")[0];
  await store.write((tx) =>
    tx.changeMemory(ids[0], {
      subject: "zebra crossing",
      content: "zebras everywhere",
      updatedAt: AT,
    })
  );
  assert.equal((await store.tokenFrequencies([zebra])).get(zebra), 1);
  const hits = await store.termHits([zebra], ACTIVE, 5);
  assert.deepEqual(hits.map((hit) => hit.id), [ids[0]]);
  assert.ok(hits[0].relevance > 0);
  // The memory's old words no longer find it.
  const planHits = await store.termHits(indexTokens("postgres plan"), ACTIVE, 50);
  assert.ok(!planHits.some((hit) => hit.id === ids[0]));
  // Moved to another workspace, it is found there and not in the old one.
  const moved = (await store.getMemory(ids[0]))!;
  await store.write((tx) => tx.moveMemory(moved, { canonical: "c", display: "C" }, AT));
  assert.deepEqual((await store.termHits([zebra], { ...ACTIVE, workspaces: ["c"] }, 5)).length, 1);
  assert.deepEqual(await store.termHits([zebra], { ...ACTIVE, workspaces: ["a"] }, 5), []);
  // A unit rolled back takes its index rows and counts with it.
  await assert.rejects(store.write(async (tx) => {
    await tx.insertMemory(memory("quokka", "quokka"));
    throw new Error("rolled back");
  }));
  assert.equal(await store.indexedMemories(), 40);
  assert.equal(
    (await store.tokenFrequencies(indexTokens("quokka"))).get(indexTokens("quokka")[0]),
    0,
  );
});

backendTest("the start-up check counts the index a slice of ids at a time", async (store) => {
  const empty = await store.read((tx) => tx.wordIndexSlice(0, 7));
  assert.deepEqual(empty, { throughId: 0, last: true, memories: 0, indexed: 0 });
  const ids = await fill(store);
  const slices = [];
  for (let afterId = 0;;) {
    const slice = await store.read((tx) => tx.wordIndexSlice(afterId, 7));
    slices.push(slice);
    assert.equal(slice.indexed, slice.memories, `ids ${afterId + 1}–${slice.throughId}`);
    if (slice.last) break;
    afterId = slice.throughId;
  }
  assert.equal(slices.reduce((sum, slice) => sum + slice.memories, 0), 40);
  assert.equal(slices.at(-1)!.throughId, Math.max(...ids));
  assert.ok(slices.slice(0, -1).every((slice) => slice.memories === 7));
});

backendTest("substring matches, newest first; linked todos by shared tags", async (store) => {
  const ids = await store.write(async (tx) => {
    const older = await tx.insertMemory(
      memory("Deploy notes", "ran pg_upgrade on db-7", { tags: ["todo", "db"], ingestTime: AT }),
    );
    const newer = await tx.insertMemory(memory("Upgrade", "PG_UPGRADE 50% done", {
      tags: ["todo", "db", "ops"],
      ingestTime: "2026-03-02T00:00:00.000Z",
    }));
    const other = await tx.insertMemory(memory("Garden", "tomatoes", { tags: ["garden"] }));
    return { older, newer, other };
  });
  assert.deepEqual(await store.likeHits(["pg_upgrade"], ACTIVE, 10), [ids.newer, ids.older]);
  assert.deepEqual(await store.likeHits(["50%"], ACTIVE, 10), [ids.newer]);
  assert.deepEqual(await store.likeHits(["tomato", "nothing"], ACTIVE, 10), [ids.other]);
  assert.deepEqual(await store.likeHits(["5_%"], ACTIVE, 10), []);
  const todos = await store.linkedTodos({
    tags: ["db", "ops"],
    exclude: [ids.other],
    todoTag: "todo",
    limit: 5,
  });
  assert.deepEqual(todos, [{ id: ids.newer, shared: 2 }, { id: ids.older, shared: 1 }]);
  assert.deepEqual(
    await store.linkedTodos({ tags: ["db"], exclude: [ids.newer], todoTag: "todo", limit: 5 }),
    [{ id: ids.older, shared: 1 }],
  );
  assert.deepEqual(
    await store.linkedTodos({ tags: ["garden"], exclude: [], todoTag: "todo", limit: 5 }),
    [],
  );
});

backendTest("every word of a memory past a megabyte of distinct words finds it", async (store) => {
  // ~1.4 MB of distinct words (the content limit is 2 MiB): PostgreSQL's tsvector holds at most
  // 1 MiB of lexemes, and array_to_tsvector wraps its offsets past that instead of refusing.
  const words = Array.from(
    { length: 120_000 },
    (_, i) => `w${i.toString(36)}q${(i * 7919).toString(36)}`,
  );
  const [big, small] = await store.write(async (tx) => [
    await tx.insertMemory(memory("big", words.join(" "), { contentSha: "big" })),
    await tx.insertMemory(memory("small", "a short note about wq", { contentSha: "small" })),
  ]);
  const missed: string[] = [];
  for (let i = 0; i < words.length; i += 3989) {
    const hits = await store.termHits(indexTokens(words[i]), ACTIVE, 5);
    if (hits.map((hit) => hit.id).join() !== String(big)) missed.push(words[i]);
  }
  assert.deepEqual(
    missed,
    [],
    `${missed.length} of ${Math.ceil(words.length / 3989)} words missed`,
  );
  const last = indexTokens(words[words.length - 1]);
  const weighted = await store.weightedTermHits([{ token: last[0], weight: 1 }], ACTIVE, 5);
  assert.deepEqual(weighted.map((hit) => hit.id), [big]);
  const other = await store.weightedTermHits([{ token: "wq", weight: 1 }], ACTIVE, 5);
  assert.deepEqual(other.map((hit) => hit.id), [small], "the big memory holds no such word");
  // A word of neither memory finds neither, and the other memory is found as before.
  assert.deepEqual(await store.termHits(indexTokens("zzzunknown"), ACTIVE, 5), []);
  const shortHits = await store.termHits(indexTokens("short note"), ACTIVE, 5);
  assert.deepEqual(shortHits.map((hit) => hit.id), [small]);
  // A rebuilt index (the bulk path) holds the big memory's every word too.
  await store.write((tx) => tx.rebuildWordIndex());
  const rebuilt = await store.termHits(last, ACTIVE, 5);
  assert.deepEqual(rebuilt.map((hit) => hit.id), [big]);
  assert.deepEqual(
    (await store.weightedTermHits([{ token: "wq", weight: 1 }], ACTIVE, 5)).map((hit) => hit.id),
    [small],
  );
});

backendTest("a rebuilt index counts and ranks as the one its writes kept", async (store) => {
  await fill(store);
  const tokens = [
    ...new Set(
      corpus().flatMap((m) => indexTokens(`${m.subject} ${m.tags.join(" ")} ${m.content}`)),
    ),
    ...indexTokens("zebra"),
    "",
  ];
  const answers = async () => ({
    documents: await store.indexedMemories(),
    counts: [...(await store.tokenFrequencies(tokens))].sort(),
    ranked: await store.termHits(indexTokens("postgres deploy zebra tokyo"), ACTIVE, 50),
  });
  const kept = await answers();
  const indexed = await store.write((tx) => tx.rebuildWordIndex());
  assert.equal(indexed, 40);
  assert.deepEqual(await answers(), kept);
});

/**
 * What `weightedTermHits` must answer, from an independent read: each word's holders as
 * `termHits` finds them (FTS5 on SQLite, the GIN index on PostgreSQL), of any status, cut to the
 * newest `newest`, then filtered, summed and ranked by weight, newest first among equals.
 */
async function referenceHits(
  store: RoomsStore,
  tokens: { token: string; weight: number; newest?: number }[],
  filters: RecallFilters,
  limit: number,
): Promise<{ id: number; relevance: number }[]> {
  const everyStatus: RecallFilters = { statuses: ["active", "superseded", "pending", "retired"] };
  const passing = new Set(
    (await store.termHits(tokens.map((t) => t.token), filters, 1_000)).map((hit) => hit.id),
  );
  const weights = new Map<number, number>();
  for (const { token, weight, newest } of tokens) {
    const holders = (await store.termHits([token], everyStatus, 1_000)).map((hit) => hit.id)
      .sort((a, b) => b - a);
    for (const id of newest === undefined ? holders : holders.slice(0, newest)) {
      if (passing.has(id)) weights.set(id, (weights.get(id) ?? 0) + weight);
    }
  }
  return [...weights].map(([id, relevance]) => ({ id, relevance }))
    .sort((a, b) => b.relevance - a.relevance || b.id - a.id).slice(0, limit);
}

backendTest(
  "capped and whole word reads equal an uncapped reference through every kind of write",
  async (store) => {
    const ids = await fill(store);
    // Memories past the corpus, some in bulk, so the common words' newest holders change.
    const bulk = await store.write((tx) =>
      tx.insertMemories(
        Array.from({ length: 12 }, (_, i) =>
          memory(`bulk ${i}`, `postgres ${i % 2 === 0 ? "deploy" : "garden"} batch`, {
            contentSha: `bulk-${i}`,
          })),
      )
    );
    const [postgr, deploy, garden, cache, batch] = indexTokens(
      "postgres deploy garden cache batch",
    );
    const lookups: [{ token: string; weight: number; newest?: number }[], RecallFilters][] = [
      [[{ token: postgr, weight: 2, newest: 5 }], ACTIVE],
      [
        [{ token: postgr, weight: 2, newest: 5 }, { token: deploy, weight: 1.5, newest: 4 }],
        ACTIVE,
      ],
      [[{ token: garden, weight: 1, newest: 3 }, { token: cache, weight: 0.5 }], ACTIVE],
      [[{ token: batch, weight: 1 }, { token: deploy, weight: 3, newest: 7 }], {
        ...ACTIVE,
        workspaces: ["default", "a"],
      }],
    ];
    const compare = async (when: string) => {
      for (const [tokens, filters] of lookups) {
        for (const limit of [3, 100]) {
          assert.deepEqual(
            await store.weightedTermHits(tokens, filters, limit),
            await referenceHits(store, tokens, filters, limit),
            `${when}: ${JSON.stringify(tokens)} limit ${limit}`,
          );
        }
      }
    };
    await compare("written");
    // A newest holder changed away from the word, another retired (still a holder, filtered
    // out), one moved, one purged: each read's newest holders follow.
    await store.write((tx) =>
      tx.changeMemory(bulk[11], { subject: "renamed", content: "nothing shared", updatedAt: AT })
    );
    await store.write((tx) =>
      tx.setStatus(bulk[10], { status: "retired", supersededBy: null, now: AT })
    );
    const moved = (await store.getMemory(bulk[9]))!;
    await store.write((tx) => tx.moveMemory(moved, { canonical: "a", display: "A" }, AT));
    const purged = (await store.getMemory(bulk[8]))!;
    await store.write((tx) => tx.purgeMemoryContent(purged, AT));
    await compare("after a change, a retire, a move and a purge");
    assert.ok(
      !(await store.weightedTermHits([{ token: postgr, weight: 1, newest: 3 }], ACTIVE, 9))
        .some((hit) => hit.id === bulk[8] || hit.id === bulk[11]),
    );
    await store.write((tx) => tx.rebuildWordIndex());
    await compare("after a rebuild");
    assert.equal(ids.length, 40);
  },
);

Deno.test({
  name: `postgres: a library indexed before the postings reads its words from them once migrated${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const sql = await connectPostgres(scratch.url, { max: 1 });
    try {
      const written = await openPostgresStore(scratch.url, { poolMax: 2 });
      await fill(written);
      await written.close();
      // What a database at migration 11 holds: the index rows, no postings, no triggers (the
      // later migrations are rewound too: they run again when it is opened).
      await sql.unsafe(`DROP TABLE memory_postings;
        DROP TRIGGER memory_postings_added ON memory_terms;
        DROP TRIGGER memory_postings_removed ON memory_terms;
        DROP TRIGGER memory_postings_changed ON memory_terms;
        DROP FUNCTION memory_postings_added, memory_postings_removed, memory_postings_changed;
        DELETE FROM schema_version WHERE version >= 12;`).simple();
      const store = await openPostgresStore(scratch.url, { poolMax: 2 });
      try {
        assert.ok(store.schema.applied.includes(12));
        const [postgr, deploy, cache] = indexTokens("postgres deploy cache");
        const tokens = [
          { token: postgr, weight: 2, newest: 4 },
          { token: deploy, weight: 1, newest: 6 },
          { token: cache, weight: 0.5 },
        ];
        const found = await store.weightedTermHits(tokens, ACTIVE, 100);
        assert.ok(found.length > 6);
        assert.deepEqual(found, await referenceHits(store, tokens, ACTIVE, 100));
        // The triggers keep the filled postings: a new holder is the newest one.
        const added = await store.write((tx) => tx.insertMemory(memory("late", "postgres late")));
        const newest = await store.weightedTermHits(
          [{ token: postgr, weight: 1, newest: 1 }],
          ACTIVE,
          5,
        );
        assert.deepEqual(newest.map((hit) => hit.id), [added]);
      } finally {
        await store.close();
      }
    } finally {
      await sql.end({ timeout: 1 });
      await scratch.drop();
    }
  },
});
