import assert from "node:assert/strict";
import { withEnvironment } from "../../src/platform/env.ts";
import { loadConfig, requireIdentity } from "../../src/config/mod.ts";
import { MemaError } from "../../src/errors/mod.ts";

const NAMES = [
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "MEMA_CONFIG",
  "MEMA_DB_PATH",
  "MEMA_CLIENT",
  "MEMA_AGENT_ID",
  "MEMORY_ARBITER_CONFIG",
  "MEMORY_ARBITER_DB_PATH",
  "MEMORY_ARBITER_CLIENT",
  "MEMORY_ARBITER_AGENT_ID",
];

/** Runs `fn` with exactly `env` set for the names config reads. */
function withEnv<T>(env: Record<string, string>, fn: () => T): T {
  const unset = Object.fromEntries(NAMES.map((name) => [name, undefined]));
  return withEnvironment({ ...unset, ...env }, fn);
}

Deno.test("defaults follow XDG and HOME", () => {
  withEnv({ HOME: "/home/u" }, () => {
    const config = loadConfig();
    assert.equal(config.dbPath, "/home/u/.local/share/mema/mema.sqlite3");
    assert.equal(config.configPath, "/home/u/.config/mema/config.json");
    assert.equal(config.client, undefined);
  });
  withEnv({ HOME: "/home/u", XDG_DATA_HOME: "/data", XDG_CONFIG_HOME: "/cfg" }, () => {
    const config = loadConfig();
    assert.equal(config.dbPath, "/data/mema/mema.sqlite3");
    assert.equal(config.configPath, "/cfg/mema/config.json");
  });
});

Deno.test("file, then environment, then flags win", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = `${dir}/config.json`;
    Deno.writeTextFileSync(
      file,
      JSON.stringify({ db_path: "~/x.sqlite3", client: "cursor", agent_id: "from-file" }),
    );
    withEnv({ HOME: "/home/u", MEMA_CONFIG: file }, () => {
      const config = loadConfig();
      assert.equal(config.dbPath, "/home/u/x.sqlite3");
      assert.deepEqual([config.client, config.agentId], ["cursor", "from-file"]);
    });
    withEnv({
      HOME: "/home/u",
      MEMA_CONFIG: file,
      MEMA_AGENT_ID: "from-env",
      MEMA_DB_PATH: "/e.db",
    }, () => {
      const config = loadConfig({ flags: { client: "flagged" } });
      assert.deepEqual([config.client, config.agentId, config.dbPath], [
        "flagged",
        "from-env",
        "/e.db",
      ]);
      assert.deepEqual(config.sources, {
        dbPath: "env",
        client: "flag",
        agentId: "env",
        workspace: "default",
        workspaceIsolation: "default",
      });
    });
    withEnv({ HOME: "/h", MEMORY_ARBITER_CONFIG: file, MEMORY_ARBITER_CLIENT: "legacy" }, () => {
      assert.equal(loadConfig().client, "legacy");
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a bad config is an error naming the key", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = `${dir}/config.json`;
    const cases: [string, string | undefined, RegExp][] = [
      ['{"db_pth": "/x"}', "db_pth", /did you mean "db_path"/],
      ['{"workspace_isolation": "total"}', "workspace_isolation", /workspace_isolation/],
      ['{"client": "has space"}', "client", /client/],
      ["{not json", undefined, /not valid JSON/],
      ["[1]", undefined, /JSON object/],
    ];
    for (const [text, field, pattern] of cases) {
      Deno.writeTextFileSync(file, text);
      withEnv({ HOME: "/h", MEMA_CONFIG: file }, () => {
        assert.throws(() => loadConfig(), (e: unknown) => {
          assert.ok(e instanceof MemaError);
          assert.equal(e.code, "config_invalid");
          assert.equal(e.field, field);
          assert.match(e.reason, pattern);
          return true;
        });
      });
    }
    withEnv({ HOME: "/h", MEMA_CLIENT: "bad client!" }, () => {
      assert.throws(
        () => loadConfig(),
        (e: unknown) => e instanceof MemaError && e.field === "MEMA_CLIENT",
      );
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("serving requires both halves of the identity and says how to set them", () => {
  withEnv({ HOME: "/h", MEMA_CLIENT: "cursor" }, () => {
    assert.throws(() => requireIdentity(loadConfig()), (e: unknown) => {
      assert.ok(e instanceof MemaError && e.code === "identity_missing");
      assert.match(e.reason, /MEMA_AGENT_ID/);
      assert.match(e.hint ?? "", /env/);
      return true;
    });
  });
  withEnv({ HOME: "/h", MEMA_CLIENT: "cursor", MEMA_AGENT_ID: "cursor-main" }, () => {
    assert.deepEqual(requireIdentity(loadConfig()), { client: "cursor", agentId: "cursor-main" });
  });
});
