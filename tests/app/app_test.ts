/**
 * The composition root opens the same application for every command: a memory written through
 * its context queues its conflict check, and one close stops everything and keeps what was
 * written.
 * @module
 */
import assert from "node:assert/strict";
import { openApp } from "../../src/app/mod.ts";
import { loadConfig, type MemaConfig } from "../../src/config/mod.ts";
import { DETECT_JOB_KIND } from "../../src/conflicts/constants_pipeline.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { DatabaseSync } from "node:sqlite";

const CALLER = { client: "unit", agentId: "unit-agent" };

function withConfig(run: (config: MemaConfig) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = Deno.makeTempDirSync({ prefix: "mema-app-" });
    try {
      await run(loadConfig({
        flags: { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/absent.json` },
      }));
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  };
}

Deno.test(
  "a memory remembered through the composed context queues its conflict check",
  withConfig(async (config) => {
    const app = await openApp(config, { caller: CALLER, skipVec: true });
    try {
      await rememberMemory(app.ctx, {
        subject: "deploy day",
        content: "Deploys run on Fridays.",
        workspace: "infra",
      });
      const jobs = await app.store.countJobs();
      assert.equal(jobs[DETECT_JOB_KIND]?.pending, 1);
    } finally {
      await app.close();
    }
  }),
);

Deno.test(
  "a serving app closes once, however often it is asked, and keeps what was written",
  withConfig(async (config) => {
    const first = await openApp(config, { caller: CALLER, skipVec: true, serving: {} });
    const { memoryId } = await rememberMemory(first.ctx, {
      subject: "editor",
      content: "The team uses Helix.",
      workspace: "tools",
    });
    await first.close();
    await first.close();
    const second = await openApp(config, { caller: CALLER, skipVec: true });
    try {
      const stored = await second.store.getMemory(memoryId);
      assert.equal(stored?.content, "The team uses Helix.");
    } finally {
      await second.close();
    }
  }),
);

Deno.test(
  "a postgres db_url reaches the store through the root: unreachable, it fails with no password and no file",
  withConfig(async (config) => {
    const url = "postgres://team:s3cret@127.0.0.1:1/mema";
    await assert.rejects(
      openApp({ ...config, dbUrl: url }, { caller: CALLER, skipVec: true }),
      (error: Error) => {
        assert.match(error.message, /PostgreSQL at postgres:\/\/team:\*\*\*@127\.0\.0\.1:1\/mema/);
        assert.ok(!error.message.includes("s3cret"), "no password in the error");
        return true;
      },
    );
    assert.throws(() => Deno.statSync(config.dbPath), Deno.errors.NotFound);
  }),
);

Deno.test({
  name:
    "a serving app answers before it checks the word index, then rebuilds the rows a hand edit lost",
  // The job worker's request turns keep a loopback socket for the process (platform/io_turn.ts).
  sanitizeResources: false,
  fn: withConfig(async (config) => {
    const writer = await openApp(config, { caller: CALLER, skipVec: true });
    const ids: number[] = [];
    for (const [city, month] of [["Osaka", "May"], ["Quito", "June"], ["Osaka", "July"]]) {
      const { memoryId } = await rememberMemory(writer.ctx, {
        subject: `trip to ${city}`,
        content: `We flew to ${city} in ${month}.`,
        workspace: "travel",
      });
      ids.push(memoryId);
    }
    await writer.close();
    const db = new DatabaseSync(config.dbPath);
    db.prepare("DELETE FROM memories_terms WHERE rowid = ?").run(ids[2]);
    db.close();
    const app = await openApp(config, { caller: CALLER, skipVec: true, serving: {} });
    const osaka = async () =>
      (await findMemories(app.ctx, { query: "Osaka", workspace: "travel" })).items
        .map((item) => item.memory.id).sort((a, b) => a - b);
    try {
      // Open, and nothing counted the library yet: the hand edit still hides the memory.
      assert.deepEqual(await osaka(), [ids[0]]);
      await app.startBackgroundJobs({ requested: new Promise(() => {}), dispose() {} });
      const deadline = Date.now() + 30_000;
      while ((await osaka()).length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(await osaka(), [ids[0], ids[2]]);
    } finally {
      await app.close();
    }
  }),
});
