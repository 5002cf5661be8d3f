/**
 * How far the PostgreSQL store has come, and the refusal every entry point gives while it is not
 * complete: a server pointed at PostgreSQL must not half-work (issue 33). Imports no driver, so
 * the SQLite store can ask it at no cost.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { postgresNotComplete } from "./readiness.ts";
 *
 * const error = postgresNotComplete("postgres://team:s3cret@db.example/mema");
 * assert.ok(!error.message.includes("s3cret"), "no password in an error");
 * ```
 * @module
 */
import { redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";

/**
 * What a server on PostgreSQL still lacks, in users' words. Every room of `StoreRepositories` is
 * implemented and tested against a real server (tests/store/*_contract_test.ts); what is missing
 * is around the store: the checks users rely on to see what they run on, and the proof that the
 * whole service works there.
 */
export const PG_MISSING: readonly string[] = [
  "the doctor and status checks of the database (connection, version, extensions, schema, vector path)",
  "the end-to-end tests on PostgreSQL and with two servers on one database",
  "writes kept in the local backup while the database is unreachable",
];

/** The refusal of a `db_url` while {@linkcode PG_MISSING} is not empty. */
export function postgresNotComplete(url: string): MemaError {
  return new MemaError(
    "config_invalid",
    `PostgreSQL backend: not complete in this version: the store is, but not yet ${
      PG_MISSING.join("; ")
    }; so mema will not serve ${redactDbUrl(url)}`,
    {
      field: "db_url",
      hint:
        "leave db_url (MEMA_DB_URL, --db-url) unset to use the SQLite file; docs/POSTGRES.md says what is done",
    },
  );
}
