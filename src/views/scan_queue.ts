/**
 * The scan queue as a page shows it: suspect pairs best first, optionally only the pairs whose
 * memories both belong to one workspace (or the global pool).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanQueueView } from "./scan_queue.ts";
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
 * const view = await scanQueueView(ctx, { pageSize: 20 });
 * assert.deepEqual(view.items, []); // nothing scanned yet
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { scanQueuePage } from "../conflicts/scan.ts";
import type { ServiceContext } from "../core/context.ts";
import { DEFAULT_WORKSPACE } from "../core/workspace_names.ts";

/** One side of a suspect pair. */
export interface ScanQueueSide {
  memory_id: number;
  version: number;
  current_version: number | null;
  subject: string | null;
  source_type: string | null;
  event_time: string | null;
  row_text: string;
}

/** One suspect pair. */
export interface ScanQueueItem {
  item_id: number;
  score: number;
  kind: string | null;
  reasons: string[];
  values: unknown;
  a: ScanQueueSide;
  b: ScanQueueSide;
}

/** A page of the queue. */
export interface ScanQueueView {
  items: ScanQueueItem[];
  nextPageToken: string | null;
  backlog: number;
  /** Items of this page left out because they belong to another workspace. */
  hiddenElsewhere: number;
}

/** A page of the scan queue; with `workspace`, only pairs within it (and the global pool). */
export async function scanQueueView(
  ctx: ServiceContext,
  input: { pageSize?: number; pageToken?: string; workspace?: string },
): Promise<ScanQueueView> {
  const page = await scanQueuePage(ctx, { pageSize: input.pageSize, pageToken: input.pageToken });
  let items = page.items as ScanQueueItem[];
  const total = items.length;
  if (input.workspace !== undefined) {
    const allowed = new Set([input.workspace, DEFAULT_WORKSPACE]);
    const ids = items.flatMap((item) => [item.a.memory_id, item.b.memory_id]);
    const memories = await ctx.store.read(async () => await ctx.store.getMemories(ids));
    const inScope = (id: number) => {
      const memory = memories.get(id);
      return memory !== undefined && allowed.has(memory.workspaceCanonical);
    };
    items = items.filter((item) => inScope(item.a.memory_id) && inScope(item.b.memory_id));
  }
  return {
    items,
    nextPageToken: (page.next_page_token as string | null) ?? null,
    backlog: Number(page.queue_backlog),
    hiddenElsewhere: total - items.length,
  };
}
