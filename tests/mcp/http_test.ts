import assert from "node:assert/strict";
import { withEnvironment } from "../../src/platform/env.ts";
import {
  checkBindPolicy,
  createMcpHttpHandler,
  HTTP_SERVER_CALLER,
  resolveHttpOptions,
} from "../../src/mcp/http.ts";
import { createRuntime } from "../../src/mcp/runtime.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { openTestContext, snapshotDatabase } from "../helpers/context.ts";

const PORT = 8123;
const TOKEN = "0123456789abcdef0123456789abcdef";

function mcpRequest(
  body: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(`http://127.0.0.1:${PORT}/mcp`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: {
      host: `127.0.0.1:${PORT}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-mema-client": "unit-http",
      "x-mema-agent-id": "agent-1",
      ...headers,
    },
  });
}

function remember(id: number, content: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "memory",
      arguments: { action: "remember", data: { content, subject: content, workspace: "w" } },
    },
  };
}

Deno.test("http handler: a non-loopback peer is refused with 403 before anything runs", async () => {
  const test = await openTestContext({ skipVec: true });
  try {
    const runtime = createRuntime({ ...test.ctx, caller: HTTP_SERVER_CALLER }, {
      dbPath: test.dbPath,
    });
    const handle = createMcpHttpHandler(runtime, { listenPort: () => PORT });
    const before = snapshotDatabase(test.dbPath);
    for (const peer of ["192.168.1.20", "10.0.0.7", "::ffff:10.0.0.7", "2001:db8::1"]) {
      const response = await handle(mcpRequest(remember(1, `from ${peer}`)), peer);
      assert.equal(response.status, 403, peer);
      assert.match((await response.json()).error.message, /this machine/);
    }
    assert.equal(snapshotDatabase(test.dbPath), before);
    const mapped = await handle(mcpRequest(remember(2, "via mapped v4")), "::ffff:127.0.0.1");
    assert.equal(mapped.status, 200);
  } finally {
    test.cleanup();
  }
});

Deno.test("http handler: identity is per request and never leaks into the shared runtime", async () => {
  const test = await openTestContext({ skipVec: true });
  try {
    const runtime = createRuntime({ ...test.ctx, caller: HTTP_SERVER_CALLER }, {
      dbPath: test.dbPath,
    });
    const handle = createMcpHttpHandler(runtime, { listenPort: () => PORT });
    const [a, b] = await Promise.all([
      handle(
        mcpRequest(remember(1, "written by a"), { "x-mema-agent-id": "agent-a" }),
        "127.0.0.1",
      ),
      handle(
        mcpRequest(remember(2, "written by b"), {
          "x-mema-client": "other",
          "x-mema-agent-id": "agent-b",
        }),
        "127.0.0.1",
      ),
    ]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    const idA = (await a.json()).result.structuredContent.data.memory_id;
    const idB = (await b.json()).result.structuredContent.data.memory_id;
    const rows = await test.store.read(
      async () => [await test.store.getMemory(idA), await test.store.getMemory(idB)],
    );
    assert.deepEqual(rows.map((row) => [row?.client, row?.agentId]), [
      ["unit-http", "agent-a"],
      ["other", "agent-b"],
    ]);
    assert.deepEqual(runtime.ctx.caller, HTTP_SERVER_CALLER);
  } finally {
    test.cleanup();
  }
});

Deno.test("http handler: a configured token is required even from loopback", async () => {
  const test = await openTestContext({ skipVec: true });
  try {
    const runtime = createRuntime({ ...test.ctx, caller: HTTP_SERVER_CALLER }, {
      dbPath: test.dbPath,
    });
    const handle = createMcpHttpHandler(runtime, { listenPort: () => PORT, token: TOKEN });
    const status = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const missing = await handle(mcpRequest(status), "127.0.0.1");
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
    const wrong = await handle(mcpRequest(status, { authorization: `Bearer ${TOKEN}0` }), "::1");
    assert.equal(wrong.status, 401);
    const right = await handle(mcpRequest(status, { authorization: `Bearer ${TOKEN}` }), "::1");
    assert.equal(right.status, 200);
  } finally {
    test.cleanup();
  }
});

Deno.test("bind policy: non-loopback needs --allow-remote and a strong token", () => {
  const refused = (options: Parameters<typeof checkBindPolicy>[0], pattern: RegExp) => {
    assert.throws(() => checkBindPolicy(options), (error: unknown) => {
      assert.ok(error instanceof MemaError);
      assert.equal(error.code, "config_invalid");
      assert.match(error.reason, pattern);
      return true;
    });
  };
  refused({ host: "0.0.0.0", port: 8000 }, /non-loopback/);
  refused({ host: "192.168.1.2", port: 8000, token: TOKEN }, /non-loopback/);
  refused({ host: "0.0.0.0", port: 8000, allowRemote: true }, /requires a bearer token/);
  refused({ host: "0.0.0.0", port: 8000, allowRemote: true, token: "short" }, /token must be/);
  refused({ host: "::", port: 8000, allowRemote: true, token: `${TOKEN} x` }, /token must be/);
  checkBindPolicy({ host: "0.0.0.0", port: 8000, allowRemote: true, token: TOKEN });
  checkBindPolicy({ host: "localhost", port: 8000 });
  checkBindPolicy({ host: "[::1]", port: 0 });
});

Deno.test("HTTP-only flags without --http are an error, not silently ignored", () => {
  const config = loadConfig({ flags: { configPath: "/nonexistent/mema.json" } });
  assert.equal(config.transport, "stdio");
  assert.equal(resolveHttpOptions(config, {}), undefined);
  assert.throws(() => resolveHttpOptions(config, { hostOrPortFlag: true }), /need --http/);
  assert.throws(() => resolveHttpOptions(config, { allowRemote: true }), /need --http/);
  const http = loadConfig({
    flags: { configPath: "/nonexistent/mema.json", transport: "http", httpPort: "0" },
  });
  assert.deepEqual(resolveHttpOptions(http, {}), {
    host: "127.0.0.1",
    port: 0,
    token: http.http.token,
    tokensFile: http.http.tokensFile,
    allowRemote: false,
  });
  assert.throws(
    () => loadConfig({ flags: { configPath: "/nonexistent/mema.json", httpPort: "99999" } }),
    /port number/,
  );
});

Deno.test("transport settings: file, then environment, then flags", () => {
  const dir = Deno.makeTempDirSync();
  const env: Record<string, string | undefined> = {
    MEMA_TRANSPORT: undefined,
    MEMA_HTTP_TOKEN: undefined,
    MEMA_HTTP_TOKENS_FILE: undefined,
  };
  try {
    withEnvironment(env, () => {
      const configPath = `${dir}/config.json`;
      Deno.writeTextFileSync(
        configPath,
        JSON.stringify({
          transport: "http",
          http_host: "::1",
          http_port: 9100,
          http_token: "f".repeat(32),
        }),
      );
      const fromFile = loadConfig({ flags: { configPath, dbPath: `${dir}/db/mema.sqlite3` } });
      assert.equal(fromFile.transport, "http");
      assert.deepEqual(fromFile.http, {
        host: "::1",
        port: 9100,
        token: "f".repeat(32),
        tokensFile: `${dir}/db/http_tokens.json`,
      }, "the token file lives beside the database unless told otherwise");
      Deno.writeTextFileSync(
        configPath,
        JSON.stringify({ transport: "http", http_tokens_file: `${dir}/tokens.json` }),
      );
      assert.equal(loadConfig({ flags: { configPath } }).http.tokensFile, `${dir}/tokens.json`);
      env["MEMA_HTTP_TOKENS_FILE"] = `${dir}/env_tokens.json`;
      assert.equal(loadConfig({ flags: { configPath } }).http.tokensFile, `${dir}/env_tokens.json`);
      env["MEMA_HTTP_TOKENS_FILE"] = undefined;

      env["MEMA_TRANSPORT"] = "stdio";
      env["MEMA_HTTP_TOKEN"] = "e".repeat(40);
      const fromEnv = loadConfig({ flags: { configPath } });
      assert.equal(fromEnv.transport, "stdio", "stdio client entries can override a shared file");
      assert.equal(fromEnv.http.token, "e".repeat(40));

      const fromFlags = loadConfig({
        flags: { configPath, transport: "http", httpHost: "127.0.0.2", httpPort: "0" },
      });
      assert.equal(fromFlags.transport, "http");
      assert.deepEqual([fromFlags.http.host, fromFlags.http.port], ["127.0.0.2", 0]);

      env["MEMA_TRANSPORT"] = "sse";
      assert.throws(() => loadConfig({ flags: { configPath } }), /MEMA_TRANSPORT must be/);
      env["MEMA_TRANSPORT"] = undefined;
      Deno.writeTextFileSync(configPath, JSON.stringify({ http_prot: 1 }));
      assert.throws(() => loadConfig({ flags: { configPath } }), /did you mean "http_port"/);
      Deno.writeTextFileSync(configPath, JSON.stringify({ http_port: 70_000 }));
      assert.throws(() => loadConfig({ flags: { configPath } }), /http_port/);
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
