/**
 * A PostgreSQL database that cannot be reached, told apart from every other failure: the
 * driver's connection errors, the operating system's network errors and the server's own
 * "shutting down" / "connection failure" SQLSTATEs. Such a failure becomes one clear
 * `storage_error` naming the database without its password. A write that certainly did not
 * commit is marked so that the write path saves a `remember` or `update` to the local JSONL
 * backup instead (docs/POSTGRES.md); one lost while committing is in doubt and is not saved.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseUnreachable } from "../../errors/mod.ts";
 * import { isUnreachable, markCommitInDoubt, unreachableError } from "./unreachable.ts";
 *
 * const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
 *   code: "ECONNREFUSED",
 * });
 * assert.equal(isUnreachable(refused), true);
 * assert.equal(isUnreachable(new Error("duplicate key")), false);
 * const error = unreachableError(refused, "postgres://team:s3cret@db/mema", "write");
 * assert.ok(!error.message.includes("s3cret"));
 * assert.match(error.message, /nothing was written/);
 * // Saved to the local backup instead, unless the connection went during COMMIT.
 * assert.ok(error instanceof DatabaseUnreachable);
 * const lost = unreachableError(markCommitInDoubt(refused), "postgres://db/mema", "write");
 * assert.ok(!(lost instanceof DatabaseUnreachable));
 * assert.match(lost.message, /may or may not have been written/);
 * ```
 * @module
 */
import { redactDbSecrets, redactDbUrl } from "../../config/db_url.ts";
import { DatabaseUnreachable, MemaError } from "../../errors/mod.ts";

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

/** Marks a connection failure that came while the transaction was committing. */
const IN_DOUBT = Symbol("commit in doubt");

/**
 * Marks `error`, thrown after a write unit's body returned (while COMMIT was on its way), as a
 * write whose outcome nobody knows: it may have committed. Such a write is never saved to the
 * backup (replay could then store it twice); the caller is told to look before retrying.
 */
export function markCommitInDoubt(error: unknown): unknown {
  if (error instanceof Error) (error as Error & { [IN_DOUBT]?: true })[IN_DOUBT] = true;
  return error;
}

function commitInDoubt(error: unknown): boolean {
  return error instanceof Error && (error as Error & { [IN_DOUBT]?: true })[IN_DOUBT] === true;
}

/**
 * The error a unit of work gives when the database at `url` cannot be reached. A write that
 * certainly did not commit is a {@linkcode DatabaseUnreachable}, which `isStorageFailure` recognises: the
 * write path then saves a `remember` or `update` to the local JSONL backup (memory/backup.ts),
 * as it does for a SQLite file that cannot be written.
 */
export function unreachableError(error: unknown, url: string, unit: "read" | "write"): MemaError {
  const reason = redactDbSecrets(error instanceof Error ? error.message : String(error), url);
  const where = `PostgreSQL at ${redactDbUrl(url)} cannot be reached (${reason})`;
  if (unit === "write" && commitInDoubt(error)) {
    return new MemaError(
      "storage_error",
      `${where} while the write was committing: it may or may not have been written`,
      {
        hint:
          "once the database answers, look for the change (find or read) before making it again",
      },
    );
  }
  return new DatabaseUnreachable(
    unit === "write"
      ? `${where}: nothing was written to it`
      : `${where}; remember and update are saved to the local backup meanwhile`,
    {
      hint:
        "retry once the database answers (the server reconnects by itself and replays the writes saved to its local backup); check that it is up and the network and credentials",
    },
  );
}
