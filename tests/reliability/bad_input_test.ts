import assert from "node:assert/strict";
import {
  connectHttp,
  envelopeOf,
  type HttpSession,
  identityHeaders,
  postRaw,
  startHttpServer,
} from "../helpers/http_server.ts";
import { makeTempHome } from "../helpers/server.ts";
import {
  type BadCall,
  badCallsForVerb,
  badNames,
  malformedFrames,
  type SchemaNode,
  type VerbSurface,
} from "./bad_input_cases.ts";
import { assertDatabaseConsistent, fullSnapshot, spawnStdioServer } from "./harness.ts";

// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** Every verb of every tool the server lists, with the schema its `help` reports. */
async function discoverSurfaces(session: HttpSession): Promise<VerbSurface[]> {
  const { tools } = await session.client.listTools();
  const surfaces: VerbSurface[] = [];
  for (const tool of tools) {
    const schema = tool.inputSchema as {
      required?: string[];
      properties: Record<string, { enum?: string[] }>;
    };
    const verbKey = schema.required![0];
    const verbs = schema.properties[verbKey].enum!;
    const help = envelopeOf(
      await session.client.callTool({ name: tool.name, arguments: { [verbKey]: "help" } }),
    );
    assert.equal(help.ok, true, `${tool.name} help`);
    const listing = (help.data.actions ?? help.data.tasks ?? help.data.views) as Record<
      string,
      { schema: SchemaNode }
    >;
    assert.deepEqual(
      Object.keys(listing).sort(),
      [...verbs].sort(),
      `${tool.name} help lists every verb`,
    );
    for (const verb of verbs) {
      surfaces.push({ tool: tool.name, verbKey, verb, schema: listing[verb].schema });
    }
  }
  return surfaces;
}

/** An answer is an error when the status says so, or every JSON-RPC reply in it is one. */
function isErrorAnswer(status: number, text: string): boolean {
  if (status >= 400) return true;
  if (status !== 200) return false;
  const body = JSON.parse(text);
  const replies = Array.isArray(body) ? body : [body];
  return replies.length > 0 &&
    replies.every((reply) => reply.error !== undefined || reply.result?.isError === true);
}

/** Runs a tool call and returns why it is not a proper error, or undefined when it is. */
async function expectToolError(client: Client, call: BadCall): Promise<string | undefined> {
  let result;
  try {
    result = await client.callTool({
      name: call.tool,
      arguments: call.args as Record<string, unknown>,
    });
  } catch (error) {
    // A JSON-RPC error (invalid params) is an error answer too.
    return /MCP error -32\d{3}/.test(String(error)) ? undefined : `threw ${error}`;
  }
  const envelope = envelopeOf(result);
  if (envelope.ok !== false || envelope.isError !== true) {
    return `answered ok: ${JSON.stringify(envelope).slice(0, 300)}`;
  }
  if (typeof envelope.data.error !== "string" || typeof envelope.data.reason !== "string") {
    return `error without code and reason: ${JSON.stringify(envelope.data).slice(0, 300)}`;
  }
  return undefined;
}

async function runAll<T>(items: T[], parallel: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

Deno.test("reliability: every malformed frame and bad argument gets an error; nothing changes", async () => {
  const home = makeTempHome();
  const http = await startHttpServer(home);
  const headers = identityHeaders("fuzz", "fuzz-agent");
  const session = await connectHttp(http.url, headers);
  const stdio = await spawnStdioServer(home, { MEMA_CLIENT: "fuzz", MEMA_AGENT_ID: "fuzz-stdio" });
  try {
    for (let i = 0; i < 3; i++) {
      const stored = await session.call("remember", {
        content: `seed fact ${i}: the backup bucket is s3://backups-${i}.`,
        subject: `seed ${i}`,
        workspace: "fuzz",
        tags: ["seed"],
      });
      assert.equal(stored.ok, true);
      await session.call("update", {
        memory_id: stored.data.memory_id,
        new_content: `seed ${i} v2`,
      });
    }
    const surfaces = await discoverSurfaces(session);
    const before = fullSnapshot(home.dbPath);

    const frames = malformedFrames();
    const frameFailures: string[] = [];
    for (const { label, body } of frames) {
      const answer = await postRaw(http.url, body, headers);
      if (!isErrorAnswer(answer.status, answer.text)) {
        frameFailures.push(`${label}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }
    assert.deepEqual(frameFailures, [], "every malformed frame gets an error answer");

    const calls = [...surfaces.flatMap(badCallsForVerb), ...badNames(surfaces)];
    const failures: string[] = [];
    await runAll(calls, 8, async (call) => {
      const problem = await expectToolError(session.client, call);
      if (problem) failures.push(`http ${call.label}: ${problem}`);
    });
    await runAll(calls, 4, async (call) => {
      const problem = await expectToolError(stdio.client, call);
      if (problem) failures.push(`stdio ${call.label}: ${problem}`);
    });
    assert.deepEqual(failures, [], "every bad call gets an error envelope");
    console.error(
      `bad input: ${frames.length} malformed frames, ${calls.length} bad calls over ${surfaces.length} verbs, each over HTTP and stdio`,
    );

    assert.equal(fullSnapshot(home.dbPath), before, "the database is unchanged");
    assertDatabaseConsistent(home.dbPath);
    const aliveHttp = await session.call("status");
    assert.equal(aliveHttp.ok, true, "the HTTP server is still up");
    const aliveStdio = await stdio.call("status");
    assert.equal(aliveStdio.ok, true, "the stdio server is still up");
  } finally {
    await session.close();
    await stdio.close();
    await http.stop();
    home.cleanup();
  }
});
