import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { retireMemory } from "../../src/govern/lifecycle.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openStore } from "../../src/store/mod.ts";
import { openConnection } from "../../src/store/sqlite_connection.ts";
import { DatabaseSync } from "node:sqlite";
import { TermCache } from "../../src/store/term_cache.ts";
import { TERM_CACHE_NEWEST_MAX, TERM_CACHE_POSTINGS_MAX } from "../../src/store/constants.ts";
import { indexQueryTerms } from "../../src/text/index_terms.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

/** A fresh context holding one memory about a kiln, with its id. */
async function openKilnContext(): Promise<{ t: TestContext; memoryId: number }> {
  const t = await openTestContext({ skipVec: true });
  const { memoryId } = await rememberMemory(t.ctx, {
    subject: "kiln",
    content: "The kiln fires at 1200 degrees",
    workspace: "pottery",
  });
  return { t, memoryId };
}

/** The contents `find` returns for `query`, in ranked order. */
async function contents(ctx: ServiceContext, query: string): Promise<string[]> {
  return (await findMemories(ctx, { query })).items.map((item) => item.memory.content);
}

Deno.test("find after a write sees it, though the same words were searched just before", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await rememberMemory(t.ctx, {
      subject: "ferry",
      content: "The harbour ferry leaves at nine",
      workspace: "travel",
    });
    // Asked twice: the second answer comes from the word-index answers kept meanwhile.
    assert.deepEqual(await contents(t.ctx, "harbour ferry"), ["The harbour ferry leaves at nine"]);
    assert.deepEqual(await contents(t.ctx, "harbour ferry"), ["The harbour ferry leaves at nine"]);
    assert.equal(
      await t.store.read(async () => (await t.store.tokenFrequencies(["harbour"])).get("harbour")),
      1,
    );

    // This process writes a second memory holding the same words.
    await rememberMemory(t.ctx, {
      subject: "ferry",
      content: "The harbour ferry is cancelled on Sundays",
      workspace: "travel",
    });
    assert.equal((await contents(t.ctx, "harbour ferry")).length, 2);
    assert.equal(
      await t.store.read(async () => (await t.store.tokenFrequencies(["harbour"])).get("harbour")),
      2,
    );

    // Another process (its own connection) writes a third, and retires the first.
    const other = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache`, skipVec: true });
    const otherCtx: ServiceContext = { ...t.ctx, store: other };
    try {
      await rememberMemory(otherCtx, {
        subject: "ferry",
        content: "A harbour ferry ticket costs four euros",
        workspace: "travel",
      });
      const first = (await findMemories(otherCtx, { query: "nine" })).items[0].memory.id;
      await retireMemory(otherCtx, {
        memoryId: first,
        reason: "timetable changed",
        authorized: true,
      });
    } finally {
      other.close();
    }
    assert.deepEqual((await contents(t.ctx, "harbour ferry")).sort(), [
      "A harbour ferry ticket costs four euros",
      "The harbour ferry is cancelled on Sundays",
    ]);
    assert.equal(await t.store.read(async () => await t.store.indexedMemories()), 3);
    assert.deepEqual(await contents(t.ctx, "ticket"), ["A harbour ferry ticket costs four euros"]);

    // A write that rolls back leaves no trace in what later reads are told.
    const second = (await findMemories(t.ctx, { query: "sundays" })).items[0].memory.id;
    await assert.rejects(
      t.store.write(async () => {
        await t.store.changeMemory(second, {
          content: "uncommitted harbour note",
          updatedAt: new Date().toISOString(),
        });
        assert.equal((await t.store.tokenFrequencies(["uncommitted"])).get("uncommitted"), 1);
        throw new Error("abort the transaction");
      }),
    );
    assert.equal(
      await t.store.read(async () =>
        (await t.store.tokenFrequencies(["uncommitted"])).get("uncommitted")
      ),
      0,
    );
    assert.deepEqual(await contents(t.ctx, "uncommitted"), []);
  } finally {
    t.cleanup();
  }
});

Deno.test("the term cache keeps its postings within its bound and starts over on a new stamp", () => {
  const cache = new TermCache();
  let reads = 0;
  const list = (size: number) => () => {
    reads++;
    return new Int32Array(size).map((_, i) => i + 1);
  };
  const half = Math.floor(TERM_CACHE_POSTINGS_MAX / 2);
  assert.equal(cache.postings("s1", "alpha", list(half)).length, half);
  assert.equal(cache.postings("s1", "alpha", list(half)).length, half);
  assert.equal(reads, 1);
  // A second half fits; a third makes the oldest leave.
  cache.postings("s1", "beta", list(half));
  cache.postings("s1", "gamma", list(half));
  assert.equal(reads, 3);
  cache.postings("s1", "gamma", list(half));
  cache.postings("s1", "beta", list(half));
  assert.equal(reads, 3);
  cache.postings("s1", "alpha", list(half));
  assert.equal(reads, 4);
  // A list larger than the whole bound is read each time, never kept.
  cache.postings("s1", "huge", list(TERM_CACHE_POSTINGS_MAX + 1));
  cache.postings("s1", "huge", list(TERM_CACHE_POSTINGS_MAX + 1));
  assert.equal(reads, 6);
  // A new stamp reads again; no stamp (inside a write) reads through and keeps nothing.
  cache.postings("s2", "alpha", list(half));
  assert.equal(reads, 7);
  cache.postings(undefined, "alpha", list(3));
  assert.equal(cache.postings(undefined, "alpha", list(3)).length, 3);
  assert.equal(reads, 9);
  assert.equal(cache.postings("s2", "alpha", list(3)).length, half);
  assert.equal(reads, 9);

  // Document counts: only the unknown tokens are read, once.
  const asked: string[][] = [];
  const load = (tokens: readonly string[]) => {
    asked.push([...tokens]);
    return new Map(tokens.map((token) => [token, token.length]));
  };
  assert.deepEqual(cache.frequencies("s2", ["ab", "abc"], load), new Map([["ab", 2], ["abc", 3]]));
  assert.deepEqual(
    cache.frequencies("s2", ["abc", "abcd"], load),
    new Map([["abc", 3], ["abcd", 4]]),
  );
  assert.deepEqual(asked, [["ab", "abc"], ["abcd"]]);
  cache.frequencies("s3", ["abc"], load);
  assert.deepEqual(asked.at(-1), ["abc"]);
});

Deno.test("a read's change stamp holds for its snapshot and moves with a write inside it or a commit after it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-stamp-" });
  try {
    const path = `${dir}/stamp.sqlite3`;
    const connection = openConnection(path, {});
    const other = openConnection(path, {});
    try {
      connection.db.exec("CREATE TABLE notes (text TEXT)");
      const count = () =>
        (connection.db.prepare("SELECT count(*) AS n FROM notes").get() as {
          n: number;
        }).n;
      await connection.read(() => {
        const stamp = connection.changeStamp();
        assert.notEqual(stamp, undefined);
        // Another connection commits: this snapshot does not see it, nor does its stamp move.
        other.db.exec("INSERT INTO notes VALUES ('from elsewhere')");
        assert.equal(count(), 0);
        assert.equal(connection.changeStamp(), stamp);
        return Promise.resolve();
      });
      let before: string | undefined;
      await connection.read(async () => {
        before = connection.changeStamp();
        assert.equal(count(), 1);
        // A write inside the read (it runs at once, in the open transaction) changes rows: the
        // stamp moves with it.
        await connection.write(() =>
          Promise.resolve(connection.db.exec("INSERT INTO notes VALUES ('nested')"))
        );
        assert.equal(count(), 2);
        assert.notEqual(connection.changeStamp(), before);
      });
      assert.notEqual(connection.changeStamp(), before);
    } finally {
      other.close();
      connection.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("records and word-index answers outlive commits that change no memory, not ones that do", async () => {
  const { t, memoryId } = await openKilnContext();
  try {
    const record = async () =>
      await t.store.read(async () => (await t.store.getMemories([memoryId])).get(memoryId)!);
    const first = await record();
    assert.deepEqual(await contents(t.ctx, "kiln"), ["The kiln fires at 1200 degrees"]);
    // A commit that touches no memory (a setting; background jobs write their own tables).
    await t.store.write(async () => await t.store.setMeta("unrelated_note", "x"));
    assert.equal(await record(), first, "the cached record object is handed out again");

    // Another connection changes the memory: the record is read again.
    const other = new DatabaseSync(t.dbPath);
    other.exec(
      `UPDATE memories SET content = 'The kiln fires at 1250 degrees' WHERE id = ${memoryId}`,
    );
    other.close();
    assert.notEqual(await record(), first);
    assert.equal((await record()).content, "The kiln fires at 1250 degrees");

    // A new memory holding the word, then its removal by another connection: find follows both.
    await rememberMemory(t.ctx, {
      subject: "glaze",
      content: "A kiln wash glaze",
      workspace: "pottery",
    });
    assert.equal((await contents(t.ctx, "kiln")).length, 2);
    const cleanup = new DatabaseSync(t.dbPath);
    cleanup.exec("UPDATE memories SET status = 'retired' WHERE subject = 'glaze'");
    cleanup.close();
    assert.deepEqual(await contents(t.ctx, "kiln"), ["The kiln fires at 1250 degrees"]);
  } finally {
    t.cleanup();
  }
});

Deno.test("without the change count (an older database), the memories stamp is the connection's stamp", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-stamp-" });
  try {
    const connection = openConnection(`${dir}/old.sqlite3`, {});
    try {
      connection.db.exec("CREATE TABLE memories (id INTEGER PRIMARY KEY)");
      await connection.read(() =>
        Promise.resolve(assert.equal(connection.memoriesStamp(), connection.changeStamp()))
      );
      connection.db.exec("INSERT INTO memories VALUES (1)");
      await connection.read(() =>
        Promise.resolve(assert.equal(connection.memoriesStamp(), connection.changeStamp()))
      );
    } finally {
      connection.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the term cache follows inserts from the stamp it holds, and only from it", () => {
  const cache = new TermCache();
  let reads = 0;
  const load = (ids: number[]) => () => {
    reads++;
    return new Int32Array(ids);
  };
  const counts = (tokens: readonly string[]) => new Map(tokens.map((token) => [token, 1]));
  cache.postings("memories:1", "kiln", load([1]));
  cache.postings("memories:1", "glaze", load([]));
  cache.frequencies("memories:1", ["kiln", "glaze"], counts);
  cache.followInserts("memories:1", "memories:3", [
    { id: 2, tokens: new Set(["kiln", "glaze"]) },
    { id: 3, tokens: new Set(["kiln"]) },
  ]);
  const none = () => {
    throw new Error("read again instead of carried");
  };
  assert.deepEqual([...cache.postings("memories:3", "kiln", none)], [1, 2, 3]);
  assert.deepEqual([...cache.postings("memories:3", "glaze", none)], [2]);
  assert.deepEqual(
    cache.frequencies("memories:3", ["kiln", "glaze"], none),
    new Map([["kiln", 3], ["glaze", 2]]),
  );
  assert.equal(reads, 2);
  // Lists handed out earlier keep what they held while later inserts add to the cache's.
  const handedOut = cache.postings("memories:3", "kiln", none);
  for (let id = 4; id <= 6; id++) {
    cache.followInserts(`memories:${id - 1}`, `memories:${id}`, [
      { id, tokens: new Set(["kiln"]) },
    ]);
  }
  assert.deepEqual([...handedOut], [1, 2, 3]);
  assert.deepEqual([...cache.postings("memories:6", "kiln", none)], [1, 2, 3, 4, 5, 6]);
  cache.followInserts("memories:6", "memories:7", [{ id: 7, tokens: new Set(["kiln"]) }]);
  // From a stamp it does not hold, nothing is carried: the next lookup starts over.
  cache.followInserts("memories:5", "memories:8", [{ id: 8, tokens: new Set(["kiln"]) }]);
  assert.deepEqual([...cache.postings("memories:8", "kiln", load([1, 2, 3, 8]))], [1, 2, 3, 8]);
  assert.equal(reads, 3);
  // A list grown past the bound is dropped, not kept over it.
  cache.postings(
    "memories:8",
    "wide",
    load(Array.from({ length: TERM_CACHE_POSTINGS_MAX }, (_, i) => i)),
  );
  cache.followInserts("memories:8", "memories:9", [{ id: 9, tokens: new Set(["wide"]) }]);
  assert.equal(cache.postings("memories:9", "wide", load([9])).length, 1);
  assert.equal(reads, 5);
});

Deno.test("the term cache keeps capped reads per word and count, within their bound, until the word gets a new holder", () => {
  const cache = new TermCache();
  let reads = 0;
  const newest = (size: number) => () => {
    reads++;
    return new Int32Array(size).map((_, i) => 1_000 - i);
  };
  const none = () => {
    throw new Error("read again instead of kept");
  };
  assert.equal(cache.newestPostings("s1", "kiln", 250, newest(250)).length, 250);
  assert.equal(cache.newestPostings("s1", "kiln", 250, none).length, 250);
  // Another count of the same word is another read.
  assert.equal(cache.newestPostings("s1", "kiln", 100, newest(100)).length, 100);
  assert.equal(reads, 2);
  // A new memory holding the word is its newest holder: both counts are read again; a word it
  // does not hold keeps its list.
  cache.newestPostings("s1", "glaze", 250, newest(250));
  cache.followInserts("s1", "s2", [{ id: 1_001, tokens: new Set(["kiln"]) }]);
  cache.newestPostings("s2", "kiln", 250, newest(250));
  cache.newestPostings("s2", "kiln", 100, newest(100));
  cache.newestPostings("s2", "glaze", 250, none);
  assert.equal(reads, 5);
  // Past the bound the least recently read word leaves first.
  const half = Math.floor(TERM_CACHE_NEWEST_MAX / 2);
  cache.newestPostings("s2", "wide", half, newest(half));
  cache.newestPostings("s2", "kiln", 250, none);
  cache.newestPostings("s2", "wider", half, newest(half));
  assert.equal(reads, 7);
  cache.newestPostings("s2", "kiln", 250, none);
  cache.newestPostings("s2", "wider", half, none);
  assert.equal(cache.newestPostings("s2", "wide", half, newest(half)).length, half);
  assert.equal(reads, 8);
  // A new stamp empties it; no stamp reads through.
  cache.newestPostings("s3", "kiln", 250, newest(250));
  cache.newestPostings(undefined, "kiln", 250, newest(250));
  assert.equal(reads, 10);
});

Deno.test("a capped read of a word's newest holders sees a memory written after it", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids: number[] = [];
    for (const when of ["Monday", "Tuesday", "Wednesday"]) {
      ids.push(
        (await rememberMemory(t.ctx, {
          subject: "kiln",
          content: `It was fired on ${when}`,
          workspace: "pottery",
        }))
          .memoryId,
      );
    }
    const [token] = indexQueryTerms("kiln");
    const newestTwo = async () =>
      (await t.store.read(async () =>
        await t.store.weightedTermHits([{ token, weight: 1, newest: 2 }], {
          statuses: ["active"],
        }, 10)
      )).map((hit) => hit.id).sort((a, b) => a - b);
    assert.deepEqual(await newestTwo(), ids.slice(1));
    assert.deepEqual(await newestTwo(), ids.slice(1));
    ids.push(
      (await rememberMemory(t.ctx, {
        subject: "kiln",
        content: "It was fired on Thursday",
        workspace: "pottery",
      }))
        .memoryId,
    );
    assert.deepEqual(await newestTwo(), ids.slice(2));
  } finally {
    t.cleanup();
  }
});

Deno.test("a remember carries this process's caches forward, exactly as a fresh reader sees the library", async () => {
  const t = await openTestContext({ skipVec: true });
  // Another process's view: its own caches, so it reads what is committed.
  const oracle = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache`, skipVec: true });
  const oracleCtx: ServiceContext = { ...t.ctx, store: oracle };
  const words = ["kiln", "glaze", "clay", "wheel", "studio", "pottery"];
  const ids = async (ctx: ServiceContext, query: string) =>
    (await findMemories(ctx, { query, limit: 50 })).items.map((item) => item.memory.id).sort((
      a,
      b,
    ) => a - b);
  const check = async (step: string) => {
    const mine = await t.store.read(async () => await t.store.tokenFrequencies(words));
    const theirs = await oracle.read(async () => await oracle.tokenFrequencies(words));
    assert.deepEqual(mine, theirs, `document counts after ${step}`);
    assert.equal(
      await t.store.read(async () => await t.store.indexedMemories()),
      await oracle.read(async () => await oracle.indexedMemories()),
    );
    for (const word of words) {
      assert.deepEqual(await ids(t.ctx, word), await ids(oracleCtx, word), step);
    }
  };
  try {
    const first = await rememberMemory(t.ctx, {
      subject: "kiln",
      content: "The kiln in the studio fires clay at night",
      workspace: "pottery",
    });
    await check("the first remember");
    const record = async () =>
      await t.store.read(async () =>
        (await t.store.getMemories([first.memoryId])).get(first.memoryId)
      );
    const cached = await record();
    // Seeded so a failure replays: remembers sharing the words, with a retire now and then.
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let step = 0; step < 24; step++) {
      const picked = words.filter(() => next() < 0.4);
      await rememberMemory(t.ctx, {
        subject: `note ${step}`,
        content: `Step ${step} of the course: ${picked.join(" and ") || "nothing shared"}.`,
        workspace: "pottery",
      });
      if (step === 5) {
        assert.equal(
          await record(),
          cached,
          "a record read before the remembers is handed out again",
        );
      }
      if (step % 7 === 6) {
        const victim = (await ids(t.ctx, "course"))[0];
        await retireMemory(t.ctx, { memoryId: victim, reason: "superseded", authorized: true });
      }
      await check(`step ${step}`);
    }
  } finally {
    oracle.close();
    t.cleanup();
  }
});

Deno.test("a write that also changes another memory, or undoes a unit, leaves no stale answer", async () => {
  const { t, memoryId } = await openKilnContext();
  try {
    const record = (await t.store.read(async () => await t.store.getMemory(memoryId)))!;
    const fields = (content: string) => {
      const now = new Date().toISOString();
      return {
        ...record,
        subject: "glaze",
        content,
        contentSha: `sha-${content}`,
        sourceRef: null,
        follows: null,
        createdAt: now,
        updatedAt: now,
        ingestTime: now,
      };
    };
    // Warm the answers for every word the transactions below touch.
    for (const query of ["kiln", "celadon", "shino"]) await contents(t.ctx, query);
    await t.store.write(async () => {
      await t.store.insertMemory(fields("A celadon glaze"));
      await t.store.changeMemory(memoryId, {
        content: "The shino kiln fires at 1250 degrees",
        updatedAt: new Date().toISOString(),
      });
    });
    assert.deepEqual(await contents(t.ctx, "shino"), ["The shino kiln fires at 1250 degrees"]);
    assert.deepEqual(await contents(t.ctx, "celadon"), ["A celadon glaze"]);
    assert.equal(
      (await t.store.read(async () => await t.store.getMemory(memoryId)))!.content.includes(
        "shino",
      ),
      true,
    );
    assert.equal(
      (await t.store.read(async () => (await t.store.getMemories([memoryId])).get(memoryId)))!
        .content,
      "The shino kiln fires at 1250 degrees",
    );

    // A unit rolled back to its savepoint: its memory is not counted, the one kept is.
    for (const query of ["tenmoku", "ash"]) await contents(t.ctx, query);
    await t.store.write(async () => {
      await t.store.insertMemory(fields("An ash glaze"));
      await assert.rejects(async () =>
        await t.store.withinUnit(async () => {
          await t.store.insertMemory(fields("A tenmoku glaze"));
          throw new Error("this unit is refused");
        })
      );
    });
    assert.deepEqual(await contents(t.ctx, "tenmoku"), []);
    assert.deepEqual(await contents(t.ctx, "ash"), ["An ash glaze"]);
    assert.deepEqual(
      await t.store.read(async () => await t.store.tokenFrequencies(["tenmoku", "ash"])),
      new Map([["tenmoku", 0], ["ash", 1]]),
    );

    // A unit rolled back and a change to another memory: as many counted changes as inserts
    // tried, yet the change must be seen.
    for (const query of ["raku", "soda", "shino"]) await contents(t.ctx, query);
    await t.store.write(async () => {
      await assert.rejects(async () =>
        await t.store.withinUnit(async () => {
          await t.store.insertMemory(fields("A raku glaze"));
          throw new Error("this unit is refused");
        })
      );
      await t.store.changeMemory(memoryId, {
        content: "The soda kiln fires at 1300 degrees",
        updatedAt: new Date().toISOString(),
      });
    });
    assert.deepEqual(await contents(t.ctx, "raku"), []);
    assert.deepEqual(await contents(t.ctx, "shino"), []);
    assert.deepEqual(await contents(t.ctx, "soda"), ["The soda kiln fires at 1300 degrees"]);
  } finally {
    t.cleanup();
  }
});
