/**
 * Issue 12 item 9: a cleanly closed database on a read-only file system. The
 * server must start, serve reads, send writes to the backup file and say the
 * database is read-only; once the file system is writable again (and mema is
 * restarted), replay applies the saved writes.
 *
 * The read-only file system is real: a tmpfs remounted `ro` (EROFS). File
 * permissions would not do, since the tests run as root and root ignores them.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { runCli, startServer } from "../helpers/server.ts";
import { canMountTmpfs, makeTmpfsHome, remount } from "../helpers/tmpfs.ts";

Deno.test({
  name: "e2e: a database on a read-only file system serves reads and saves writes to the backup",
  ignore: !canMountTmpfs(),
  async fn() {
    const mounted = makeTmpfsHome("20m");
    const { home, disk } = mounted;
    const dbPath = `${disk}/mema.sqlite3`;
    const backupPath = `${home.dir}/backup/mema.backup.jsonl`;
    const env = { MEMA_DB_PATH: dbPath, MEMA_BACKUP_JSONL: backupPath };
    try {
      const writer = await startServer(home, { env });
      const ids: number[] = [];
      for (
        const [subject, content] of [
          ["deploy day", "Production deploys happen on Tuesdays after the standup."],
          ["on-call", "The on-call rotation changes every Monday at noon."],
        ]
      ) {
        const response = await writer.call("remember", { content, subject, workspace: "w" });
        assert.equal(response.ok, true, JSON.stringify(response.data));
        ids.push(response.data.memory_id);
      }
      await writer.close();
      await remount(disk, "ro");
      assert.deepEqual([...Deno.readDirSync(disk)].map((e) => e.name), ["mema.sqlite3"]);

      const server = await startServer(home, { env });
      let savedId: string;
      try {
        const found = await server.call("find", { query: "deploys Tuesdays" });
        assert.equal(found.ok, true, JSON.stringify(found.data));
        assert.equal(found.data.results[0].memory_id, ids[0]);
        assert.ok(found.warnings.some((w) => /read-only/.test(w)), found.warnings.join("\n"));
        assert.equal(found.degraded, true);
        const read = await server.call("read", { memory_id: ids[1] });
        assert.equal(read.data.content, "The on-call rotation changes every Monday at noon.");
        const status = await server.call("status");
        assert.equal(status.data.capabilities.writable, false, JSON.stringify(status.data));
        const overview = await server.callRaw({ view: "overview", data: {} }, "memory_review");
        assert.equal(overview.data.capabilities.writable, false);

        const remembered = await server.call("remember", {
          content: "Deploy freezes start two days before a holiday.",
          subject: "deploy freeze",
          workspace: "w",
        });
        assert.equal(remembered.ok, true, JSON.stringify(remembered.data));
        assert.equal(remembered.mode, "jsonl_backup");
        assert.equal(remembered.data.saved, true);
        savedId = remembered.data.backup_id;
        const entries = Deno.readTextFileSync(backupPath).trim().split("\n").map((l) =>
          JSON.parse(l)
        );
        assert.deepEqual(entries.map((e) => e.id), [savedId]);
        assert.match(server.stderr(), /read-only/);
      } finally {
        await server.close();
      }

      // The default backup path lies beside the database, on the same read-only file system:
      // the write must fail and say where to put the backup instead.
      const nowhere = await startServer(home, { env: { MEMA_DB_PATH: dbPath } });
      try {
        const refused = await nowhere.call("remember", {
          content: "This cannot be saved anywhere.",
          subject: "nowhere",
          workspace: "w",
        });
        assert.equal(refused.ok, false);
        assert.equal(refused.data.error, "storage_error");
        assert.match(refused.data.hint, /backup_jsonl|MEMA_BACKUP_JSONL/);
      } finally {
        await nowhere.close();
      }

      await remount(disk, "rw");
      const after = await startServer(home, { env });
      try {
        const replay = await after.repair("replay_backup", { dry_run: false, authorized: true });
        assert.equal(replay.ok, true, JSON.stringify(replay.data));
        assert.deepEqual([replay.data.applied, replay.data.rejected], [1, 0]);
        assert.equal(replay.data.entries[0].entry_id, savedId);
        const found = await after.call("find", { query: "deploy freezes holiday" });
        assert.equal(found.data.results[0].subject, "deploy freeze");
        assert.ok(!found.warnings.some((w) => /read-only/.test(w)));
      } finally {
        await after.close();
      }
    } finally {
      await mounted.cleanup();
    }
  },
});

Deno.test({
  name:
    "e2e: a database on a read-only file system whose -wal still holds changes is refused at start, with the fix",
  ignore: !canMountTmpfs(),
  async fn() {
    const mounted = makeTmpfsHome("20m");
    const { home, disk } = mounted;
    const source = `${home.dir}/data/source.sqlite3`;
    const dbPath = `${disk}/mema.sqlite3`;
    const env = { MEMA_DB_PATH: dbPath, MEMA_BACKUP_JSONL: `${home.dir}/backup.jsonl` };
    try {
      // A database left as a crash leaves it: the last commits are in the -wal only. A second
      // connection kept open stops the server's close from folding the log into the file.
      const writer = await startServer(home, { env: { ...env, MEMA_DB_PATH: source } });
      assert.equal(
        (await writer.call("remember", { content: "First.", subject: "a", workspace: "w" })).ok,
        true,
      );
      const holder = new DatabaseSync(source);
      holder.prepare("SELECT count(*) FROM sqlite_master").get();
      try {
        assert.equal(
          (await writer.call("remember", {
            content: "Only in the log.",
            subject: "b",
            workspace: "w",
          }))
            .ok,
          true,
        );
        await writer.close();
        for (const suffix of ["", "-wal", "-shm"]) {
          Deno.copyFileSync(`${source}${suffix}`, `${dbPath}${suffix}`);
        }
      } finally {
        holder.close();
      }
      assert.ok(Deno.statSync(`${dbPath}-wal`).size > 32, "the copied log holds frames");
      await remount(disk, "ro");

      const started = await runCli(home, ["serve"], {
        ...env,
        MEMA_CLIENT: "test-client",
        MEMA_AGENT_ID: "test-agent",
      });
      assert.notEqual(started.code, 0, started.stderr);
      assert.match(started.stderr, /-wal/);
      assert.match(started.stderr, /make the file system writable and start mema once/);
      assert.match(started.stderr, /not closed cleanly/);
    } finally {
      await mounted.cleanup();
    }
  },
});
