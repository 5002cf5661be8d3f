/**
 * A PostgreSQL database that cannot be reached, told apart from every other failure: the
 * driver's connection errors, the operating system's network errors and the server's own
 * "shutting down" / "connection failure" SQLSTATEs. Such a failure becomes one clear
 * `storage_error` naming the database without its password. This version does not save writes
 * to the local JSONL backup while the database is unreachable (docs/POSTGRES.md), so a write
 * says that nothing was written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isUnreachable, unreachableError } from "./unreachable.ts";
 *
 * const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
 *   code: "ECONNREFUSED",
 * });
 * assert.equal(isUnreachable(refused), true);
 * assert.equal(isUnreachable(new Error("duplicate key")), false);
 * const error = unreachableError(refused, "postgres://team:s3cret@db/mema", "write");
 * assert.ok(!error.message.includes("s3cret"));
 * assert.match(error.message, /nothing was written/);
 * ```
 * @module
 */
import { redactDbSecrets, redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";

/** postgres.js's own codes for a connection that could not open or was lost. */
const DRIVER_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/** The operating system's codes for a server that is not there. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "ETIMEDOUT",
  "ENOENT",
]);

/**
 * True when `error` says the database could not be reached (or went away mid-call): SQLSTATE
 * class 08 (connection exception) and 57P01-57P03 (the server shutting down or starting) count.
 */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = String((error as { code?: unknown }).code ?? "");
  return DRIVER_CODES.has(code) || NETWORK_CODES.has(code) || code.startsWith("08") ||
    code === "57P01" || code === "57P02" || code === "57P03";
}

/** The error a unit of work gives when the database at `url` cannot be reached. */
export function unreachableError(error: unknown, url: string, unit: "read" | "write"): MemaError {
  const reason = redactDbSecrets(error instanceof Error ? error.message : String(error), url);
  return new MemaError(
    "storage_error",
    `PostgreSQL at ${redactDbUrl(url)} cannot be reached (${reason})${
      unit === "write"
        ? ": nothing was written, and this version does not save writes to the local backup while PostgreSQL is unreachable"
        : ""
    }`,
    {
      hint:
        "retry once the database answers (the server reconnects by itself); check that it is up and the network and credentials",
    },
  );
}
