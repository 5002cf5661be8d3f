/**
 * Access statistics on SQLite: {@linkcode UsageRepository} (src/store/usage_sql.ts).
 *
 * @module
 */
import * as usage from "./usage_sql.ts";
import type { UsageRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The usage room over `core`'s connection. */
export function sqliteUsage(core: SqliteCore): Sync<UsageRepository> {
  const db = core.connection.db;
  return {
    addAccesses: (accesses) => usage.addAccesses(db, accesses),
    accessStats: (ids) => usage.selectAccessStats(db, ids),
  };
}
