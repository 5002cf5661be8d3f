/**
 * One memory as a page shows it: the record with its provenance, every version with a diff
 * between any two, the memories it absorbed, the unresolved conflicts it belongs to and its
 * latest audit rows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { updateMemory } from "../memory/update.ts";
 * import { memoryPage } from "./memory_page.ts";
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
 * await updateMemory(ctx, {
 *   memoryId,
 *   edit: { kind: "replace_text", oldText: "Fridays", newText: "Mondays" },
 * });
 * const view = await memoryPage(ctx, { memoryId, fromVersion: 1, toVersion: 2 });
 * assert.match(view.history.diff!.unified, /-Deploys run on Fridays\./);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { type HistoryView, memoryHistory } from "../memory/history.ts";
import type { AuditRecord } from "../store/mod.ts";
import { auditView } from "./audit.ts";
import { type OpenConflictRef, openConflictsOf } from "./conflicts.ts";

/** How many audit rows the memory page lists. */
export const MEMORY_PAGE_AUDIT_ROWS = 20;

/** The memory page. */
export interface MemoryPageView {
  history: HistoryView;
  /** The memory this one continues, when it still exists. */
  follows?: { memoryId: number; subject: string };
  openConflicts: OpenConflictRef[];
  audit: AuditRecord[];
  auditTotal: number;
}

/** The memory page of `memoryId` (diff: `fromVersion` → `toVersion`, default the last change). */
export async function memoryPage(
  ctx: ServiceContext,
  input: { memoryId: number; fromVersion?: number; toVersion?: number },
): Promise<MemoryPageView> {
  const history = await memoryHistory(ctx, input);
  const followsId = history.memory.follows;
  const followed = followsId === null
    ? undefined
    : await ctx.store.read(async () => await ctx.store.getMemory(followsId));
  const audit = await auditView(ctx, { memoryId: input.memoryId, limit: MEMORY_PAGE_AUDIT_ROWS });
  return {
    history,
    follows: followed && followed.status !== "deleted"
      ? { memoryId: followed.id, subject: followed.subject }
      : undefined,
    openConflicts: (await openConflictsOf(ctx, [input.memoryId])).get(input.memoryId) ?? [],
    audit: audit.entries,
    auditTotal: audit.total,
  };
}
