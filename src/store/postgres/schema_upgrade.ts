/**
 * `mema upgrade` on PostgreSQL: the pending schema migrations applied in one transaction (the
 * same ones a server applies when it opens the database, migrations.ts), and the schema version
 * before and after. Idempotent: an up-to-date database is read, never written; one at a later
 * version than this build's is refused. With `dryRun`, only read.
 *
 * @example
 * Not run by `deno test --doc`: it needs a PostgreSQL server (scripts/test_postgres.ts).
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { upgradePostgresSchema } from "./schema_upgrade.ts";
 *
 * const result = await upgradePostgresSchema(Deno.env.get("MEMA_TEST_PG_URL")!, {});
 * assert.equal(result.after, result.latest);
 * ```
 * @module
 */
import { redactDbSecrets, redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";
import { connectPostgres } from "./connect.ts";
import { migratePostgres, PG_MIGRATIONS, PG_SCHEMA_VERSION } from "./migrations.ts";

/** Seconds `mema upgrade` waits for the database before it says it cannot reach it. */
const UPGRADE_CONNECT_TIMEOUT_S = 10;

/** What {@linkcode upgradePostgresSchema} found and did. */
export interface PostgresSchemaUpgrade {
  /** The URL without its password. */
  database: string;
  /** The schema version before (0: mema never opened the database). */
  before: number;
  /** The schema version after (equal to `before` on a dry run or when up to date). */
  after: number;
  /** The version this build brings a database to. */
  latest: number;
  /** The migrations applied (on a dry run: the ones that would be), oldest first. */
  applied: { version: number; description: string }[];
}

/** Brings the database at `url` to this build's schema version (see the module doc). */
export async function upgradePostgresSchema(
  url: string,
  options: { dryRun?: boolean },
): Promise<PostgresSchemaUpgrade> {
  const database = redactDbUrl(url);
  const sql = await connectPostgres(url, { max: 1, connectTimeoutS: UPGRADE_CONNECT_TIMEOUT_S });
  try {
    const describe = (versions: readonly number[]) =>
      PG_MIGRATIONS.filter((m) => versions.includes(m.version))
        .map((m) => ({ version: m.version, description: m.description }));
    if (options.dryRun) {
      const [table] = await sql`SELECT to_regclass('schema_version') IS NOT NULL AS present`;
      const before = table.present
        ? Number((await sql`SELECT coalesce(max(version), 0) AS v FROM schema_version`)[0].v)
        : 0;
      refuseNewer(before);
      const pending = PG_MIGRATIONS.filter((m) => m.version > before).map((m) => m.version);
      return {
        database,
        before,
        after: before,
        latest: PG_SCHEMA_VERSION,
        applied: describe(pending),
      };
    }
    const state = await migratePostgres(sql);
    const before = state.applied.length > 0 ? state.applied[0] - 1 : state.version;
    return {
      database,
      before,
      after: state.version,
      latest: PG_SCHEMA_VERSION,
      applied: describe(state.applied),
    };
  } catch (error) {
    if (error instanceof MemaError) throw error;
    throw new MemaError(
      "storage_error",
      `cannot upgrade PostgreSQL at ${database}: ${
        redactDbSecrets(error instanceof Error ? error.message : String(error), url)
      }`,
      { hint: "check that the server is up, the URL and the credentials (PGPASSWORD, ~/.pgpass)" },
    );
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

/** The refusal of a database a newer mema migrated, as a server opening it refuses it. */
function refuseNewer(version: number): void {
  if (version <= PG_SCHEMA_VERSION) return;
  throw new MemaError(
    "schema_mismatch",
    `the PostgreSQL database is at schema version ${version}; this mema knows up to ${PG_SCHEMA_VERSION}`,
    { hint: "run the newer mema that migrated it (or upgrade this one)" },
  );
}
