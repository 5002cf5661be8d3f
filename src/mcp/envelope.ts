/**
 * The one response shape of every tool call (docs/SPEC.md §5):
 * `{ok, mode, degraded, warnings[], data, notices?}`, sent as JSON text and as
 * `structuredContent`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { successEnvelope } from "./envelope.ts";
 *
 * const envelope = successEnvelope({ memory_id: 1 }, {
 *   mode: "lexical",
 *   degraded: false,
 *   warnings: [],
 * });
 * assert.equal(envelope.ok, true);
 * assert.deepEqual(envelope.data, { memory_id: 1 });
 * ```
 * @module
 */
import type { CapabilityState, RetrievalCapability } from "../capabilities/mod.ts";
import { isMemaError, MemaError } from "../errors/mod.ts";
import { isUnwritableError } from "../memory/backup.ts";
import { logWarn } from "../platform/log.ts";
import { fitAnswer } from "./answer_budget.ts";
import { ANSWER_MAX_BYTES } from "./answer_constants.ts";
import { fitsUtf8, utf8Length } from "./answer_bytes.ts";

/** A tool response body. */
export interface Envelope {
  ok: boolean;
  mode: RetrievalCapability;
  degraded: boolean;
  warnings: string[];
  data: Record<string, unknown>;
  /**
   * What the caller should know besides its answer: at most the notices a handler attaches to
   * its own response (a write's verdict, a new workspace) and one `notice_summary` (counts and
   * the call that lists them) — never the bodies of a backlog (src/conflicts/notices.ts).
   */
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

/**
 * Identities remembered by `StandingWarnings` before it starts over (then each is told once
 * more; harmless). A stdio process has one; an HTTP server one per client identity.
 */
const STANDING_IDENTITIES_MAX = 1_000;

/**
 * Tells each connection the standing warnings (`CapabilityState.standing`: no embedding
 * model, …) once instead of on every response. Stdio serves one connection per process, so
 * this is once per process. HTTP is stateless (no session), so a "connection" is one client
 * identity (X-Mema-Client + X-Mema-Agent-Id) for the life of the server process.
 */
export class StandingWarnings {
  #told = new Map<string, Set<string>>();

  /**
   * The state to put in an envelope for `identity`: the standing warnings it has not been
   * told yet (all of them when `all`, as `status` wants), and every other warning.
   */
  filter(
    identity: string,
    state: CapabilityState,
    options: { all?: boolean } = {},
  ): CapabilityState {
    const standing = state.standing ?? [];
    if (standing.length === 0) return state;
    let told = this.#told.get(identity);
    if (!told) {
      if (this.#told.size >= STANDING_IDENTITIES_MAX) this.#told.clear();
      told = new Set();
      this.#told.set(identity, told);
    }
    const warnings = state.warnings.filter((warning) =>
      options.all || !standing.includes(warning) || !told.has(warning)
    );
    for (const warning of standing) told.add(warning);
    return { ...state, warnings };
  }
}

/**
 * Marks a `data` whose `results` the text block writes as rows (`fields` + `rows`): a lean
 * recall page. A symbol, so neither the text nor `structuredContent` carries the mark.
 */
export const RESULTS_AS_ROWS: unique symbol = Symbol("mema.results_as_rows");

/**
 * The text block of an envelope. A lean recall page's `results` become `fields` (every key
 * any result has, in order of first use) and `rows` (one array per result in `fields` order,
 * null where a result has no such field): the keys are written once instead of once per
 * result. Everything else is the envelope's JSON as is.
 */
export function envelopeText(envelope: Envelope): string {
  const data = envelope.data as Record<string | symbol, unknown>;
  if (data[RESULTS_AS_ROWS] !== true || !Array.isArray(data.results)) {
    return JSON.stringify(envelope);
  }
  const results = data.results as Record<string, unknown>[];
  const fields: string[] = [];
  for (const result of results) {
    for (const key of Object.keys(result)) if (!fields.includes(key)) fields.push(key);
  }
  const rows = results.map((result) => fields.map((field) => result[field] ?? null));
  const { results: _results, ...rest } = envelope.data;
  return JSON.stringify({ ...envelope, data: { fields, rows, ...rest } });
}

/** Turns a text block's `fields` + `rows` back into `results` objects (nulls left out). */
export function rowsToResults(
  fields: readonly string[],
  rows: readonly unknown[][],
): Record<string, unknown>[] {
  return rows.map((row) => {
    const result: Record<string, unknown> = {};
    fields.forEach((field, index) => {
      if (row[index] !== null && row[index] !== undefined) result[field] = row[index];
    });
    return result;
  });
}

function wrap(envelope: Envelope): ToolResult {
  const result: ToolResult = {
    content: [{ type: "text", text: envelopeText(envelope) }],
    structuredContent: envelope,
  };
  if (!envelope.ok) result.isError = true;
  return result;
}

/** The UTF-8 bytes of the serialized tool result an envelope becomes (text block included). */
export function measureToolResult(envelope: Envelope): number {
  return utf8Length(JSON.stringify(wrap(envelope)));
}

/**
 * Wraps an envelope as an MCP tool result, cut to the answer budget first
 * (answer_budget.ts): the text block repeats `structuredContent` (the MCP spec asks for
 * that, for clients that read only text), so the budget holds for the two together.
 */
export function toToolResult(
  envelope: Envelope,
  options: { maxBytes?: number } = {},
): ToolResult {
  const result = wrap(envelope);
  // Most answers are far below the budget: one serialization tells, and is kept.
  if (fitsUtf8(JSON.stringify(result), options.maxBytes ?? ANSWER_MAX_BYTES)) return result;
  return wrap(fitAnswer(envelope, { maxBytes: options.maxBytes, measure: measureToolResult }));
}
