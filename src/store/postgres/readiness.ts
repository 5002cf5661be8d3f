/**
 * What does not run on PostgreSQL yet, and the refusal a command gives when asked to (issue 33):
 * a command pointed at PostgreSQL either works there or says so, never half-works and never
 * falls back to the SQLite file. Imports no driver, so any command can ask it at no cost.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { postgresUnsupported } from "./readiness.ts";
 *
 * const error = postgresUnsupported("`mema frobnicate`", "postgres://team:s3cret@db.example/mema");
 * assert.match(error.message, /frobnicate/);
 * assert.ok(!error.message.includes("s3cret"), "no password in an error");
 * ```
 * @module
 */
import { redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";

/**
 * What a user may ask of mema on PostgreSQL that this version does not do, in users' words
 * (docs/POSTGRES.md lists them too).
 */
export const PG_UNSUPPORTED: readonly string[] = [];

/** The refusal of `what` (a command, in backquotes) on the PostgreSQL database at `url`. */
export function postgresUnsupported(what: string, url: string): MemaError {
  return new MemaError(
    "config_invalid",
    `${what} does not run on PostgreSQL in this version (db_url is ${redactDbUrl(url)})`,
    {
      field: "db_url",
      hint:
        "run it with db_url (MEMA_DB_URL, --db-url) unset, on a SQLite file; docs/POSTGRES.md says what runs on PostgreSQL",
    },
  );
}
