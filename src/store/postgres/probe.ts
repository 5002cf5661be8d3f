/**
 * What `mema doctor` asks of a PostgreSQL database, without changing it: whether it answers,
 * the server's version, the schema version, the extensions and the decisions waiting (issue 33).
 * Nothing is migrated or written; a database that does not answer is a `storage_error` with
 * the password redacted.
 *
 * @example
 * Not run by `deno test --doc`: it needs a PostgreSQL server (scripts/test_postgres.ts).
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { probePostgres } from "./probe.ts";
 *
 * const probe = await probePostgres(Deno.env.get("MEMA_TEST_PG_URL")!);
 * assert.ok(probe.serverVersion.length > 0);
 * ```
 * @module
 */
import { redactDbSecrets, redactDbUrl } from "../../config/db_url.ts";
import { MemaError } from "../../errors/mod.ts";
import { connectPostgres } from "./connect.ts";
import { PgCore } from "./core.ts";
import { pgConflictGroups } from "./conflicts_room.ts";
import { describeVectorPath, readExtensions } from "./extensions.ts";
import type { PostgresProbe } from "./facts.ts";
import { pgMemories } from "./memories_room.ts";
import { PG_SCHEMA_VERSION } from "./migrations.ts";

export type { PostgresProbe } from "./facts.ts";

/** Seconds doctor waits for the database before reporting it unreachable. */
const PROBE_CONNECT_TIMEOUT_S = 5;

/** Reads the database at `url` for doctor, in one read-only snapshot. */
export async function probePostgres(url: string): Promise<PostgresProbe> {
  const database = redactDbUrl(url);
  const sql = await connectPostgres(url, { max: 1, connectTimeoutS: PROBE_CONNECT_TIMEOUT_S });
  const core = new PgCore<unknown>(sql);
  try {
    return await core.read(async () => {
      const q = core.q();
      const [server] = await q`SHOW server_version`;
      const extensions = await readExtensions(q);
      const [table] = await q`SELECT to_regclass('schema_version') IS NOT NULL AS present`;
      const schemaVersion = table.present
        ? Number((await q`SELECT coalesce(max(version), 0) AS v FROM schema_version`)[0].v)
        : 0;
      const probe: PostgresProbe = {
        database,
        serverVersion: String(server.server_version),
        schemaVersion,
        expectedSchemaVersion: PG_SCHEMA_VERSION,
        extensions,
        vectorPath: describeVectorPath(extensions),
      };
      if (schemaVersion !== PG_SCHEMA_VERSION) return probe;
      const [mark] = await q`SELECT value FROM meta WHERE key = 'copy_incomplete'`;
      return {
        ...probe,
        copyIncomplete: mark && String(mark.value) !== "" ? String(mark.value) : undefined,
        counts: await pgMemories(core).countByStatus(),
        backlog: await pgConflictGroups(core).backlog(),
      };
    });
  } catch (error) {
    throw new MemaError(
      "storage_error",
      `cannot read PostgreSQL at ${database}: ${
        redactDbSecrets(error instanceof Error ? error.message : String(error), url)
      }`,
      { hint: "check that the server is up, the URL and the credentials (PGPASSWORD, ~/.pgpass)" },
    );
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
