import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { envelopeOf, startHttpServer } from "../helpers/http_server.ts";
import { makeTempHome } from "../helpers/server.ts";

/**
 * The mcp-remote release the snippet in docs/http.md names; a third-party
 * stdio↔streamable-HTTP bridge, run exactly as a stdio-only client runs it.
 */
const MCP_REMOTE = "mcp-remote@0.15.1";

Deno.test("e2e http: mcp-remote from npm bridges a stdio client to the HTTP server", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home);
  const npmCache = Deno.env.get("npm_config_cache") ??
    `${Deno.env.get("HOME") ?? "/root"}/.npm`;
  const transport = new StdioClientTransport({
    command: "npx",
    args: [
      "-y",
      MCP_REMOTE,
      server.url,
      "--transport",
      "http-only",
      "--allow-http",
      "--silent",
      "--header",
      "X-Mema-Client:mcp-remote",
      "--header",
      "X-Mema-Agent-Id:bridge-agent",
    ],
    // mcp-remote keeps its state under ~/.mcp-auth: the temporary home; the
    // npm cache stays the user's so the package is fetched once.
    env: { ...home.env, npm_config_cache: npmCache, npm_config_update_notifier: "false" },
    stderr: "pipe",
  });
  let bridgeLog = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    bridgeLog += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "stdio-only-agent", version: "0" });
  try {
    await client.connect(transport);
    const tools = await client.listTools();
    assert.ok(tools.tools.some((tool) => tool.name === "memory"), bridgeLog);

    const call = async (action: string, data?: unknown) =>
      envelopeOf(await client.callTool({ name: "memory", arguments: { action, data } }));
    const stored = await call("remember", {
      content: "Bridged clients see the same memory: release freeze starts Dec 18.",
      subject: "release freeze",
      workspace: "ops",
    });
    assert.equal(stored.ok, true, JSON.stringify(stored.data));
    const found = await call("find", { query: "release freeze" });
    assert.equal(found.data.results[0].memory_id, stored.data.memory_id);
    const read = await call("read", { memory_id: stored.data.memory_id });
    assert.match(read.data.content, /Dec 18/);
    const status = await call("status");
    assert.deepEqual(status.data.identity, { client: "mcp-remote", agent_id: "bridge-agent" });
    const error = await call("read", { memory_id: 424242 });
    assert.equal(error.ok, false);
    assert.equal(error.isError, true);

    const db = new DatabaseSync(home.dbPath, { readOnly: true });
    try {
      const row = db.prepare("SELECT client, agent_id FROM memories WHERE id = ?").get(
        stored.data.memory_id,
      );
      assert.deepEqual({ ...row }, { client: "mcp-remote", agent_id: "bridge-agent" });
    } finally {
      db.close();
    }
  } finally {
    await client.close();
    await server.stop();
    home.cleanup();
  }
});
