/**
 * What the MCP layer serves from: the service context plus facts for `status`.
 * @module
 */
import { type CapabilityState, describeCapabilities } from "../capabilities/mod.ts";
import type { ServiceContext } from "../memory/context.ts";

/** A running server's state. */
export interface McpRuntime {
  ctx: ServiceContext;
  dbPath: string;
  startedAt: string;
  capabilities(): CapabilityState;
}

/** Builds a runtime over a service context. */
export function createRuntime(ctx: ServiceContext, options: { dbPath: string }): McpRuntime {
  return {
    ctx,
    dbPath: options.dbPath,
    startedAt: new Date().toISOString(),
    capabilities: () => describeCapabilities(ctx.store.capabilities, ctx.semantic?.describe()),
  };
}
