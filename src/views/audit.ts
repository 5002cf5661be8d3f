/**
 * The audit view: governance and tag changes, newest first, with paging.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { retireMemory } from "../govern/lifecycle.ts";
 * import { auditView } from "./audit.ts";
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
 * await retireMemory(ctx, { memoryId, reason: "deploys moved", authorized: true });
 * const audit = await auditView(ctx, { memoryId });
 * assert.equal(audit.entries.length, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { AuditRecord } from "../store/mod.ts";
import { isStrict, strictWorkspace } from "../workspaces/access.ts";

/** Page size when the caller gives none. */
export const AUDIT_PAGE_DEFAULT = 50;

/** Which audit rows to show. */
export interface AuditFilter {
  memoryId?: number;
  action?: string;
  agentId?: string;
  afterTime?: string;
  limit?: number;
  offset?: number;
}

/** One page of audit rows. */
export interface AuditView {
  entries: AuditRecord[];
  total: number;
  hasMore: boolean;
  offset: number;
  limit: number;
}

/** Audit rows matching `filter`, newest first. */
export async function auditView(ctx: ServiceContext, filter: AuditFilter): Promise<AuditView> {
  const { store } = ctx;
  const limit = filter.limit ?? AUDIT_PAGE_DEFAULT;
  const offset = filter.offset ?? 0;
  const { rows, total } = await store.read(async () =>
    await store.listAudit({
      memoryId: filter.memoryId,
      action: filter.action,
      agentId: filter.agentId,
      after: filter.afterTime,
      workspace: isStrict(ctx) ? strictWorkspace(ctx) : undefined,
      limit,
      offset,
    })
  );
  return { entries: rows, total, hasMore: offset + rows.length < total, offset, limit };
}
