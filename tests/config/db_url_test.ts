import assert from "node:assert/strict";
import { withEnvironment } from "../../src/platform/env.ts";
import { loadConfig } from "../../src/config/mod.ts";
import {
  checkDbUrl,
  isPostgresUrl,
  redactDbSecrets,
  redactDbUrl,
} from "../../src/config/db_url.ts";
import { MemaError } from "../../src/errors/mod.ts";

const NAMES = ["HOME", "XDG_CONFIG_HOME", "MEMA_CONFIG", "MEMA_DB_URL", "PGPASSWORD"];

/** Runs `fn` with exactly `env` set for the names these tests read. */
function withEnv<T>(env: Record<string, string>, fn: () => T): T {
  const unset = Object.fromEntries(NAMES.map((name) => [name, undefined]));
  return withEnvironment({ ...unset, ...env }, fn);
}

function configError(fn: () => unknown): MemaError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof MemaError, String(error));
    return error;
  }
  throw new Error("expected a config_invalid error");
}

Deno.test("a postgres URL is accepted as given; the SQLite path stays the default", () => {
  withEnv({ HOME: "/home/u" }, () => {
    assert.equal(loadConfig().dbUrl, undefined);
    const url = "postgres://team@db.example:5432/mema?sslmode=require";
    const config = loadConfig({ flags: { dbUrl: url } });
    assert.equal(config.dbUrl, url);
    assert.equal(config.settingSources.dbUrl, "flag");
    assert.equal(config.dbPath, "/home/u/.local/share/mema/mema.sqlite3");
  });
  assert.equal(checkDbUrl("postgresql:///mema?host=/run/postgresql", "db_url").length > 0, true);
  assert.equal(isPostgresUrl("postgres://h/db"), true);
  assert.equal(isPostgresUrl("/home/u/mema.sqlite3"), false);
});

Deno.test("db_url comes from the flag, then MEMA_DB_URL, then the config file", () => {
  const dir = Deno.makeTempDirSync();
  const configPath = `${dir}/config.json`;
  Deno.writeTextFileSync(configPath, JSON.stringify({ db_url: "postgres://file-host/mema" }));
  try {
    withEnv({ HOME: dir, MEMA_CONFIG: configPath }, () => {
      assert.equal(loadConfig().dbUrl, "postgres://file-host/mema");
      assert.equal(loadConfig().settingSources.dbUrl, "file");
    });
    withEnv({ HOME: dir, MEMA_CONFIG: configPath, MEMA_DB_URL: "postgres://env-host/mema" }, () => {
      assert.equal(loadConfig().dbUrl, "postgres://env-host/mema");
      assert.equal(loadConfig().settingSources.dbUrl, "env");
      const flagged = loadConfig({ flags: { dbUrl: "postgres://flag-host/mema" } });
      assert.equal(flagged.dbUrl, "postgres://flag-host/mema");
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a bad db_url is a clear config error that never shows the password", () => {
  const cases: [string, RegExp][] = [
    ["mysql://u:hunter2@h/db", /must start with postgres:\/\//],
    ["postgres://u:hunter2@/db", /is not a URL|names no host/],
    ["postgres:///db?password=hunter2", /names no host/],
    ["postgres://u:hunter2@h:5432", /names no database/],
    ["postgres://u:hunter2@h:99999/db", /not a URL|port/],
    ["not a url hunter2", /is not a URL/],
  ];
  for (const [url, reason] of cases) {
    const error = withEnv({ HOME: "/home/u", MEMA_DB_URL: url }, () => configError(loadConfig));
    assert.equal(error.code, "config_invalid");
    assert.equal(error.field, "MEMA_DB_URL");
    assert.match(error.message, reason);
    assert.doesNotMatch(error.message, /hunter2/, error.message);
    assert.doesNotMatch(error.hint ?? "", /hunter2/);
  }
});

Deno.test("redaction hides the URL's password and secret parameters, keeps the rest", () => {
  assert.equal(
    redactDbUrl("postgres://team:s3cret@db.example:5432/mema?sslmode=require"),
    "postgres://team:***@db.example:5432/mema?sslmode=require",
  );
  assert.equal(
    redactDbUrl("postgres://team@db.example/mema?password=s3cret&sslpassword=k3y"),
    "postgres://team@db.example/mema?password=***&sslpassword=***",
  );
  assert.equal(redactDbUrl("postgres://db.example/mema"), "postgres://db.example/mema");
  // Not a URL at all: nothing but the scheme is shown.
  assert.equal(redactDbUrl("postgres://u:p w@[bad/mema"), "postgres://***");
  assert.equal(redactDbUrl("hunter2"), "***");
});

Deno.test("error text loses every credential: the URL's, an escaped one and PGPASSWORD's", () => {
  const url = "postgres://team:p%40ss%2Fw0rd@db.example/mema";
  withEnv({ PGPASSWORD: "env-secret-9" }, () => {
    const text = `connect ${url} failed; password p@ss/w0rd or env-secret-9 rejected`;
    const clean = redactDbSecrets(text, url);
    assert.doesNotMatch(clean, /w0rd|env-secret-9/, clean);
    assert.match(clean, /postgres:\/\/team:\*\*\*@db\.example\/mema/);
  });
});
