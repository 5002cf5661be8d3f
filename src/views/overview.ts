/**
 * The overview: counts by status, trust and workspace, capability state, jobs, the conflict
 * backlog, pending backup entries and the latest audit rows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { overviewView } from "./overview.ts";
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
 * const overview = await overviewView(ctx);
 * assert.equal(overview.memories.byStatus.active, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { type CapabilityState, unwritableReason } from "../capabilities/mod.ts";
import { readBackup } from "../memory/backup.ts";
import type { ServiceContext } from "../core/context.ts";
import type { AuditRecord, Store, StoreBackend } from "../store/mod.ts";
import { VERSION } from "../version.ts";
import { capabilityState } from "./status.ts";
import { isStrict, strictWorkspace } from "../workspaces/access.ts";

/** How many audit rows the overview shows. */
export const OVERVIEW_RECENT_AUDIT = 5;

/** The overview. */
export interface OverviewView {
  version: string;
  memories: {
    byStatus: Record<string, number>;
    bySourceType: Record<string, number>;
    byProtection: Record<string, number>;
    byWorkspace: Record<string, number>;
  };
  historyVersions: number;
  /** On PostgreSQL: what the database is (absent on the SQLite file). */
  backend?: StoreBackend;
  /** Conflict groups by status. */
  conflicts: Awaited<ReturnType<Store["conflicts"]["backlog"]>>;
  capabilities: CapabilityState & {
    writable: boolean;
    /** Why it cannot be written now, when it cannot. */
    unwritableReason: string | null;
    vectorState: string;
    embeddedRows: number;
    rows: number;
  };
  jobs: Record<string, Record<string, number>>;
  backup: { path: string | null; pendingEntries: number };
  recentAudit: AuditRecord[];
}

/** The overview of the database behind `ctx`. */
export async function overviewView(ctx: ServiceContext): Promise<OverviewView> {
  const { store, semantic, settings } = ctx;
  // Strict isolation: the caller's own workspace only (counts and audit).
  const own = isStrict(ctx) ? strictWorkspace(ctx) : undefined;
  const counts = await store.read(async () => ({
    overview: await store.overviewCounts(own),
    history: await store.countHistory(),
    jobs: await store.countJobs(),
    audit: await store.listAudit({ limit: OVERVIEW_RECENT_AUDIT, offset: 0, workspace: own }),
    backlog: await store.conflicts.backlog(),
  }));
  const backup = settings.backupPath ? readBackup(settings.backupPath) : undefined;
  const pendingBackup = backup
    ? await store.read(async () => {
      let pending = 0;
      for (const e of backup.entries) if (!await store.replayOutcome(e.id)) pending++;
      return pending;
    })
    : 0;
  const state = await capabilityState(ctx);
  const vector = await semantic?.describe();
  return {
    version: VERSION,
    memories: {
      byStatus: counts.overview.byStatus,
      bySourceType: counts.overview.bySource,
      byProtection: counts.overview.byProtection,
      byWorkspace: counts.overview.byWorkspace,
    },
    historyVersions: counts.history,
    ...(store.backend === undefined ? {} : { backend: store.backend }),
    conflicts: counts.backlog,
    capabilities: {
      ...state,
      writable: unwritableReason(store.capabilities) === undefined,
      unwritableReason: unwritableReason(store.capabilities) ?? null,
      vectorState: vector?.state ?? "off",
      embeddedRows: vector?.embeddedRows ?? 0,
      rows: vector?.rows ?? 0,
    },
    jobs: counts.jobs,
    backup: { path: settings.backupPath ?? null, pendingEntries: pendingBackup },
    recentAudit: counts.audit.rows,
  };
}
