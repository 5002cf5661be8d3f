/**
 * Scratch databases for tests and benchmarks: a fresh, empty database beside the one a URL
 * names, dropped afterwards, so each test starts from nothing without a cluster of its own.
 * The role must hold `CREATEDB` (scripts/test_postgres.ts makes it so).
 *
 * @example
 * Not run by `deno test --doc`: it needs a PostgreSQL server (the test command starts one for
 * tests/store/, scripts/test_postgres.ts).
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { createScratchDatabase } from "./scratch.ts";
 *
 * const scratch = await createScratchDatabase(Deno.env.get("MEMA_TEST_PG_URL")!);
 * assert.notEqual(scratch.url, Deno.env.get("MEMA_TEST_PG_URL"));
 * await scratch.drop();
 * ```
 * @module
 */
import { connectPostgres } from "./connect.ts";

/** PostgreSQL's SQLSTATE for a privilege the role lacks (here: ending another role's session). */
const INSUFFICIENT_PRIVILEGE = "42501";
/** How often, and how far apart, a drop that met an autovacuum worker asks again (about 5 s). */
const DROP_ATTEMPTS = 50;
const DROP_RETRY_MS = 100;

/** A scratch database: its URL, how to cut its connections, and how to drop it. */
export interface ScratchDatabase {
  url: string;
  /** Ends every other session on the database, as a restart or a network cut would. */
  cutConnections(): Promise<number>;
  drop(): Promise<void>;
}

/** Creates an empty database on the server `url` names, owned by the URL's role. */
export async function createScratchDatabase(url: string): Promise<ScratchDatabase> {
  const admin = await connectPostgres(url, { max: 1 });
  const name = `mema_scratch_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  try {
    await admin`CREATE DATABASE ${admin(name)}`;
  } catch (error) {
    await admin.end({ timeout: 1 });
    throw error;
  }
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.href,
    async cutConnections() {
      const rows = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = ${name} AND pid != pg_backend_pid()`;
      return rows.length;
    },
    async drop() {
      try {
        // FORCE ends the database's other sessions. An autovacuum worker on it may be ended only
        // by a role in pg_signal_backend (the test cluster's role is); any other role waits for
        // the worker to finish and asks again.
        for (let attempt = 0;; attempt++) {
          try {
            await admin`DROP DATABASE IF EXISTS ${admin(name)} WITH (FORCE)`;
            return;
          } catch (error) {
            const denied = (error as { code?: string }).code === INSUFFICIENT_PRIVILEGE;
            if (!denied || attempt >= DROP_ATTEMPTS) throw error;
            await new Promise((resolve) => setTimeout(resolve, DROP_RETRY_MS));
          }
        }
      } finally {
        await admin.end({ timeout: 1 });
      }
    },
  };
}
