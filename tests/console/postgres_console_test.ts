/**
 * `mema console` on a PostgreSQL database (issue 33): the same pages over the team's database,
 * as a person would open them, with the URL's password nowhere in what the console prints or
 * serves. Run under scripts/test_postgres.ts (it exports MEMA_TEST_PG_URL).
 */
import assert from "node:assert/strict";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";
import { signIn, startConsoleProcess } from "../helpers/console.ts";
import { makeTempHome, startServer } from "../helpers/server.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

Deno.test({
  name: `console on PostgreSQL: a memory remembered by a server is listed and shown; no password${
    SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: SKIP_POSTGRES,
  // The scratch database's admin pool keeps idle timers until it is dropped, after the body.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const password = decodeURIComponent(new URL(scratch.url).password);
    assert.ok(password.length > 0, "the test URL carries a password to look for");
    const home = makeTempHome();
    const env = { MEMA_DB_URL: scratch.url };
    try {
      const server = await startServer(home, { env });
      const remembered = await server.call("remember", {
        content: "The staging cluster runs in eu-west-3.",
        subject: "staging region",
        workspace: "team",
      });
      await server.close();
      assert.equal(remembered.ok, true, JSON.stringify(remembered.data));
      const id = remembered.data.memory_id;

      const console = await startConsoleProcess(home, { env });
      try {
        const client = await signIn(console.url);
        const pages: string[] = [];
        for (const path of ["", "memories", `memories/${id}`, "conflicts", "settings"]) {
          const page = await client.get(path);
          assert.equal(page.status, 200, `${path}: ${page.text.slice(0, 300)}`);
          pages.push(page.text);
        }
        assert.ok(pages[1].includes("The staging cluster runs in eu-west-3."), "listed");
        assert.ok(pages[2].includes("The staging cluster runs in eu-west-3."), "shown");
        assert.match(pages[4], /db_url/);
        // Printed beside the URL, on the other stream: there by the time the pages answered.
        assert.match(console.stderr(), /console for postgres:\/\/[^:]+:\*\*\*@/);
        for (const text of [...pages, console.stderr()]) {
          assert.ok(!text.includes(password), "the password appears nowhere");
        }
      } finally {
        await console.stop();
      }
    } finally {
      home.cleanup();
      await scratch.drop();
    }
  },
});
