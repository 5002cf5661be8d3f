/**
 * Durable writes that sync the WAL off the thread share syncs: a commit made while a sync runs
 * is covered only by a sync that starts after it, and the work given to the write runs between
 * the commit and the sync's end.
 */
import assert from "node:assert/strict";
import { GroupSync } from "../../src/store/group_sync.ts";
import { openConnection } from "../../src/store/sqlite_connection.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext } from "../helpers/context.ts";

/** A flush the test finishes by hand, counting how often it started. */
function manualFlush() {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  return {
    started: () => pending.length,
    flush: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    finish: (index: number, error?: Error) =>
      error ? pending[index].reject(error) : pending[index].resolve(),
  };
}

async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

Deno.test("a sync asked for while one runs waits for the next one, which such callers share", async () => {
  const manual = manualFlush();
  const group = new GroupSync(manual.flush);
  const first = group.sync();
  const second = group.sync();
  const third = group.sync();
  assert.equal(manual.started(), 1);
  manual.finish(0);
  assert.equal(await settled(first), true);
  assert.equal(await settled(second), false, "the first flush may predate the second commit");
  assert.equal(manual.started(), 2, "one more flush serves both later callers");
  manual.finish(1);
  assert.equal(await settled(second), true);
  assert.equal(await settled(third), true);
  const fourth = group.sync();
  assert.equal(manual.started(), 3, "an idle group flushes at once");
  manual.finish(2);
  await fourth;
});

Deno.test("a failed sync fails its callers, and the next sync flushes again", async () => {
  const manual = manualFlush();
  const group = new GroupSync(manual.flush);
  const failed = group.sync();
  manual.finish(0, new Error("EIO"));
  await assert.rejects(failed, /EIO/);
  const next = group.sync();
  assert.equal(manual.started(), 2);
  manual.finish(1);
  await next;
});

Deno.test("a durable database syncs the WAL off the thread; durability normal never syncs", () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-sync-" });
  try {
    const full = openConnection(`${dir}/full.sqlite3`, {});
    const normal = openConnection(`${dir}/normal.sqlite3`, { durability: "normal" });
    assert.equal(full.syncsOffThread, true);
    assert.equal(normal.syncsOffThread, false);
    full.close();
    normal.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("work after a remember sees the committed fact, and its failure fails nothing", async () => {
  const t = await openTestContext();
  try {
    let seen: string | undefined;
    const result = await rememberMemory(
      t.ctx,
      { content: "Backups run at 02:00.", subject: "ops", workspace: "infra" },
      {
        whileSyncing: async (written) => {
          seen = (await t.store.read(async () => await t.store.getMemory(written.memoryId)))
            ?.content;
        },
      },
    );
    assert.equal(seen, "Backups run at 02:00.");
    const next = await rememberMemory(t.ctx, {
      content: "Restores are tested monthly.",
      subject: "ops",
      workspace: "infra",
    }, {
      whileSyncing: () => {
        throw new Error("a hint that broke");
      },
    });
    assert.equal(
      (await t.store.read(async () => await t.store.getMemory(next.memoryId)))?.content,
      "Restores are tested monthly.",
    );
    assert.ok(result.memoryId !== next.memoryId);
  } finally {
    t.cleanup();
  }
});
