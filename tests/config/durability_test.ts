/**
 * `durability`: every acknowledged write synced (full, the default) or synced at checkpoints
 * (normal), from the config file or MEMA_DURABILITY; a bad value names the setting.
 */
import { withEnvironment } from "../../src/platform/env.ts";
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { openConnection } from "../../src/store/sqlite_connection.ts";

const ENV = "MEMA_DURABILITY";

Deno.test("durability: full by default, the file, then the environment; bad values refused", () => {
  const dir = Deno.makeTempDirSync();
  const env: Record<string, string | undefined> = { [ENV]: undefined };
  try {
    withEnvironment(env, () => {
      const configPath = `${dir}/config.json`;
      Deno.writeTextFileSync(configPath, JSON.stringify({}));
      const defaults = loadConfig({ flags: { configPath } });
      assert.equal(defaults.durability, "full");
      assert.equal(defaults.settingSources.durability, "default");

      Deno.writeTextFileSync(configPath, JSON.stringify({ durability: "normal" }));
      const fromFile = loadConfig({ flags: { configPath } });
      assert.equal(fromFile.durability, "normal");
      assert.equal(fromFile.settingSources.durability, "file");

      env[ENV] = "full";
      const fromEnv = loadConfig({ flags: { configPath } });
      assert.equal(fromEnv.durability, "full");
      assert.equal(fromEnv.settingSources.durability, "env");

      env[ENV] = "fast";
      assert.throws(() => loadConfig({ flags: { configPath } }), (error: unknown) => {
        assert.ok(error instanceof MemaError);
        assert.equal(error.code, "config_invalid");
        assert.match(error.message, /MEMA_DURABILITY must be "full" or "normal"/);
        return true;
      });
      env[ENV] = undefined;
      Deno.writeTextFileSync(configPath, JSON.stringify({ durability: "fast" }));
      assert.throws(() => loadConfig({ flags: { configPath } }));
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("durability normal: acknowledged writes commit without a sync; full syncs each", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    for (const [durability, expected] of [["normal", 1], ["full", 2]] as const) {
      const connection = openConnection(`${dir}/${durability}.sqlite3`, { durability });
      try {
        connection.db.exec("CREATE TABLE t (v INTEGER)");
        const level = await connection.write(() => {
          connection.db.exec("INSERT INTO t VALUES (1)");
          return Promise.resolve(Number(
            (connection.db.prepare("PRAGMA synchronous").get() as { synchronous: number })
              .synchronous,
          ));
        });
        assert.equal(level, expected, durability);
      } finally {
        connection.close();
      }
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
