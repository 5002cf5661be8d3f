import assert from "node:assert/strict";
import { startBackupReplayer } from "../../src/memory/backup_replayer.ts";
import { writeOrBackup } from "../../src/memory/backup.ts";
import { openTestContext } from "../helpers/context.ts";

/** Waits until `check` holds (5 s at most). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

Deno.test("backup replayer: a saved remember is applied once, by one replayer or two", async () => {
  const { ctx, store, dir, cleanup } = await openTestContext({ skipVec: true });
  const backupPath = `${dir}/mema.backup.jsonl`;
  const saving = { ...ctx, settings: { ...ctx.settings, backupPath } };
  try {
    // The write fails the way a database that cannot take writes fails, so it is saved.
    const outcome = await writeOrBackup(
      saving,
      {
        action: "remember",
        input: { content: "The canary runs for an hour.", subject: "canary", workspace: "ops" },
      },
      () => Promise.reject(new Error("database or disk is full")),
    );
    assert.equal(outcome.kind, "backed_up");
    const count = () => store.countMemories({ statuses: ["active", "pending"] });

    const first = startBackupReplayer(saving, { tickMs: 10 });
    await until("the saved remember applied", async () => (await count()) === 1);
    await first.stop();
    assert.equal(first.replays, 1);

    // Another replayer on the same file (a second server, or this one restarted) applies nothing.
    const second = startBackupReplayer(saving, { tickMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await second.stop();
    assert.equal(second.replays, 0);
    assert.equal(await count(), 1, "applied once");
  } finally {
    cleanup();
  }
});
