/**
 * The MCP server: tool list and tool calls, on any SDK transport.
 *
 * @example
 * ```ts
 * import { createMcpServer } from "./src/mcp/server.ts";
 * // const server = createMcpServer(runtime); await server.connect(transport);
 * ```
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../version.ts";
import { errorEnvelope, toToolResult } from "./envelope.ts";
import { MemaError } from "../errors/mod.ts";
import { callMemoryTool } from "./memory_tool.ts";
import { MEMORY_ACTION_NAMES } from "./memory_schemas.ts";
import type { McpRuntime } from "./runtime.ts";

const MEMORY_TOOL_DESCRIPTION =
  `mema: a trusted local fact store. Store facts once, verbatim, and recall the few that matter.
Call as {"action": ..., "data": {...}}. Actions:
- remember {content, subject, workspace, tags?, source_type?, source_ref?, event_time?, confidence?, metadata?} → {memory_id, version}
- find {query?, workspace?, tags_filter?, after_time?, before_time?, source_type?, status?, limit?, offset?, content_mode?: preview|full} → {results, has_more, total_estimate, size}
- batch_find {queries: [string | {id, query}] (≤ 8), limit_per_query?, ...find filters}
- read {memory_id, span?: {start, end}, include_history?} → {content, version, ...}
- batch_read {memory_ids (≤ 10 full, ≤ 50 preview), spans?, content_mode?}
- update {memory_id, one of: new_content | old_text+new_text | patches[{old_text,new_text}] | tags_only+add_tags/remove_tags; new_subject?, new_tags?, reason?, expected_version?, expected_content_hash?}
- status {}, help {topic?} (JSON Schema of every action, with examples)
Search before you store; prefer updating a fact over storing a contradicting one.`;

/** The `memory` tool's MCP definition. */
export const MEMORY_TOOL = {
  name: "memory",
  title: "Memory",
  description: MEMORY_TOOL_DESCRIPTION,
  inputSchema: {
    type: "object" as const,
    properties: {
      action: { type: "string", enum: MEMORY_ACTION_NAMES, description: "the verb to run" },
      data: {
        type: "object",
        description: "the verb's fields; see help",
        additionalProperties: true,
      },
    },
    required: ["action"],
  },
  annotations: {
    title: "Memory",
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: false,
  },
};

/** Builds an MCP server bound to a runtime. */
export function createMcpServer(runtime: McpRuntime): Server {
  const server = new Server(
    { name: "mema", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "mema stores facts for you across sessions. Before answering from memory, call memory find; store durable facts with memory remember (one fact per memory, verbatim, with a subject and workspace).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [MEMORY_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name, arguments: args } = request.params;
    if (name !== "memory") {
      return toToolResult(errorEnvelope(
        new MemaError("unknown_action", `no tool named "${name}"`, {
          field: "name",
          didYouMean: "memory",
        }),
        runtime.capabilities(),
      ));
    }
    return toToolResult(callMemoryTool(runtime, args?.action, args?.data));
  });
  return server;
}
