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
import { MEMORY_VERB_TOOL } from "./memory_tool.ts";
import { REPAIR_VERB_TOOL } from "./repair_tool.ts";
import { callVerbTool, type VerbTool } from "./verb_tool.ts";
import { closestName } from "../text/closest_name.ts";
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

const REPAIR_TOOL_DESCRIPTION =
  `mema maintenance of derived data. Call as {"task": ..., "data": {...}}.
- rebuild_evidence {dry_run? (default true), batch_size?}: rebuild rows and vectors after an embedding-model change; repeat with dry_run:false until complete:true
- semantic_control {action: status|unload}
- help {topic?}`;

/** An MCP tool definition for a verb tool. */
function toolDefinition(tool: VerbTool, description: string, title: string) {
  return {
    name: tool.name,
    title,
    description,
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
    annotations: { title, readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  };
}

const TOOLS = [
  {
    tool: MEMORY_VERB_TOOL,
    definition: toolDefinition(MEMORY_VERB_TOOL, MEMORY_TOOL_DESCRIPTION, "Memory"),
  },
  {
    tool: REPAIR_VERB_TOOL,
    definition: toolDefinition(REPAIR_VERB_TOOL, REPAIR_TOOL_DESCRIPTION, "Memory repair"),
  },
];

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
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((entry) => entry.definition),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const entry = TOOLS.find((candidate) => candidate.tool.name === name);
    if (!entry) {
      return toToolResult(errorEnvelope(
        new MemaError("unknown_action", `no tool named "${name}"`, {
          field: "name",
          didYouMean: closestName(name, TOOLS.map((t) => t.tool.name)),
        }),
        runtime.capabilities(),
      ));
    }
    return toToolResult(await callVerbTool(entry.tool, runtime, args));
  });
  return server;
}
