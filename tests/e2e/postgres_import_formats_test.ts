/**
 * `mema import --format` on PostgreSQL: a ChatGPT export imported into a shared database
 * through the real CLI comes back through the real server with its turns chained, and a second
 * import adds nothing, as on SQLite (tests/e2e/import_formats_test.ts covers every format there).
 */
import assert from "node:assert/strict";
import { teamTest } from "../helpers/postgres_team.ts";
import { runCli, startServer } from "../helpers/server.ts";

const EXPORT = new URL("../fixtures/import/chatgpt_conversations.json", import.meta.url).pathname;

teamTest("import --format chatgpt: turns chained, a second import adds nothing", async (team) => {
  const home = team.home();
  const env = { MEMA_DB_URL: team.url };
  const first = await runCli(home, ["import", EXPORT, "--format", "chatgpt"], env);
  assert.match(first.stdout, /: 6 new, 0 updated, 0 unchanged/, first.stderr);
  assert.match(first.stderr, /\$\[0\]\.mapping\["u-2"\]\.message\.content/);
  const again = await runCli(home, ["import", EXPORT, "--format", "chatgpt"], env);
  assert.match(again.stdout, /: 0 new, 0 updated, 6 unchanged/, again.stderr);
  const server = await startServer(home, { env });
  try {
    const page = await server.call("find", { workspace: "chatgpt", workspace_only: true });
    assert.ok(page.ok, JSON.stringify(page.data));
    const turns = (page.data.results as { memory_id: number; follows?: number }[])
      .sort((a, b) => a.memory_id - b.memory_id);
    assert.equal(turns.length, 4);
    for (let turn = 1; turn < turns.length; turn++) {
      assert.equal(turns[turn].follows, turns[turn - 1].memory_id);
    }
  } finally {
    await server.close();
  }
});
