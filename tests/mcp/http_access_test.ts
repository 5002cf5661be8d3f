import assert from "node:assert/strict";
import { checkBindPolicy, createMcpHttpHandler, HTTP_SERVER_CALLER } from "../../src/mcp/http.ts";
import { createRuntime } from "../../src/mcp/runtime.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { sha256Hex } from "../../src/http/access_tokens.ts";
import { openTestContext, snapshotDatabase } from "../helpers/context.ts";

const PORT = 8124;
const SHARED = "0123456789abcdef0123456789abcdef";
const SECRET = `mema_${"k".repeat(43)}`;

function statusRequest(headers: Record<string, string>): Request {
  return new Request(`http://127.0.0.1:${PORT}/mcp`, {
    method: "POST",
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "memory", arguments: { action: "status", data: {} } },
    }),
    headers: {
      host: `127.0.0.1:${PORT}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
  });
}

async function tokenFileText(tokens: number): Promise<string> {
  const records = tokens === 0 ? [] : [{
    name: "ci",
    sha256: await sha256Hex(SECRET),
    client: "ci",
    agent_id: "ci-bot",
    workspaces: ["alpha"],
    created_at: "2026-12-04T00:00:00.000Z",
  }];
  return JSON.stringify({ format: "mema-http-tokens/1", tokens: records });
}

async function identityOf(response: Response): Promise<unknown> {
  assert.equal(response.status, 200);
  const body = await response.json();
  return body.result.structuredContent.data.identity;
}

Deno.test("bind policy: --allow-remote accepts a token file with a token instead of the shared token", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const tokensFile = `${dir}/http_tokens.json`;
    const remote = { host: "0.0.0.0", port: 8000, allowRemote: true, tokensFile };
    assert.throws(() => checkBindPolicy(remote), /requires a bearer token/);
    Deno.writeTextFileSync(tokensFile, await tokenFileText(0));
    assert.throws(() => checkBindPolicy(remote), /requires a bearer token/);
    Deno.writeTextFileSync(tokensFile, await tokenFileText(1));
    checkBindPolicy(remote);
    Deno.writeTextFileSync(tokensFile, '{"format":"mema-http-tokens/1","tokens":[{"name":"x"}]}');
    assert.throws(() => checkBindPolicy({ host: "127.0.0.1", port: 0, tokensFile }), (error) => {
      assert.ok(error instanceof MemaError);
      assert.equal(error.code, "config_invalid");
      assert.match(error.reason, /token file .* is malformed/);
      return true;
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("http handler: the shared token keeps trusting headers beside a token file; a broken file refuses all", async () => {
  const test = await openTestContext({ skipVec: true });
  try {
    const tokensFile = `${test.dir}/http_tokens.json`;
    Deno.writeTextFileSync(tokensFile, await tokenFileText(1));
    const runtime = createRuntime({ ...test.ctx, caller: HTTP_SERVER_CALLER }, {
      dbPath: test.dbPath,
    });
    const handle = createMcpHttpHandler(runtime, {
      listenPort: () => PORT,
      token: SHARED,
      tokensFile,
    });
    const headers = { "x-mema-client": "legacy", "x-mema-agent-id": "legacy-agent" };
    const shared = await handle(
      statusRequest({ ...headers, authorization: `Bearer ${SHARED}` }),
      "127.0.0.1",
    );
    assert.deepEqual(await identityOf(shared), { client: "legacy", agent_id: "legacy-agent" });
    const own = await handle(statusRequest({ authorization: `Bearer ${SECRET}` }), "127.0.0.1");
    assert.deepEqual(await identityOf(own), { client: "ci", agent_id: "ci-bot" });

    // A hand edit gone wrong: no token is trusted until the file is fixed, and nothing is written.
    Deno.writeTextFileSync(tokensFile, "{ not json");
    const before = snapshotDatabase(test.dbPath);
    for (const authorization of [`Bearer ${SECRET}`, `Bearer ${SHARED}`]) {
      const broken = await handle(statusRequest({ ...headers, authorization }), "127.0.0.1");
      assert.equal(broken.status, 503);
      assert.match((await broken.json()).error.message, /token file cannot be read/);
    }
    assert.equal(snapshotDatabase(test.dbPath), before);
    Deno.writeTextFileSync(tokensFile, await tokenFileText(1));
    const fixed = await handle(statusRequest({ authorization: `Bearer ${SECRET}` }), "127.0.0.1");
    assert.deepEqual(await identityOf(fixed), { client: "ci", agent_id: "ci-bot" });
  } finally {
    test.cleanup();
  }
});
