/**
 * Shared set-up of the PostgreSQL end-to-end tests: each test gets its own scratch database
 * (src/store/postgres/scratch.ts) and temporary homes for its servers, all removed afterwards.
 * The tests need the test cluster (scripts/test_postgres.ts); with `MEMA_TEST_SKIP_POSTGRES=1`
 * they are ignored, and their names say so.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";
import { makeTempHome, type TempHome } from "./server.ts";
import { serverBinDir, startCluster, type TestCluster } from "../../scripts/test_postgres.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** One scratch database and the homes of the servers on it. */
export interface Team {
  url: string;
  /** The password in `url`, which no output may show (asked for only by tests that look). */
  readonly password: string;
  scratch: ScratchDatabase;
  home(): TempHome;
}

/** The password in `url`; the test URL must carry one for the tests to look for it. */
function passwordOf(url: string): string {
  const password = decodeURIComponent(new URL(url).password);
  assert.ok(password.length > 0, "the test URL carries a password to look for");
  return password;
}

/**
 * Runs `fn` with a fresh database; drops it and the homes afterwards. `ownCluster` gives the test
 * a throwaway cluster of its own, for a test that restarts PostgreSQL: restarting the shared one
 * would end the sessions of every test running beside it.
 */
export function teamTest(
  name: string,
  fn: (team: Team) => Promise<void>,
  options: { ignore?: boolean; ownCluster?: boolean } = {},
): void {
  Deno.test({
    name: `postgres e2e: ${name}${SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""}`,
    ignore: SKIP_POSTGRES || options.ignore === true,
    // The scratch database's admin pool keeps idle timers until it is dropped, after the body.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      let cluster: TestCluster | undefined;
      if (options.ownCluster) {
        const bin = serverBinDir();
        assert.ok(bin, "PostgreSQL's server binaries are installed");
        cluster = await startCluster(bin);
      }
      const scratch = await createScratchDatabase(cluster?.url ?? testPostgresUrl());
      const homes: TempHome[] = [];
      try {
        await fn({
          url: scratch.url,
          get password() {
            return passwordOf(scratch.url);
          },
          scratch,
          home() {
            const home = makeTempHome();
            homes.push(home);
            return home;
          },
        });
      } finally {
        for (const home of homes) home.cleanup();
        await scratch.drop();
        await cluster?.stop();
      }
    },
  });
}

/** Polls `check` every 100 ms until it returns a value, for `seconds` at most. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  seconds = 10,
): Promise<T> {
  for (let attempt = 0; attempt < seconds * 10; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never happened: ${what}`);
}
