/**
 * The MCP server: tool list and tool calls, on any SDK transport.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
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
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "docs", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { tools } = await client.listTools();
 * assert.ok(tools.some((tool: { name: string }) => tool.name === "memory"));
 * await client.close();
 * await server.close();
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
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

/** Builds an MCP server bound to a runtime. */
export function createMcpServer(runtime: McpRuntime): Server {
  const server = new Server(
    { name: "mema", version: VERSION },
    {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      instructions:
        "mema stores facts for you across sessions. Before answering from memory, call memory find; store durable facts with memory remember (one fact per memory, verbatim, with a subject and workspace).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: VERB_TOOLS.map(toolDefinition),
  }));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{
      name: "agent_onboarding",
      title: "How to use mema",
      description: "What to store, when to search, trust levels and the authorization gate.",
    }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== "agent_onboarding") {
      throw new McpError(ErrorCode.InvalidParams, `no prompt named "${request.params.name}"`);
    }
    return {
      description: "How to use mema",
      messages: [{
        role: "user" as const,
        content: { type: "text" as const, text: AGENT_ONBOARDING },
      }],
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listResources(runtime),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: listResourceTemplates(),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    return await readResource(runtime, request.params.uri);
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
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
    return toToolResult(await callVerbTool(tool, runtime, args));
  });
  return server;
}
