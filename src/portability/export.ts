/**
 * Export: the facts in force (active and pending memories) in id order, page by page, as
 * Markdown files with frontmatter or JSONL lines. Export only reads; what a purge removed is
 * simply not there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { exportPage } from "./export.ts";
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
 * const page = await exportPage(store, { afterId: 0, limit: 100 });
 * assert.deepEqual(page.memories.map((memory) => memory.id), [memoryId]);
 * assert.equal(page.hasMore, false);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { VERSION } from "../version.ts";
import type { MemoryStatus, Store } from "../store/mod.ts";
import { SCHEMA_GENERATION } from "../store/mod.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";
import { nowIso } from "../platform/clock.ts";
import { renderFrontmatter } from "./frontmatter.ts";
import { headingSlug } from "./markdown.ts";
import { EXPORT_FORMAT, type PortableMemory, portableMemory } from "./record.ts";
import {
  EXPORT_FILE_SUBJECT_CHARS,
  EXPORT_NAME_HASH_CHARS,
  EXPORT_NAME_MAX_BYTES,
  MCP_EXPORT_PAGE_CHARS,
  MCP_EXPORT_PAGE_DEFAULT,
  MCP_EXPORT_PAGE_MAX,
} from "./constants.ts";
import { MemaError } from "../errors/mod.ts";
import { contentSha } from "../memory/content_hash.ts";
import { utf8Bytes } from "../memory/normalize.ts";
import type { ServiceContext } from "../core/context.ts";
import { isStrict, strictWorkspace } from "../workspaces/access.ts";

/** The statuses an export carries: the facts in force, not retired or superseded ones. */
export const EXPORT_STATUSES: readonly MemoryStatus[] = ["active", "pending"];

/** Which memories to export. */
export interface ExportQuery {
  /** A workspace name (any spelling); undefined exports every workspace. */
  workspace?: string;
  /** Canonical workspace names (takes precedence over `workspace`). */
  workspaces?: readonly string[];
  /** Add every earlier version of each memory. */
  includeHistory?: boolean;
  /** Start after this memory id (0 for the first page). */
  afterId: number;
  limit: number;
  /**
   * The total an earlier page gave: counting again on every page cost O(library) per page,
   * quadratic over a large export.
   */
  knownTotal?: number;
}

/** One page of an export. */
export interface ExportPage {
  memories: PortableMemory[];
  hasMore: boolean;
  /** Memories the whole export holds (same filters). */
  total: number;
  /** The last id of this page: the next page's `afterId`. */
  lastId: number;
}

/** Reads one page of the export from one snapshot. */
export async function exportPage(store: Store, query: ExportQuery): Promise<ExportPage> {
  const filters = {
    statuses: EXPORT_STATUSES,
    workspaces: query.workspaces ??
      (query.workspace === undefined ? undefined : [canonicalWorkspace(query.workspace)]),
  };
  return await store.read(async () => {
    const rows = await store.memoryPage({
      ...filters,
      afterId: query.afterId,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const history = query.includeHistory ? await store.historyOf(page.map((m) => m.id)) : undefined;
    return {
      memories: page.map((m) => portableMemory(m, history ? history.get(m.id) ?? [] : undefined)),
      hasMore: rows.length > query.limit,
      total: query.knownTotal ?? await store.countMemories(filters),
      lastId: page.at(-1)?.id ?? query.afterId,
    };
  });
}

/** The first line of a JSONL export: what wrote it, so a reader can refuse a newer format. */
export function jsonlHeader(options: { workspace?: string; includeHistory?: boolean }): string {
  return JSON.stringify({
    type: "mema_export",
    format: EXPORT_FORMAT,
    mema_version: VERSION,
    schema_generation: SCHEMA_GENERATION,
    exported_at: nowIso(),
    workspace: options.workspace === undefined ? null : canonicalWorkspace(options.workspace),
    include_history: options.includeHistory === true,
  });
}

/** One memory as a JSONL line (no trailing newline). */
export function jsonlLine(memory: PortableMemory): string {
  return JSON.stringify({ type: "memory", ...memory });
}

/**
 * A name safe as one path segment on every file system mema runs on, at most `maxBytes`
 * UTF-8 bytes. A longer one keeps its first whole characters and ends with `-<hash>` of
 * `identity` (what the name stands for), so shortened names stay distinct and stable from
 * one export to the next.
 */
function safeSegment(text: string, fallback: string, maxBytes: number, identity: string): string {
  const cleaned = text.replace(/[^\p{L}\p{N}._-]+/gu, "-").replace(/^[-.]+|[-.]+$/g, "");
  if (cleaned === "") return fallback;
  if (utf8Bytes(cleaned) <= maxBytes) return cleaned;
  const suffix = `-${contentSha(identity).slice(0, EXPORT_NAME_HASH_CHARS)}`;
  let kept = "";
  let bytes = 0;
  for (const char of cleaned) {
    const size = utf8Bytes(char);
    if (bytes + size > maxBytes - suffix.length) break;
    kept += char;
    bytes += size;
  }
  return kept.replace(/[-.]+$/, "") + suffix;
}

/** The folder of a workspace in a Markdown export. */
export function workspaceFolder(workspaceCanonical: string): string {
  return safeSegment(workspaceCanonical, "default", EXPORT_NAME_MAX_BYTES, workspaceCanonical);
}

/**
 * One memory as a Markdown file: `<workspace>/<id>-<subject>.md`, frontmatter with every
 * field an import needs, then the content verbatim. Ids are zero-padded so files sort (and
 * are imported) in id order, which keeps `follows` pointing backwards.
 */
export function markdownFile(memory: PortableMemory): { path: string; text: string } {
  // Whole characters: cutting by UTF-16 units could split a surrogate pair.
  const slug = Array.from(headingSlug(memory.subject)).slice(0, EXPORT_FILE_SUBJECT_CHARS).join("");
  const id = String(memory.id).padStart(8, "0");
  const budget = EXPORT_NAME_MAX_BYTES - `${id}-.md`.length;
  const name = `${id}-${safeSegment(slug, "memory", budget, memory.subject)}.md`;
  const fields: Record<string, unknown> = {
    mema_id: memory.id,
    title: memory.subject,
    workspace: memory.workspace,
    tags: memory.tags,
    source_type: memory.source_type,
    source_ref: memory.source_ref ?? undefined,
    event_time: memory.event_time ?? undefined,
    ingest_time: memory.ingest_time,
    valid_from: memory.valid_from ?? undefined,
    valid_to: memory.valid_to ?? undefined,
    protection_level: memory.protection_level,
    confidence: memory.confidence,
    status: memory.status === "active" ? undefined : memory.status,
    version: memory.version,
    agent_id: memory.agent_id,
    client: memory.client,
    follows: memory.follows ?? undefined,
    metadata: Object.keys(memory.metadata).length > 0 ? memory.metadata : undefined,
  };
  return {
    path: `${workspaceFolder(memory.workspace_canonical)}/${name}`,
    text: renderFrontmatter(fields) + memory.content,
  };
}

/** What an agent asks the `export` view for. */
export interface ExportViewQuery {
  workspace?: string;
  format: "md" | "jsonl";
  /** The previous page's `nextCursor` (a memory id); absent for the first page. */
  cursor?: number;
  limit?: number;
}

/** One exported memory: a Markdown file (path and text) or a JSONL line. */
export interface ExportViewItem {
  memoryId: number;
  path?: string;
  text: string;
}

/** One bounded page of an export for an agent. */
export interface ExportView {
  format: "md" | "jsonl";
  items: ExportViewItem[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: number | null;
  hasMore: boolean;
  /** Memories the whole export holds. */
  total: number;
  returnedChars: number;
}

/**
 * The export as an agent reads it: pages of at most `limit` memories (≤ 100) that stop once
 * they hold {@linkcode MCP_EXPORT_PAGE_CHARS} characters (a memory is never cut; one larger
 * than that comes alone). Under strict isolation only the caller's own workspace.
 */
export async function exportView(ctx: ServiceContext, query: ExportViewQuery): Promise<ExportView> {
  let workspaces = query.workspace === undefined
    ? undefined
    : [canonicalWorkspace(query.workspace)];
  if (isStrict(ctx)) {
    const own = strictWorkspace(ctx);
    if (workspaces !== undefined && workspaces[0] !== own) {
      throw new MemaError(
        "invalid_input",
        `workspace isolation is strict: you can export only your own workspace "${own}"`,
        { field: "workspace", hint: "leave workspace out to export your own" },
      );
    }
    workspaces = [own];
  }
  const limit = Math.min(query.limit ?? MCP_EXPORT_PAGE_DEFAULT, MCP_EXPORT_PAGE_MAX);
  const page = await exportPage(ctx.store, { workspaces, afterId: query.cursor ?? 0, limit });
  const items: ExportViewItem[] = [];
  let chars = 0;
  for (const memory of page.memories) {
    const item: ExportViewItem = query.format === "md"
      ? { memoryId: memory.id, ...markdownFile(memory) }
      : { memoryId: memory.id, text: jsonlLine(memory) };
    if (items.length > 0 && chars + item.text.length > MCP_EXPORT_PAGE_CHARS) break;
    items.push(item);
    chars += item.text.length;
  }
  const hasMore = items.length < page.memories.length || page.hasMore;
  return {
    format: query.format,
    items,
    nextCursor: hasMore ? items.at(-1)!.memoryId : null,
    hasMore,
    total: page.total,
    returnedChars: chars,
  };
}
