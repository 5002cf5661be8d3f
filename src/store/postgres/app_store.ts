/**
 * The PostgreSQL store as the services see every store: {@linkcode openPostgresAsStore} opens
 * it (postgres/mod.ts) and gives it the `Store` face the SQLite file has, with a
 * {@linkcode StoreBackend} that names the server, the schema version and the vector path for
 * `status`, `doctor` and the start-up line, never the password.
 *
 * @example
 * Not run by `deno test --doc`: it needs a PostgreSQL server (the test command starts one,
 * scripts/test_postgres.ts).
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { openPostgresAsStore } from "./app_store.ts";
 *
 * const store = await openPostgresAsStore(Deno.env.get("MEMA_TEST_PG_URL")!);
 * assert.equal(store.backend?.kind, "postgresql");
 * await store.close();
 * ```
 * @module
 */
import { SCHEMA_GENERATION } from "../constants.ts";
import { redactDbSecrets } from "../../config/db_url.ts";
import type { Store, StoreBackend, StoreCapabilities } from "../repositories.ts";
import { describeVectorPath } from "./extensions.ts";
import { openPostgresStore } from "./mod.ts";
import { isUnreachable, unreachableError } from "./unreachable.ts";
import { aroundRoomCalls } from "./room_calls.ts";

/**
 * Opens the PostgreSQL database at `url` (migrating it) as a `Store`. `waitForDatabase`: a
 * serving process starts even while the database cannot be reached (postgres/mod.ts).
 */
export async function openPostgresAsStore(
  url: string,
  options: { waitForDatabase?: boolean; onQuery?: (query: string) => void } = {},
): Promise<Store> {
  const pg = await openPostgresStore(url, options);
  const capabilities: StoreCapabilities = { fts: true, vec: true };
  // A unit that fails because the database went away says so clearly (unreachable.ts), and
  // every answer says so until a unit succeeds again (src/capabilities/mod.ts): an in-memory
  // flag, as `unwritable` is for the SQLite file, so the hot path pays no statement for it.
  const clearly = (unit: "read" | "write") => (error: unknown): never => {
    if (!isUnreachable(error)) throw error;
    const clear = unreachableError(error, url, unit);
    capabilities.unreachable = redactDbSecrets(
      error instanceof Error ? error.message : String(error),
      url,
    );
    throw clear;
  };
  const answered = <T>(value: T): T => {
    if (capabilities.unreachable !== undefined) capabilities.unreachable = undefined;
    return value;
  };
  // Read when asked: a server that started before the database answered learns them later.
  const backend: StoreBackend = {
    kind: "postgresql",
    database: pg.description,
    get serverVersion() {
      return pg.serverVersion;
    },
    get schemaVersion() {
      return pg.schema.version;
    },
    get vectorPath() {
      return describeVectorPath(pg.extensions);
    },
    get extensions() {
      return { pg_trgm: pg.extensions.pg_trgm, vector: pg.extensions.vector };
    },
  };
  const { write: _w, writeBlocking: _wb, read: _r, withinUnit, bulkWrites, close, ...rooms } = pg;
  return {
    ...pg,
    // A room called outside a unit fails as clearly as a unit when the database is away.
    ...aroundRoomCalls(rooms, (call) => call().catch(clearly("read"))),
    withinUnit,
    bulkWrites,
    close,
    path: pg.description,
    // Full-text search is the tsvector index; vectors are searched in each server's copy, which
    // needs no extension.
    capabilities,
    // The SQLite generation's features are all there (the migrations carry them); which steps
    // this open applied is the PostgreSQL schema's own record.
    schema: {
      generation: SCHEMA_GENERATION,
      get created() {
        return pg.schema.applied.includes(1);
      },
      get migrated() {
        return pg.schema.applied;
      },
    },
    backend,
    write: (body, options) => pg.write(body, options).then(answered, clearly("write")),
    writeBlocking: (body) => pg.writeBlocking(body).then(answered, clearly("write")),
    read: (body) => pg.read(body).then(answered, clearly("read")),
  };
}
