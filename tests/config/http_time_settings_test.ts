import assert from "node:assert/strict";
import { withEnvironment } from "../../src/platform/env.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { resolveHttpOptions } from "../../src/mcp/http.ts";

const NAMES = [
  "MEMA_HTTP_SHUTDOWN_GRACE_MS",
  "MEMA_HTTP_BODY_TIMEOUT_MS",
  "MEMA_TRANSPORT",
  "MEMA_HTTP_TOKEN",
];

Deno.test("HTTP time bounds: the file, then the environment; bad values name the setting", () => {
  const dir = Deno.makeTempDirSync();
  const env: Record<string, string | undefined> = Object.fromEntries(
    NAMES.map((name) => [name, undefined]),
  );
  try {
    withEnvironment(env, () => {
      const configPath = `${dir}/config.json`;
      Deno.writeTextFileSync(configPath, JSON.stringify({ transport: "http" }));
      const defaults = loadConfig({ flags: { configPath } });
      assert.deepEqual(
        [defaults.http.shutdownGraceMs, defaults.http.bodyTimeoutMs],
        [undefined, undefined],
        "unset: the transport's own defaults apply",
      );

      Deno.writeTextFileSync(
        configPath,
        JSON.stringify({
          transport: "http",
          http_shutdown_grace_ms: 2000,
          http_body_timeout_ms: 5000,
        }),
      );
      const fromFile = loadConfig({ flags: { configPath } });
      assert.deepEqual(resolveHttpOptions(fromFile, {}), {
        host: "127.0.0.1",
        port: 8000,
        token: undefined,
        tokensFile: fromFile.http.tokensFile,
        allowRemote: false,
        shutdownGraceMs: 2000,
        bodyTimeoutMs: 5000,
      });

      env["MEMA_HTTP_SHUTDOWN_GRACE_MS"] = "0";
      env["MEMA_HTTP_BODY_TIMEOUT_MS"] = "750";
      const fromEnv = loadConfig({ flags: { configPath } });
      assert.deepEqual([fromEnv.http.shutdownGraceMs, fromEnv.http.bodyTimeoutMs], [0, 750]);

      for (const bad of ["soon", "-1", "1.5", "600001"]) {
        env["MEMA_HTTP_BODY_TIMEOUT_MS"] = bad;
        assert.throws(
          () => loadConfig({ flags: { configPath } }),
          /MEMA_HTTP_BODY_TIMEOUT_MS must be an integer from 1 to 600000/,
          JSON.stringify(bad),
        );
      }
      env["MEMA_HTTP_BODY_TIMEOUT_MS"] = undefined;
      Deno.writeTextFileSync(configPath, JSON.stringify({ http_body_timeout_ms: 0 }));
      assert.throws(() => loadConfig({ flags: { configPath } }), /http_body_timeout_ms/);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
