/**
 * Opening a connection pool with the driver (npm:postgres, loaded here by a dynamic `import()`
 * so it is never read on a SQLite user's start path).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { driverUrl } from "./connect.ts";
 *
 * const url = driverUrl("postgres://u@localhost:5433/mema?host=/run/postgresql");
 * assert.ok(url.endsWith("port=5433"), "the socket's port is kept");
 * ```
 * @module
 */
import type { Sql } from "postgres";
import { PG_CONNECT_TIMEOUT_S, PG_WORK_MEM } from "./constants.ts";

/**
 * `url` as the driver reads it the way libpq does. The driver takes the port from `?port=` alone
 * once `?host=` names a socket directory, so a port written in the authority
 * (`postgres://u@localhost:5433/db?host=/run/postgresql`) is copied there.
 */
export function driverUrl(url: string): string {
  const parsed = new URL(url);
  const query = parsed.searchParams;
  if (!query.has("host") || query.has("port") || parsed.port === "") return url;
  query.set("port", parsed.port);
  return parsed.href;
}

/** How a pool connects: at most `max` connections, each given `connectTimeoutS` to open. */
export interface ConnectOptions {
  max: number;
  connectTimeoutS?: number;
  /** Called with each statement as it is sent (bench/find_profile.ts counts round trips). */
  onQuery?: (query: string) => void;
}

/** A pool of connections to the database `url` names. */
export async function connectPostgres(url: string, options: ConnectOptions): Promise<Sql> {
  const { default: postgres } = await import("postgres");
  return postgres(driverUrl(url), {
    max: options.max,
    connect_timeout: options.connectTimeoutS ?? PG_CONNECT_TIMEOUT_S,
    // The server's notices (e.g. "relation already exists, skipping") are not the user's.
    onnotice: () => {},
    connection: { application_name: "mema", work_mem: PG_WORK_MEM },
    ...(options.onQuery ? { debug: (_: number, query: string) => options.onQuery!(query) } : {}),
  }) as unknown as Sql;
}
