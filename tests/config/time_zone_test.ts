/**
 * `time_zone`: the zone `find` reads time phrases in; the system's by default, else the config
 * file's, else MEMA_TIME_ZONE; a name `Intl` does not know is refused, naming the setting.
 */
import { withEnvironment } from "../../src/platform/env.ts";
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { serviceSettings } from "../../src/app/service_settings.ts";

const ENV = "MEMA_TIME_ZONE";

Deno.test("time_zone: the system's by default, the file, then the environment", () => {
  const dir = Deno.makeTempDirSync();
  const env: Record<string, string | undefined> = { [ENV]: undefined };
  try {
    withEnvironment(env, () => {
      const configPath = `${dir}/config.json`;
      const dbPath = `${dir}/mema.sqlite3`;
      Deno.writeTextFileSync(configPath, JSON.stringify({}));
      const defaults = loadConfig({ flags: { configPath, dbPath } });
      assert.equal(defaults.timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone);
      assert.equal(defaults.settingSources.timeZone, "default");

      Deno.writeTextFileSync(configPath, JSON.stringify({ time_zone: "Asia/Shanghai" }));
      const fromFile = loadConfig({ flags: { configPath, dbPath } });
      assert.equal(fromFile.timeZone, "Asia/Shanghai");
      assert.equal(fromFile.settingSources.timeZone, "file");
      assert.equal(serviceSettings(fromFile).timeZone, "Asia/Shanghai");

      env[ENV] = "Europe/Berlin";
      const fromEnv = loadConfig({ flags: { configPath, dbPath } });
      assert.equal(fromEnv.timeZone, "Europe/Berlin");
      assert.equal(fromEnv.settingSources.timeZone, "env");

      env[ENV] = "Mars/Olympus";
      assert.throws(() => loadConfig({ flags: { configPath, dbPath } }), (error: unknown) => {
        assert.ok(error instanceof MemaError);
        assert.equal(error.code, "config_invalid");
        assert.match(error.message, /MEMA_TIME_ZONE is not a time zone: "Mars\/Olympus"/);
        return true;
      });
      env[ENV] = undefined;
      Deno.writeTextFileSync(configPath, JSON.stringify({ time_zone: "Berlin" }));
      assert.throws(() => loadConfig({ flags: { configPath, dbPath } }), /time_zone is not a time/);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
