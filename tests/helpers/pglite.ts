/**
 * A PostgreSQL server with pgvector for the tests of the pgvector path: PGlite (PostgreSQL in
 * WebAssembly) behind scripts/pglite_server.ts, in a child process that stops when the test lets
 * go of it. PGlite is installed by `deno run -A scripts/dev_tools.ts` (which `deno task test`
 * runs first); without it a test fails saying how to install it, and is skipped only when
 * `MEMA_TEST_SKIP_PGLITE=1` asks for it (its name says so).
 * @module
 */
import { type PgliteChild, spawnPgliteServer } from "../../scripts/pglite_server.ts";

const SKIP_PGLITE = Deno.env.get("MEMA_TEST_SKIP_PGLITE") === "1";

/** A running PGlite server: the URL mema connects to, and how to stop it. */
export type PgliteServer = PgliteChild;

/** Registers `fn` as a test run against a fresh PGlite with pgvector (see the module doc). */
export function onPgvector(name: string, fn: (server: PgliteServer) => Promise<void>): void {
  Deno.test({
    name: `pgvector: ${name}${SKIP_PGLITE ? " SKIPPED (MEMA_TEST_SKIP_PGLITE=1)" : ""}`,
    ignore: SKIP_PGLITE,
    async fn() {
      const server = await spawnPgliteServer();
      try {
        await fn(server);
      } finally {
        await server.stop();
      }
    },
  });
}
