/**
 * The PostgreSQL backend as a user meets it: a server pointed at a `postgres://` URL that does
 * not answer fails clearly without showing the password, the driver is never loaded on a SQLite
 * user's start path, the schema migrates once, however many servers open the database together,
 * and `mema upgrade` migrates it in place, saying from which version to which.
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";
import { openPostgresStore, PG_SCHEMA_VERSION } from "../../src/store/postgres/mod.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "./backends.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** Runs `mema serve` (or another command) in a fresh home, with no SQLite file in it. */
async function serve(args: string[], env: Record<string, string>, command = ["serve"]) {
  const home = await Deno.makeTempDir({ prefix: "mema-pg-serve-" });
  const identity = command[0] === "serve" ? ["--client", "t", "--agent-id", "a"] : [];
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "main.ts", ...command, ...identity, ...args],
      cwd: ROOT,
      env: { HOME: home, XDG_CONFIG_HOME: `${home}/.config`, NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("a server whose PostgreSQL does not answer says so and starts; commands fail clearly; no password shown", async () => {
  // A server starts anyway (reads fail, writes go to its backup until the database answers):
  // its stdin is closed here, so it ends at once after saying so.
  const flagged = await serve(["--db-url", "postgres://team:hunter2@127.0.0.1:1/mema"], {});
  assert.match(
    flagged.stderr,
    /PostgreSQL at postgres:\/\/team:\*\*\*@127\.0\.0\.1:1\/mema cannot be reached .*starting anyway/,
  );
  assert.match(flagged.stderr, /serving postgresql .*PostgreSQL not reached yet/);
  assert.doesNotMatch(flagged.stderr + flagged.stdout, /hunter2/);
  assert.equal(flagged.stdout, "");

  const fromEnv = await serve([], {
    MEMA_DB_URL: "postgresql://team@127.0.0.1:1/mema",
    PGPASSWORD: "env-hunter3",
  });
  assert.match(fromEnv.stderr, /cannot be reached/);
  assert.doesNotMatch(fromEnv.stderr, /env-hunter3/);

  // Commands that open the store fail the same way, rather than report an empty SQLite library.
  for (
    const command of [
      ["scan"],
      ["export", "/tmp/mema-pg-export-never"],
      ["doctor"],
      ["console"],
      ["upgrade"],
    ]
  ) {
    const other = await serve(
      [],
      { MEMA_DB_URL: "postgres://team:hunter2@127.0.0.1:1/mema" },
      command,
    );
    assert.notEqual(other.code, 0, other.stdout + other.stderr);
    assert.match(other.stdout + other.stderr, /PostgreSQL/);
    assert.doesNotMatch(other.stdout + other.stderr, /hunter2/);
  }

  const bad = await serve(["--db-url", "mysql://team:hunter2@h/mema"], {});
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--db-url must start with postgres:\/\//);
  assert.doesNotMatch(bad.stderr, /hunter2/);
});

Deno.test("the PostgreSQL driver is not loaded on the start path of a SQLite user", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(output.success);
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  };
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  // Every module main.ts loads before it runs: static imports only, transitively.
  const loaded = new Set<string>();
  const pending = [...graph.roots];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (!dependency.isDynamic && dependency.code) pending.push(dependency.code.specifier);
    }
  }
  const postgres = [...loaded].filter((specifier) =>
    specifier.startsWith("npm:postgres") || specifier.includes("/src/store/postgres/connect.ts")
  );
  assert.deepEqual(postgres, []);
  assert.ok([...loaded].some((specifier) => specifier.endsWith("/src/store/mod.ts")));
});

Deno.test({
  name: `the schema migrates once, however many servers open the database together${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    try {
      const opened = await Promise.all(
        [1, 2, 3].map(() => openPostgresStore(scratch.url, { poolMax: 2 })),
      );
      const applied = opened.flatMap((store) => store.schema.applied);
      assert.deepEqual(applied, Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1));
      for (const store of opened) assert.equal(store.schema.version, PG_SCHEMA_VERSION);
      assert.match(opened[0].serverVersion, /^\d+/);
      // Each sees the others' writes: one database.
      await opened[0].write((tx) => tx.setMeta("written_by", "server 0"));
      assert.equal(await opened[2].getMeta("written_by"), "server 0");
      await Promise.all(opened.map((store) => store.close()));
      // Opening again applies nothing.
      const again = await openPostgresStore(scratch.url, { poolMax: 1 });
      assert.deepEqual(again.schema, { version: PG_SCHEMA_VERSION, applied: [] });
      await again.close();
    } finally {
      await scratch.drop();
    }
  },
});

Deno.test({
  name: `an unreachable PostgreSQL is a clear error, without the password${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // A port nothing listens on: refused at once.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const url = `postgres://team:hunter2@127.0.0.1:${port}/mema`;
    const started = Date.now();
    await assert.rejects(openPostgresStore(url), (error: Error) => {
      assert.match(error.message, /cannot connect to PostgreSQL at postgres:\/\/team:\*\*\*@/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
    assert.ok(Date.now() - started < 15_000);
  },
});

Deno.test({
  name: `mema upgrade migrates a PostgreSQL database in place, once; a newer schema is refused${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const password = decodeURIComponent(new URL(scratch.url).password);
    const env = { MEMA_DB_URL: scratch.url };
    const upgrade = async (...args: string[]) => {
      const run = await serve(args, env, ["upgrade"]);
      assert.ok(!(run.stdout + run.stderr).includes(password), "no password in the output");
      return run;
    };
    try {
      // A dry run names what it would apply and writes nothing: the real run then starts at 0.
      const dry = await upgrade("--dry-run");
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, new RegExp(`schema version 0; this mema's is ${PG_SCHEMA_VERSION}`));
      assert.match(dry.stdout, /dry run: nothing was written/);

      const first = await upgrade();
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, new RegExp(`schema version 0 -> ${PG_SCHEMA_VERSION}`));
      assert.match(first.stdout, /database: postgres:\/\/mema_test:\*\*\*@/);
      // The database is usable as migrated: a server opens it and applies nothing more.
      const store = await openPostgresStore(scratch.url, { poolMax: 1 });
      assert.deepEqual(store.schema, { version: PG_SCHEMA_VERSION, applied: [] });
      await store.close();

      const again = await upgrade();
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`schema version ${PG_SCHEMA_VERSION}: up to date`));

      // A newer mema migrated it further: refused, with the way forward, and nothing changed.
      const sql = await connectPostgres(scratch.url, { max: 1 });
      try {
        await sql`INSERT INTO schema_version (version, description)
          VALUES (${PG_SCHEMA_VERSION + 1}, 'from a newer mema')`;
      } finally {
        await sql.end({ timeout: 1 });
      }
      for (const args of [[], ["--dry-run"]]) {
        const newer = await upgrade(...args);
        assert.equal(newer.code, 1, newer.stdout);
        assert.match(
          newer.stderr,
          new RegExp(`schema version ${PG_SCHEMA_VERSION + 1}; this mema knows up to`),
        );
      }
    } finally {
      await scratch.drop();
    }
  },
});
