/**
 * Export: the facts in force (active and pending memories) in id order, page by page, as
 * Markdown files with frontmatter or JSONL lines. Export only reads; what a purge removed is
 * simply not there.
 *
 * @example
 * ```ts
 * import { exportPage } from "./src/portability/export.ts";
 * // exportPage(store, { afterId: 0, limit: 100 }) → { memories: [...], hasMore: false, total: 12 }
 * ```
 * @module
 */
import { VERSION } from "../version.ts";
import type { MemoryStatus, Store } from "../store/mod.ts";
import { SCHEMA_GENERATION } from "../store/mod.ts";
import { canonicalWorkspace } from "../workspaces/canonical.ts";
import { nowIso } from "../platform/mod.ts";
import { renderFrontmatter } from "./frontmatter.ts";
import { headingSlug } from "./markdown.ts";
import { EXPORT_FORMAT, type PortableMemory, portableMemory } from "./record.ts";
import { EXPORT_FILE_SUBJECT_CHARS } from "./constants.ts";

/** The statuses an export carries: the facts in force, not retired or superseded ones. */
export const EXPORT_STATUSES: readonly MemoryStatus[] = ["active", "pending"];

/** Which memories to export. */
export interface ExportQuery {
  /** A workspace name (any spelling); undefined exports every workspace. */
  workspace?: string;
  /** Add every earlier version of each memory. */
  includeHistory?: boolean;
  /** Start after this memory id (0 for the first page). */
  afterId: number;
  limit: number;
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
export function exportPage(store: Store, query: ExportQuery): ExportPage {
  const filters = {
    statuses: EXPORT_STATUSES,
    workspaces: query.workspace === undefined ? undefined : [canonicalWorkspace(query.workspace)],
  };
  return store.read(() => {
    const rows = store.memoryPage({ ...filters, afterId: query.afterId, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const history = query.includeHistory ? store.historyOf(page.map((m) => m.id)) : undefined;
    return {
      memories: page.map((m) => portableMemory(m, history ? history.get(m.id) ?? [] : undefined)),
      hasMore: rows.length > query.limit,
      total: store.countMemories(filters),
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

/** A name safe as one path segment on every file system mema runs on. */
function safeSegment(text: string, fallback: string): string {
  const cleaned = text.replace(/[^\p{L}\p{N}._-]+/gu, "-").replace(/^[-.]+|[-.]+$/g, "");
  return cleaned === "" ? fallback : cleaned;
}

/**
 * One memory as a Markdown file: `<workspace>/<id>-<subject>.md`, frontmatter with every
 * field an import needs, then the content verbatim. Ids are zero-padded so files sort (and
 * are imported) in id order, which keeps `follows` pointing backwards.
 */
export function markdownFile(memory: PortableMemory): { path: string; text: string } {
  const slug = headingSlug(memory.subject).slice(0, EXPORT_FILE_SUBJECT_CHARS);
  const name = `${String(memory.id).padStart(8, "0")}-${safeSegment(slug, "memory")}.md`;
  const fields: Record<string, unknown> = {
    mema_id: memory.id,
    title: memory.subject,
    workspace: memory.workspace,
    tags: memory.tags,
    source_type: memory.source_type,
    source_ref: memory.source_ref ?? undefined,
    event_time: memory.event_time ?? undefined,
    ingest_time: memory.ingest_time,
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
    path: `${safeSegment(memory.workspace_canonical, "default")}/${name}`,
    text: renderFrontmatter(fields) + memory.content,
  };
}
