/**
 * mcp-memory-service's JSON export (its `MemoryExporter`, read back by its own
 * `MemoryImporter`): `{"export_metadata": {"source_machine", "export_timestamp", …},
 * "memories": [...]}`, each memory with `content`, `content_hash`, `tags`, `memory_type`,
 * `metadata`, `created_at` / `updated_at` (Unix seconds; `created_at_iso` beside them in its
 * API answers). A bare array of memories, or its API's `{"memories": [...]}`, reads the same.
 *
 * Mapping: `content` is the content and (first line) the subject; `tags` the tags;
 * `created_at` (else `created_at_iso`) the event time; `metadata.agent_id` (or `agent_id`)
 * the author, client `mcp-memory-service`; the workspace is `--workspace` (else `default`);
 * `source_ref` is `mcp-memory-service:<content_hash>`. `memory_type`, `updated_at`, the hash
 * and the export's `source_machine` stay in `metadata.mcp_memory_service`, the memory's own
 * metadata beside it. Trust: `agent_generated` (agents stored these facts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcpMemoryServiceUnits } from "./mcp_memory_service.ts";
 *
 * const read = mcpMemoryServiceUnits(JSON.stringify({
 *   export_metadata: { source_machine: "laptop" },
 *   memories: [{ content: "Staging uses port 8443", content_hash: "9f2a", tags: ["infra"], created_at: 1717171717 }],
 * }), { path: "export.json", workspacePer: "project" });
 * assert.deepEqual(read.units[0].items[0].tags, ["infra"]);
 * assert.equal(read.units[0].items[0].sourceRef, "mcp-memory-service:9f2a");
 * ```
 * @module
 */
import type { ImportUnit } from "../import_types.ts";
import { factSubject } from "./fact_subject.ts";
import { walkRecords } from "./record_walk.ts";
import { fieldsOf, isRecord } from "./records.ts";
import type { FormatOptions, FormatRead } from "./types.ts";

function memoryUnit(
  record: unknown,
  at: string,
  sourceMachine: string | undefined,
  options: FormatOptions,
): ImportUnit {
  const fields = fieldsOf(record, at, "a memory");
  const content = fields.requiredText("content");
  const hash = fields.text("content_hash");
  const own = fields.map("metadata");
  const agentId = typeof own.agent_id === "string" ? own.agent_id : fields.text("agent_id");
  const createdAt = fields.time("created_at") ?? fields.time("created_at_iso");
  const updatedAt = fields.time("updated_at") ?? fields.time("updated_at_iso");
  const service: Record<string, string> = {};
  const memoryType = fields.text("memory_type");
  if (memoryType) service.memory_type = memoryType;
  if (hash) service.content_hash = hash;
  if (createdAt) service.created_at = createdAt;
  if (updatedAt) service.updated_at = updatedAt;
  if (sourceMachine) service.source_machine = sourceMachine;
  return {
    path: options.path,
    line: 1,
    items: [{
      subject: factSubject(content),
      content,
      workspace: options.workspace,
      tags: fields.tags("tags"),
      sourceType: options.sourceType ?? "agent_generated",
      sourceRef: hash ? `mcp-memory-service:${hash}` : undefined,
      eventTime: createdAt,
      metadata: { ...own, mcp_memory_service: service },
      origin: { agentId, client: "mcp-memory-service" },
      line: 1,
      at,
    }],
  };
}

/** The machine the export names in its header, when it has one. */
function sourceMachineOf(parsed: unknown): string | undefined {
  const header = isRecord(parsed) && isRecord(parsed.export_metadata) ? parsed.export_metadata : {};
  return typeof header.source_machine === "string" ? header.source_machine : undefined;
}

/** Reads an mcp-memory-service export; see the module documentation. */
export function mcpMemoryServiceUnits(text: string, options: FormatOptions): FormatRead {
  return walkRecords(text, { path: options.path, keys: ["memories"] }, (record, at, walk) => ({
    unit: memoryUnit(record, at, sourceMachineOf(walk.parsed), options),
  }));
}
