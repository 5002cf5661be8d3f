/**
 * What the MCP layer serves from: the service context plus facts for `status`.
 * @module
 */
import { type CapabilityState, describeCapabilities } from "../capabilities/mod.ts";
import type { DetectionStages } from "../conflicts/detect.ts";
import type { ServiceContext } from "../core/context.ts";
import { DatabaseUnreachable } from "../errors/mod.ts";
import { StandingWarnings } from "./envelope.ts";

/** How this server detects conflicts. */
export interface ConflictSettings {
  stages: DetectionStages;
  /** How long a write response waits for the verdict (docs/SPEC.md §8 notice_sync_wait_ms). */
  waitMs: number;
  /** Where completed full scan rounds are logged. */
  scanLogPath: string;
}

/** A running server's state. */
export interface McpRuntime {
  ctx: ServiceContext;
  conflicts?: ConflictSettings;
  dbPath: string;
  startedAt: string;
  capabilities(): Promise<CapabilityState>;
  /** Which standing warnings each caller has been told (absent: told on every response). */
  standingWarnings?: StandingWarnings;
}

/**
 * The capability state for the next envelope to this runtime's caller: standing warnings
 * only the first time (every time with `all`, for `status`).
 */
export async function envelopeState(
  runtime: McpRuntime,
  options: { all?: boolean } = {},
): Promise<CapabilityState> {
  const state = await runtime.capabilities();
  if (!runtime.standingWarnings) return state;
  const { client, agentId } = runtime.ctx.caller;
  return runtime.standingWarnings.filter(`${client}\u0000${agentId}`, state, options);
}

/** Builds a runtime over a service context. */
export function createRuntime(
  ctx: ServiceContext,
  options: { dbPath: string; conflicts?: ConflictSettings },
): McpRuntime {
  return {
    ctx,
    conflicts: options.conflicts,
    dbPath: options.dbPath,
    startedAt: new Date().toISOString(),
    capabilities: async () =>
      describeCapabilities(
        ctx.store.capabilities,
        // A shared database that cannot be reached has no semantic state to count: the answer
        // says the database is away (capabilities.unreachable) instead.
        await ctx.semantic?.describe().catch((error) => {
          if (error instanceof DatabaseUnreachable) return undefined;
          throw error;
        }),
        ctx.judge?.describe(),
      ),
    standingWarnings: new StandingWarnings(),
  };
}
