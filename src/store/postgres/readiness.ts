/**
 * How far the PostgreSQL store has come, and the refusal every entry point gives while it is not
 * complete: a server pointed at PostgreSQL must not half-work (issue 33). Imports no driver, so
 * the SQLite store can ask it at no cost.
 *
 * @example
 * ```ts
 * import { postgresNotComplete } from "./src/store/postgres/readiness.ts";
 * const error = postgresNotComplete("postgres://team:s3cret@db.example/mema");
 * if (error.message.includes("s3cret")) throw new Error("a password in an error");
 * ```
 * @module
 */
import { redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";

/** Rooms of `StoreRepositories` not yet implemented on PostgreSQL, in the services' words. */
export const PG_ROOMS_MISSING: readonly string[] = [
  "upgrade",
];

/** The refusal of a `db_url` while {@linkcode PG_ROOMS_MISSING} is not empty. */
export function postgresNotComplete(url: string): MemaError {
  return new MemaError(
    "config_invalid",
    `PostgreSQL backend: not complete in this version: ${
      PG_ROOMS_MISSING.join(", ")
    } are not implemented on PostgreSQL yet, so mema will not serve ${redactDbUrl(url)}`,
    {
      field: "db_url",
      hint:
        "leave db_url (MEMA_DB_URL, --db-url) unset to use the SQLite file; docs/POSTGRES.md says what is done",
    },
  );
}
