/**
 * The single error type services throw. Only `src/mcp/` turns it into an MCP
 * envelope and only `src/cli/` into an exit code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemaError } from "./mod.ts";
 *
 * const error = new MemaError("not_found", "memory 7 does not exist", { field: "memory_id" });
 * assert.throws(() => {
 *   throw error;
 * }, MemaError);
 * assert.equal(error.code, "not_found");
 * assert.equal(error.field, "memory_id");
 * ```
 * @module
 */

/** Machine-readable error codes; agents branch on these, so they never get renamed. */
export type ErrorCode =
  | "invalid_input"
  | "resource_limit_exceeded"
  | "not_found"
  | "version_conflict"
  | "duplicate_content"
  | "identity_mismatch"
  | "download_failed"
  | "integrity_mismatch"
  | "unknown_action"
  | "config_invalid"
  | "identity_missing"
  | "schema_mismatch"
  | "storage_busy"
  | "provider_unavailable"
  | "storage_error";

/** Extra, optional facts about an error. */
export interface MemaErrorOptions {
  /** The input field at fault, as a dotted path (`data.span.start`). */
  field?: string;
  /** What the caller can do about it. */
  hint?: string;
  /** The real name closest to a misspelled one. */
  didYouMean?: string;
  /** Structured numbers such as actual and maximum sizes. */
  details?: Record<string, unknown>;
  /** The underlying error, kept for diagnostics. */
  cause?: unknown;
}

/** An expected failure with a code, the field at fault, a reason and a hint. */
export class MemaError extends Error {
  readonly code: ErrorCode;
  readonly field?: string;
  readonly reason: string;
  readonly hint?: string;
  readonly didYouMean?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, reason: string, options: MemaErrorOptions = {}) {
    super(reason, { cause: options.cause });
    this.name = "MemaError";
    this.code = code;
    this.reason = reason;
    this.field = options.field;
    this.hint = options.hint;
    this.didYouMean = options.didYouMean;
    this.details = options.details;
  }
}

/**
 * A `storage_error` for a database that cannot be reached (PostgreSQL), thrown by a unit of work
 * that certainly wrote nothing: the write path saves a `remember` or `update` to the local JSONL
 * backup instead, as it does for a SQLite file that cannot be written (store/read_only.ts).
 */
export class DatabaseUnreachable extends MemaError {
  constructor(reason: string, options: MemaErrorOptions = {}) {
    super("storage_error", reason, options);
    this.name = "DatabaseUnreachable";
  }
}

/** True when `error` is a MemaError. */
export function isMemaError(error: unknown): error is MemaError {
  return error instanceof MemaError;
}
