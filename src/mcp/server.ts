/**
 * The MCP server: mema's tools, prompts and resources on its own protocol layer (protocol.ts),
 * served over stdio (stdio.ts) or streamable HTTP (http.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeCapabilities } from "../capabilities/mod.ts";
 * import { createMcpServer } from "./server.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const runtime = {
 *   ctx,
 *   dbPath: `${dir}/mema.sqlite3`,
 *   startedAt: new Date().toISOString(),
 *   capabilities: () => Promise.resolve(describeCapabilities(store.capabilities)),
 * };
 * const server = createMcpServer(runtime);
 * const listed = await server.answer({ jsonrpc: "2.0", id: 1, method: "tools/list" });
 * assert.ok(listed !== undefined && "result" in listed);
 * const tools = listed.result.tools as { name: string }[];
 * assert.ok(tools.some((tool) => tool.name === "memory"));
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { JsonRpcErrorCode, ProtocolError } from "./jsonrpc.ts";
import { McpServer } from "./protocol.ts";
import { listResources, listResourceTemplates, readResource } from "./resources.ts";
import { AGENT_ONBOARDING } from "./guidance.ts";
import { VERSION } from "../version.ts";
import { errorEnvelope, toToolResult } from "./envelope.ts";
import { MemaError } from "../errors/mod.ts";
import { MEMORY_VERB_TOOL } from "./memory_tool.ts";
import { GOVERN_VERB_TOOL } from "./govern_tool.ts";
import { REPAIR_VERB_TOOL } from "./repair_tool.ts";
import { REVIEW_VERB_TOOL } from "./review_tool.ts";
import { callVerbTool, type VerbTool } from "./verb_tool.ts";
import { closestName } from "../text/closest_name.ts";
import { envelopeState, type McpRuntime } from "./runtime.ts";

const VERB_TOOLS: readonly VerbTool[] = [
  MEMORY_VERB_TOOL,
  REVIEW_VERB_TOOL,
  GOVERN_VERB_TOOL,
  REPAIR_VERB_TOOL,
];

/** The MCP definition of a verb tool: the verb as an enum, `data` as an open object. */
export function toolDefinition(tool: VerbTool): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: {
      type: "object" as const,
      properties: {
        [tool.verbKey]: {
          type: "string",
          enum: Object.keys(tool.verbs),
          description: "the verb to run",
        },
        data: {
          type: "object",
          description: "the verb's fields; see help",
          additionalProperties: true,
        },
      },
      required: [tool.verbKey],
    },
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly ?? false,
      destructiveHint: false,
      openWorldHint: false,
    },
  };
}

/** A string member of a request's params, or an Invalid Params error naming it. */
function stringParam(params: Record<string, unknown>, name: string, method: string): string {
  const value = params[name];
  if (typeof value !== "string") {
    throw new ProtocolError(
      JsonRpcErrorCode.InvalidParams,
      `${method} needs params.${name} as a string`,
    );
  }
  return value;
}

const INSTRUCTIONS =
  "mema stores facts for you across sessions. Before answering from memory, call memory find; store durable facts with memory remember (one fact per memory, verbatim, with a subject and workspace).";

/** Builds an MCP server bound to a runtime. */
export function createMcpServer(runtime: McpRuntime): McpServer {
  return new McpServer({
    name: "mema",
    version: VERSION,
    capabilities: { tools: {}, prompts: {}, resources: {} },
    instructions: INSTRUCTIONS,
    handlers: {
      "tools/list": () => ({ tools: VERB_TOOLS.map(toolDefinition) }),
      "tools/call": async (params) => {
        const name = stringParam(params, "name", "tools/call");
        const args = params.arguments;
        if (
          args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))
        ) {
          throw new ProtocolError(
            JsonRpcErrorCode.InvalidParams,
            "tools/call needs params.arguments as an object",
          );
        }
        const tool = VERB_TOOLS.find((candidate) => candidate.name === name);
        if (!tool) {
          return toToolResult(errorEnvelope(
            new MemaError("unknown_action", `no tool named "${name}"`, {
              field: "name",
              didYouMean: closestName(name, VERB_TOOLS.map((t) => t.name)),
            }),
            await envelopeState(runtime),
          ));
        }
        return toToolResult(
          await callVerbTool(tool, runtime, args as Record<string, unknown> | undefined),
        );
      },
      "prompts/list": () => ({
        prompts: [{
          name: "agent_onboarding",
          title: "How to use mema",
          description: "What to store, when to search, trust levels and the authorization gate.",
        }],
      }),
      "prompts/get": (params) => {
        const name = stringParam(params, "name", "prompts/get");
        if (name !== "agent_onboarding") {
          throw new ProtocolError(JsonRpcErrorCode.InvalidParams, `no prompt named "${name}"`);
        }
        return {
          description: "How to use mema",
          messages: [{ role: "user", content: { type: "text", text: AGENT_ONBOARDING } }],
        };
      },
      "resources/list": async () => ({ resources: await listResources(runtime) }),
      "resources/templates/list": () => ({ resourceTemplates: listResourceTemplates() }),
      "resources/read": async (params) =>
        await readResource(runtime, stringParam(params, "uri", "resources/read")),
    },
  });
}
