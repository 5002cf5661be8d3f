/**
 * The status view: counts, capability state, evidence coverage and jobs of one database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { statusView } from "./status.ts";
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
 * assert.equal((await statusView(ctx)).memories.active, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import {
  type CapabilityState,
  describeCapabilities,
  unwritableReason,
} from "../capabilities/mod.ts";
import type { JudgeReport } from "../conflicts/judge_state.ts";
import type { ServiceContext } from "../core/context.ts";
import { SCHEMA_GENERATION, type StoreBackend, type StoreCapabilities } from "../store/mod.ts";
import { VERSION } from "../version.ts";
import { isStrict, strictWorkspace } from "../workspaces/access.ts";
import { recallBlacklist } from "../workspaces/blacklist.ts";

/** What the semantic index reports about itself (`undefined` when none is configured). */
export interface VectorSummary {
  state: string;
  modelId: string | null;
  space: string | null;
  /** Rows with a current vector / rows in total, as the index counts them (cached). */
  embeddedRows: number;
  rows: number;
  warning: string | null;
  fix: string | null;
}

/** The status view. */
export interface StatusView {
  version: string;
  /** The SQLite file, or the PostgreSQL URL without its password. */
  database: string;
  schemaGeneration: number;
  /**
   * On PostgreSQL: the server's version, the schema version and the vector path in use
   * (absent on the SQLite file).
   */
  backend?: StoreBackend;
  identity: { client: string; agentId: string };
  memories: Record<string, number>;
  historyVersions: number;
  capabilities: CapabilityState;
  store: StoreCapabilities;
  writable: boolean;
  /** Why the database cannot take writes now (see `unwritableReason`), when it cannot. */
  unwritableReason?: string;
  vector: VectorSummary;
  /** The conflict judge: off, ready or unavailable (with why and the fix). */
  judge: JudgeReport;
  evidence: { rows: number; embeddedRows: number; coverage: number | null };
  jobs: Record<string, Record<string, number>>;
  workspaceIsolation: string;
  /** The caller's own workspace, if it has one. */
  workspace: string | null;
  /** Workspaces unscoped searches leave out (`recall_blacklist.jsonl`). */
  recallBlacklist: string[];
}

/** The capability state every response reports, computed from the context alone. */
export async function capabilityState(ctx: ServiceContext): Promise<CapabilityState> {
  return describeCapabilities(
    ctx.store.capabilities,
    await ctx.semantic?.describe(),
    ctx.judge?.describe(),
  );
}

/** Status of the database behind `ctx`. */
export async function statusView(ctx: ServiceContext): Promise<StatusView> {
  const { store, semantic } = ctx;
  // Strict isolation counts the caller's own workspace only.
  const own = isStrict(ctx) ? strictWorkspace(ctx) : undefined;
  const counts = await store.read(async () => ({
    byStatus: await store.countByStatus(own),
    history: await store.countHistory(),
    jobs: await store.countJobs(),
  }));
  const capabilities = await capabilityState(ctx);
  const vector = await semantic?.describe();
  const evidence = await store.read(async () => await store.countRowsToEmbed(vector?.indexedSpace));
  const embedded = vector?.indexedSpace === undefined ? 0 : evidence.rows - evidence.pending;
  return {
    version: VERSION,
    database: store.path,
    schemaGeneration: SCHEMA_GENERATION,
    ...(store.backend === undefined ? {} : { backend: store.backend }),
    identity: { client: ctx.caller.client, agentId: ctx.caller.agentId },
    memories: counts.byStatus,
    historyVersions: counts.history,
    capabilities,
    store: store.capabilities,
    writable: unwritableReason(store.capabilities) === undefined,
    unwritableReason: unwritableReason(store.capabilities),
    vector: {
      state: vector?.state ?? "off",
      modelId: vector?.modelId ?? null,
      space: vector?.space ?? vector?.indexedSpace ?? null,
      embeddedRows: vector?.embeddedRows ?? 0,
      rows: vector?.rows ?? 0,
      warning: vector?.warning ?? null,
      fix: vector?.fix ?? null,
    },
    judge: ctx.judge?.describe() ?? { state: "off" },
    evidence: {
      rows: evidence.rows,
      embeddedRows: embedded,
      coverage: evidence.rows > 0 && vector?.indexedSpace !== undefined
        ? Math.round((embedded / evidence.rows) * 10_000) / 10_000
        : null,
    },
    jobs: counts.jobs,
    workspaceIsolation: ctx.settings.workspaceIsolation,
    workspace: ctx.caller.workspace ?? null,
    recallBlacklist: own === undefined ? recallBlacklist(ctx.settings.recallBlacklistPath) : [],
  };
}
