/**
 * The store backends the contract tests run on: the SQLite file and PostgreSQL
 * (docs/SPEC.md §15). Each opens a fresh, empty store; `backendTest` registers one test per
 * backend, so the same checks hold for both.
 *
 * PostgreSQL comes from `MEMA_TEST_PG_URL`, which the test command sets (scripts/test_postgres.ts
 * starts a throwaway cluster). Without it the PostgreSQL tests fail saying how to get it, unless
 * `MEMA_TEST_SKIP_POSTGRES=1` asks to skip them, which their names then say.
 */
import { openStore } from "../../src/store/mod.ts";
import {
  openPostgresStore,
  type PostgresRepositories,
  type PostgresStore,
} from "../../src/store/postgres/mod.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import type { WriteOptions } from "../../src/store/mod.ts";

/** The part of a store both backends implement today. */
export interface RoomsStore extends PostgresRepositories {
  write<T>(
    body: (tx: PostgresRepositories) => Promise<T>,
    options?: WriteOptions<T>,
  ): Promise<T>;
  read<T>(body: (tx: PostgresRepositories) => Promise<T>): Promise<T>;
  withinUnit<T>(body: () => Promise<T>): Promise<T>;
}

/** One backend: how to open an empty store of it. */
export interface Backend {
  name: "sqlite" | "postgres";
  /** Why its tests are skipped, when they are. */
  skipped?: string;
  /** Opens an empty store; `close` throws it away. */
  open(): Promise<{ store: RoomsStore; close(): Promise<void> }>;
}

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** The URL of the test cluster, or an error that says how to get one. */
export function testPostgresUrl(): string {
  const url = Deno.env.get("MEMA_TEST_PG_URL");
  if (url) return url;
  throw new Error(
    "MEMA_TEST_PG_URL is not set: the PostgreSQL store's tests need a PostgreSQL server. Run " +
      "them through `deno task test` (scripts/test_postgres.ts starts a throwaway cluster; " +
      "install it with apt-get install postgresql), set MEMA_TEST_PG_URL to a database whose " +
      "role may CREATEDB, or set MEMA_TEST_SKIP_POSTGRES=1 to skip them",
  );
}

/** A scratch PostgreSQL database with the store open on it. */
export async function openScratchPostgres(): Promise<
  { store: PostgresStore; url: string; close(): Promise<void> }
> {
  const scratch = await createScratchDatabase(testPostgresUrl());
  let store: PostgresStore;
  try {
    store = await openPostgresStore(scratch.url, { poolMax: 4 });
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  return {
    store,
    url: scratch.url,
    async close() {
      await store.close();
      await scratch.drop();
    },
  };
}

export const BACKENDS: readonly Backend[] = [
  {
    name: "sqlite",
    async open() {
      const dir = await Deno.makeTempDir({ prefix: "mema-rooms-" });
      const store = await openStore(`${dir}/mema.sqlite3`, {
        cacheDir: `${dir}/cache`,
        skipVec: true,
      });
      return {
        store,
        async close() {
          store.close();
          await Deno.remove(dir, { recursive: true });
        },
      };
    },
  },
  {
    name: "postgres",
    skipped: SKIP_POSTGRES ? "MEMA_TEST_SKIP_POSTGRES=1" : undefined,
    open: openScratchPostgres,
  },
];

/** Registers `fn` as one test per backend, each on a fresh store. */
export function backendTest(name: string, fn: (store: RoomsStore) => Promise<void>): void {
  for (const backend of BACKENDS) {
    Deno.test({
      name: `${backend.name}: ${name}${backend.skipped ? ` SKIPPED (${backend.skipped})` : ""}`,
      ignore: backend.skipped !== undefined,
      // The driver keeps timers for idle connections until the pool ends, after the test.
      sanitizeOps: backend.name !== "postgres",
      sanitizeResources: backend.name !== "postgres",
      async fn() {
        const { store, close } = await backend.open();
        try {
          await fn(store);
        } finally {
          await close();
        }
      },
    });
  }
}
