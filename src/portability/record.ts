/**
 * The portable form of a memory: every stored field under the names of the MCP surface
 * (snake_case), as `mema export` writes it (JSONL lines, Markdown frontmatter) and the MCP
 * `export` view returns it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { portableMemory } from "./record.ts";
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
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * const portable = portableMemory((await store.getMemory(memoryId))!);
 * assert.equal(portable.workspace, "infra");
 * assert.equal(portable.content, "Deploys run on Fridays.");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { HistoryEntry, MemoryRecord } from "../store/mod.ts";

/** The format number written into exports; readers refuse a larger one. */
export const EXPORT_FORMAT = 1;

/** One earlier version of a memory. */
export interface PortableVersion {
  version: number;
  subject: string;
  content: string;
  content_sha: string;
  tags: string[];
  status: string;
  changed_at: string;
  changed_by: string;
  changed_by_client: string;
  reason: string | null;
  /** The version's validity window (absent in exports made before windows existed). */
  valid_from?: string | null;
  valid_to?: string | null;
}

/** One memory with every field needed to bring it back. */
export interface PortableMemory {
  id: number;
  subject: string;
  content: string;
  content_sha: string;
  tags: string[];
  workspace: string;
  workspace_canonical: string;
  source_type: string;
  source_ref: string | null;
  event_time: string | null;
  ingest_time: string;
  valid_from: string | null;
  valid_to: string | null;
  confidence: number;
  protection_level: string;
  status: string;
  version: number;
  agent_id: string;
  client: string;
  metadata: Record<string, unknown>;
  follows: number | null;
  superseded_by: number | null;
  created_at: string;
  updated_at: string;
  /** Earlier versions, oldest first (only with `--include-history`). */
  history?: PortableVersion[];
}

/** A stored memory (and optionally its history) in portable form. */
export function portableMemory(memory: MemoryRecord, history?: HistoryEntry[]): PortableMemory {
  const record: PortableMemory = {
    id: memory.id,
    subject: memory.subject,
    content: memory.content,
    content_sha: memory.contentSha,
    tags: memory.tags,
    workspace: memory.workspace,
    workspace_canonical: memory.workspaceCanonical,
    source_type: memory.sourceType,
    source_ref: memory.sourceRef,
    event_time: memory.eventTime,
    ingest_time: memory.ingestTime,
    valid_from: memory.validFrom,
    valid_to: memory.validTo,
    confidence: memory.confidence,
    protection_level: memory.protectionLevel,
    status: memory.status,
    version: memory.version,
    agent_id: memory.agentId,
    client: memory.client,
    metadata: memory.metadata,
    follows: memory.follows,
    superseded_by: memory.supersededBy,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
  };
  if (history !== undefined) {
    record.history = history.map((entry) => ({
      version: entry.version,
      subject: entry.subject,
      content: entry.content,
      content_sha: entry.contentSha,
      tags: entry.tags,
      status: entry.status,
      changed_at: entry.changedAt,
      changed_by: entry.changedBy,
      changed_by_client: entry.changedByClient,
      reason: entry.reason,
      valid_from: entry.validFrom,
      valid_to: entry.validTo,
    }));
  }
  return record;
}
