/**
 * The one response shape of every tool call (SPEC §5):
 * `{ok, mode, degraded, warnings[], data, notices?}`, sent as JSON text and as
 * `structuredContent`.
 *
 * @example
 * ```ts
 * import { successEnvelope } from "./src/mcp/envelope.ts";
 * successEnvelope({ memory_id: 1 }, { mode: "lexical", degraded: true, warnings: [] });
 * ```
 * @module
 */
import type { CapabilityState, RetrievalCapability } from "../capabilities/mod.ts";
import { isMemaError, MemaError } from "../errors/mod.ts";
import { isUnwritableError } from "../memory/backup.ts";
import { logWarn } from "../platform/mod.ts";

/** A tool response body. */
export interface Envelope {
  ok: boolean;
  mode: RetrievalCapability;
  degraded: boolean;
  warnings: string[];
  data: Record<string, unknown>;
  notices?: unknown[];
}

/** An MCP CallTool result carrying an envelope. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Envelope;
  isError?: boolean;
}

/** Builds a successful envelope. */
export function successEnvelope(
  data: Record<string, unknown>,
  state: CapabilityState,
  extraWarnings: readonly string[] = [],
): Envelope {
  return {
    ok: true,
    mode: state.mode,
    degraded: state.degraded,
    warnings: [...extraWarnings, ...state.warnings],
    data,
  };
}

/** The `data` of an error envelope. */
export function errorData(error: MemaError): Record<string, unknown> {
  const data: Record<string, unknown> = { error: error.code, reason: error.reason };
  if (error.field !== undefined) data.field = error.field;
  if (error.didYouMean !== undefined) data.did_you_mean = error.didYouMean;
  if (error.hint !== undefined) data.hint = error.hint;
  if (error.details) Object.assign(data, error.details);
  return data;
}

/** Builds an error envelope; unexpected errors are logged and reported as storage errors. */
export function errorEnvelope(error: unknown, state: CapabilityState): Envelope {
  let known: MemaError;
  if (isMemaError(error)) known = error;
  else if (isUnwritableError(error)) {
    // A write that has no backup route (retire, merge, judge…) on a full or read-only database.
    known = new MemaError(
      "storage_error",
      `the database cannot be written: ${(error as Error).message}`,
      {
        hint:
          "nothing was written; free disk space or make the database writable (the warnings say why), then retry",
      },
    );
  } else {
    logWarn(`unexpected error: ${error instanceof Error ? error.stack ?? error.message : error}`);
    known = new MemaError(
      "storage_error",
      `internal error: ${error instanceof Error ? error.message : String(error)}`,
      { hint: "nothing was written; run `mema doctor` and report this if it repeats" },
    );
  }
  return {
    ok: false,
    mode: state.mode,
    degraded: state.degraded,
    warnings: state.warnings,
    data: errorData(known),
  };
}

/** Wraps an envelope as an MCP tool result. */
export function toToolResult(envelope: Envelope): ToolResult {
  const result: ToolResult = {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    structuredContent: envelope,
  };
  if (!envelope.ok) result.isError = true;
  return result;
}
