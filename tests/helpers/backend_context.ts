/**
 * A service context over a fresh store of each backend (a SQLite file in a temporary folder, or
 * a scratch PostgreSQL database), and a way to register one test per backend. PostgreSQL is
 * skipped when `MEMA_TEST_SKIP_POSTGRES=1`.
 * @module
 */
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { openStore, type Store } from "../../src/store/mod.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** An open store of one backend, its context, and how to throw both away. */
export interface BackendContext {
  ctx: ServiceContext;
  store: Store;
  close(): Promise<void>;
}

/** A fresh store of `backend` with a caller's context over it. */
export async function openBackendContext(
  backend: "sqlite" | "postgres",
): Promise<BackendContext> {
  const dir = Deno.makeTempDirSync({ prefix: "mema-backend-" });
  const scratch = backend === "postgres"
    ? await createScratchDatabase(testPostgresUrl())
    : undefined;
  const store = await openStore(`${dir}/mema.sqlite3`, {
    cacheDir: `${dir}/cache`,
    skipVec: true,
    ...(scratch ? { dbUrl: scratch.url } : {}),
  });
  return {
    store,
    ctx: {
      store,
      caller: { client: "unit", agentId: "unit-agent" },
      settings: { workspaceIsolation: "none", includeSize: true },
      events: composeMemoryEvents(),
    },
    async close() {
      await store.close();
      await scratch?.drop();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/** Registers `fn` once per backend ("sqlite: …", "postgres: …"). */
export function onBothBackends(name: string, fn: (t: BackendContext) => Promise<void>): void {
  for (const backend of ["sqlite", "postgres"] as const) {
    const skipped = backend === "postgres" && SKIP_POSTGRES;
    Deno.test({
      name: `${backend}: ${name}${skipped ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""}`,
      ignore: skipped,
      // The worker's turn for requests keeps one socket for the process (src/platform/io_turn.ts);
      // the scratch database's admin pool keeps idle timers until it is dropped.
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const t = await openBackendContext(backend);
        try {
          await fn(t);
        } finally {
          await t.close();
        }
      },
    });
  }
}
