/**
 * Two empty stores of one backend, for tests that store the same input two ways and compare the
 * libraries they leave (`rememberMany` against one by one, a bulk import against item by item).
 * PostgreSQL is skipped when `MEMA_TEST_SKIP_POSTGRES=1`.
 */
import { openStore, type Store } from "../../src/store/mod.ts";
import { openPostgresAsStore } from "../../src/store/postgres/app_store.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";

/** Two empty stores of one backend, and how to throw them away. */
export type StorePair = { stores: [Store, Store]; close(): Promise<void> };

/** Each backend, with how to open a pair of its stores (SQLite files under `dir`). */
export const STORE_PAIR_BACKENDS: {
  name: string;
  skipped?: boolean;
  open(dir: string): Promise<StorePair>;
}[] = [
  {
    name: "sqlite",
    async open(dir) {
      const open = (n: number) =>
        openStore(`${dir}/${n}.sqlite3`, { cacheDir: `${dir}/cache${n}`, skipVec: true });
      const stores: [Store, Store] = [await open(0), await open(1)];
      return {
        stores,
        close() {
          for (const store of stores) store.close();
          return Promise.resolve();
        },
      };
    },
  },
  {
    name: "postgres",
    skipped: Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1",
    async open() {
      const scratches = [
        await createScratchDatabase(testPostgresUrl()),
        await createScratchDatabase(testPostgresUrl()),
      ];
      const stores: [Store, Store] = [
        await openPostgresAsStore(scratches[0].url),
        await openPostgresAsStore(scratches[1].url),
      ];
      return {
        stores,
        async close() {
          for (const store of stores) await store.close();
          for (const scratch of scratches) await scratch.drop();
        },
      };
    },
  },
];
