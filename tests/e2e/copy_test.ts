/**
 * `mema copy` end to end: the real CLI copying a library a real server wrote, from its SQLite
 * file into a PostgreSQL scratch database and back into a new file, checked by the fingerprints
 * it prints, by the source file's hash, and by `find` through servers on each copy; a target that
 * holds memories refused; a copy killed half way leaving a marked target that servers and commands
 * refuse until the copy is run again.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createScratchDatabase, type ScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";
import { openStore } from "../../src/store/mod.ts";
import {
  makeTempHome,
  runCli,
  startServer,
  type TempHome,
  waitForVectorState,
} from "../helpers/server.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** Runs `fn` with a temp home and `count` fresh databases; drops them afterwards. */
function copyTest(
  name: string,
  count: number,
  fn: (home: TempHome, databases: ScratchDatabase[]) => Promise<void>,
): void {
  Deno.test({
    name: `copy e2e: ${name}${SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""}`,
    ignore: SKIP_POSTGRES,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const home = makeTempHome();
      const databases: ScratchDatabase[] = [];
      try {
        for (let i = 0; i < count; i++) {
          databases.push(await createScratchDatabase(testPostgresUrl()));
        }
        await fn(home, databases);
      } finally {
        home.cleanup();
        for (const database of databases) await database.drop();
      }
    },
  });
}

/** The SHA-256 of a SQLite file with its write-ahead log, to show it did not change. */
function fileHash(path: string): string {
  const hash = createHash("sha256");
  for (const suffix of ["", "-wal"]) {
    try {
      hash.update(Deno.readFileSync(`${path}${suffix}`));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return hash.digest("hex");
}

/** Writes a small library through a real server on `home`'s SQLite file. */
async function writeLibrary(home: TempHome): Promise<void> {
  const server = await startServer(home);
  try {
    for (
      const [content, subject] of [
        ["The staging cluster runs in eu-west-3.", "staging region"],
        ["Deploys go out on Tuesdays after the standup.", "deploy day"],
        ["测试数据库每天凌晨备份。", "备份"],
      ]
    ) {
      const stored = await server.call("remember", { content, subject, workspace: "team" });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
    }
    const updated = await server.call("update", {
      memory_id: 1,
      new_content: "The staging cluster runs in eu-central-1.",
      expected_version: 1,
    });
    assert.equal(updated.ok, true, JSON.stringify(updated.data));
  } finally {
    await server.close();
  }
}

/** What `find` answers on a database (`env` points the server at it). */
async function findOn(home: TempHome, env: Record<string, string>, query: string) {
  const server = await startServer(home, { env });
  try {
    const found = await server.call("find", { query, workspace: "team" });
    assert.equal(found.ok, true, JSON.stringify(found.data));
    return found.data.results.map((hit: { memory_id: number; content: string }) => [
      hit.memory_id,
      hit.content,
    ]);
  } finally {
    await server.close();
  }
}

function passwordOf(url: string): string {
  return decodeURIComponent(new URL(url).password);
}

copyTest("SQLite -> PostgreSQL -> SQLite keeps every fact", 1, async (home, [database]) => {
  await writeLibrary(home);
  const before = fileHash(home.dbPath);
  const there = await runCli(home, ["copy", home.dbPath, database.url, "--json"]);
  assert.equal(there.code, 0, there.stderr + there.stdout);
  const report = JSON.parse(there.stdout);
  assert.equal(report.ok, true);
  assert.equal(report.copied.memories, 3);
  assert.equal(report.copied.memory_history, 1);
  assert.deepEqual(report.fingerprints.source, report.fingerprints.target);
  assert.equal(report.fingerprints.source.memories.count, 3);
  assert.match(report.target, /^postgres(ql)?:\/\/[^:]+:\*\*\*@/);
  assert.equal(fileHash(home.dbPath), before, "the source file is unchanged");

  const back = `${home.dir}/back.sqlite3`;
  const again = await runCli(home, ["copy", database.url, back]);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.match(again.stdout, /memories: 3 rows, sha256 (\w+) \(source\) = \1 \(target\)/);
  assert.ok(again.stdout.includes(report.fingerprints.source.memories.sha256));
  assert.ok(again.stdout.includes(report.fingerprints.source.history.sha256));
  for (const text of [there.stdout, there.stderr, again.stdout, again.stderr]) {
    assert.ok(!text.includes(passwordOf(database.url)), `the password shows in: ${text}`);
  }

  for (const query of ["staging cluster region", "备份", "deploy Tuesdays"]) {
    const original = await findOn(home, {}, query);
    assert.ok(original.length > 0, query);
    assert.deepEqual(await findOn(home, { MEMA_DB_URL: database.url }, query), original);
    assert.deepEqual(await findOn(home, { MEMA_DB_PATH: back }, query), original);
  }
});

copyTest("a target that holds memories is refused and left as it was", 1, async (home, [db]) => {
  await writeLibrary(home);
  const first = await runCli(home, ["copy", home.dbPath, db.url]);
  assert.equal(first.code, 0, first.stderr);
  const copy = `${home.dir}/copy.sqlite3`;
  assert.equal((await runCli(home, ["copy", home.dbPath, copy])).code, 0);
  const copyHash = fileHash(copy);
  for (const target of [db.url, copy]) {
    const refused = await runCli(home, ["copy", home.dbPath, target]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /is not empty \(3 memories\); nothing was copied/);
  }
  assert.equal(fileHash(copy), copyHash);
  const json = await runCli(home, ["copy", home.dbPath, db.url, "--json"]);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout).ok, false);
  assert.ok(!json.stdout.includes(passwordOf(db.url)));
});

copyTest("a copy killed half way leaves a marked target, refused until re-run", 1, async (
  home,
  [database],
) => {
  await writeLibrary(home);
  const file = `${home.dir}/cut.sqlite3`;
  for (const target of [database.url, file]) {
    const cut = await runCli(home, ["copy", home.dbPath, target], {
      MEMA_TEST_COPY_CRASH_AFTER: "memory_history",
    });
    assert.equal(cut.code, 137, cut.stderr);
    const env: Record<string, string> = target === file
      ? { MEMA_DB_PATH: file }
      : { MEMA_DB_URL: target };
    for (const command of [["export", `${home.dir}/out`], ["scan"]]) {
      const refused = await runCli(home, command, env);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /unfinished `mema copy`/);
      assert.ok(!refused.stderr.includes(passwordOf(database.url)));
    }
    await assert.rejects(() => findOn(home, env, "staging"));
    const doctor = await runCli(home, ["doctor", "--json"], env);
    assert.equal(doctor.code, 2, doctor.stderr); // a critical finding
    assert.match(doctor.stdout, /"check_id":\s*"database.copy_incomplete"/);
    const rerun = await runCli(home, ["copy", home.dbPath, target]);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stderr, /unfinished copy .*starting over/);
    assert.deepEqual(
      await findOn(home, env, "staging cluster"),
      await findOn(home, {}, "staging cluster"),
    );
  }
});

/** Embedded rows of a copy, and those still waiting, read from its store. */
async function embeddedRows(home: TempHome, target: { dbUrl?: string; path?: string }) {
  const store = await openStore(target.path ?? "", {
    cacheDir: `${home.dir}/cache`,
    dbUrl: target.dbUrl,
  });
  try {
    const space = await store.read(async (tx) => await tx.getMeta("embedding_space"));
    const counts = await store.read(async (tx) => await tx.countRowsToEmbed(space));
    const near = await store.read(async (tx) =>
      await tx.nearestRows(new Float32Array(100).fill(1), 3)
    );
    return { space, ...counts, neighbours: near.length };
  } finally {
    await store.close();
  }
}

copyTest("evidence rows and their vectors travel both ways", 1, async (home, [database]) => {
  const model = { MEMA_EMBEDDING_MODEL: "static-wink-100d", MEMA_MODELS_DIR: `${home.dir}/models` };
  const server = await startServer(home, { env: model });
  let car: number;
  try {
    const stored = await server.call("remember", {
      content: "My car broke down on the highway, so I was late.",
      subject: "commute trouble",
      workspace: "team",
    });
    car = stored.data.memory_id;
    await server.call("remember", {
      content: "The quarterly tax filing is due on April 15.",
      subject: "taxes",
      workspace: "team",
    });
    await waitForVectorState(server, "ready");
  } finally {
    await server.close();
  }
  const there = await runCli(home, ["copy", home.dbPath, database.url, "--json"]);
  assert.equal(there.code, 0, there.stderr + there.stdout);
  const report = JSON.parse(there.stdout);
  assert.ok(report.copied.memory_rows > 0, there.stdout);
  assert.match(report.vectors.space, /^static-wink-100d:100:/);
  assert.ok(report.vectors.rows > 0);
  const back = `${home.dir}/back.sqlite3`;
  const again = await runCli(home, ["copy", database.url, back, "--json"]);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.deepEqual(JSON.parse(again.stdout).vectors, report.vectors);
  for (const target of [{ dbUrl: database.url }, { path: back }]) {
    const rows = await embeddedRows(home, target);
    assert.equal(rows.space, report.vectors.space);
    assert.equal(rows.pending, 0, "every row arrived embedded");
    assert.ok(rows.neighbours > 0, "the vectors are searched");
  }
  const targets: Record<string, string>[] = [{ MEMA_DB_URL: database.url }, { MEMA_DB_PATH: back }];
  for (const env of targets) {
    const copy = await startServer(home, { env: { ...model, ...env } });
    try {
      const found = await copy.call("find", { query: "automobile stopped working" });
      assert.equal(found.mode, "hybrid", found.warnings.join("; "));
      assert.equal(found.data.results[0]?.memory_id, car!);
    } finally {
      await copy.close();
    }
  }
});

Deno.test("copy e2e: bad command lines exit 2; help names the command", async () => {
  const home = makeTempHome();
  try {
    for (const args of [["copy"], ["copy", "a.sqlite3"], ["copy", "a", "b", "c"]]) {
      const run = await runCli(home, args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /mema help copy/);
    }
    const help = await runCli(home, ["help", "copy"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /mema copy SOURCE TARGET/);
    const missing = await runCli(home, [
      "copy",
      `${home.dir}/none.sqlite3`,
      `${home.dir}/b.sqlite3`,
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /does not exist/);
  } finally {
    home.cleanup();
  }
});
