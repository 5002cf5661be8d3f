/**
 * The JSONL backup end to end, with a real storage failure: the database
 * lives on a small tmpfs that is filled up mid-session (SQLite then fails
 * every write with "database or disk is full"), and the backup file lives on
 * another disk. Mounting needs root (CI runs as root); elsewhere the test is
 * reported as ignored.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeTempHome, startServer } from "../helpers/server.ts";

function run(command: string, args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

function canMountTmpfs(): boolean {
  const probe = Deno.makeTempDirSync({ prefix: "mema-mount-probe-" });
  const mounted = run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]);
  if (mounted) run("umount", [probe]);
  Deno.removeSync(probe, { recursive: true });
  return mounted;
}

function fillDisk(dir: string): void {
  try {
    Deno.writeFileSync(`${dir}/filler`, new Uint8Array(64 * 1024 * 1024));
  } catch (error) {
    if (!String(error).includes("No space left")) throw error;
  }
}

Deno.test({
  name: "e2e: writes to an unwritable database land in the JSONL backup and replay exactly once",
  ignore: !canMountTmpfs(),
  async fn() {
    const home = makeTempHome();
    const disk = `${home.dir}/ramdisk`;
    Deno.mkdirSync(disk);
    assert.ok(run("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", disk]));
    const backupPath = `${home.dir}/backup/mema.backup.jsonl`;
    const env = { MEMA_DB_PATH: `${disk}/mema.sqlite3`, MEMA_BACKUP_JSONL: backupPath };
    const server = await startServer(home, { env });
    try {
      const kept = await server.call("remember", {
        content: "Stored before the disk filled.",
        subject: "before",
        workspace: "w",
      });
      assert.equal(kept.ok, true);
      fillDisk(disk);

      const saved: string[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await server.call("remember", {
          content: `Fact ${i} written while the disk is full. ${"padding ".repeat(4000)}`,
          subject: `while full ${i}`,
          workspace: "w",
          tags: ["outage"],
        });
        assert.equal(response.ok, true, JSON.stringify(response.data));
        assert.equal(response.mode, "jsonl_backup");
        assert.equal(response.degraded, true);
        assert.equal(response.data.saved, true);
        assert.ok(response.warnings.some((w) => /replay_backup/.test(w)));
        saved.push(response.data.backup_id);
      }
      const update = await server.call("update", {
        memory_id: kept.data.memory_id,
        new_content: `Updated while full. ${"x".repeat(30_000)}`,
        expected_version: 1,
      });
      assert.equal(update.mode, "jsonl_backup");
      saved.push(update.data.backup_id);
      const invalid = await server.call("remember", { content: "", subject: "s", workspace: "w" });
      assert.equal(invalid.ok, false, "bad input is still an error, never backed up");

      const lines = Deno.readTextFileSync(backupPath).trim().split("\n");
      assert.deepEqual(lines.map((line) => JSON.parse(line).id), saved);
      assert.equal((await server.call("find", { tags_filter: ["outage"] })).data.results.length, 0);

      Deno.removeSync(`${disk}/filler`);
      const dry = await server.repair("replay_backup", {});
      assert.deepEqual([dry.data.dry_run, dry.data.pending], [true, 6]);
      const ask = await server.repair("replay_backup", { dry_run: false });
      assert.equal(ask.data.action_required, "ask_user_for_authorization");
      const replay = await server.repair("replay_backup", { dry_run: false, authorized: true });
      assert.deepEqual([replay.data.applied, replay.data.rejected], [6, 0]);
      const again = await server.repair("replay_backup", { dry_run: false, authorized: true });
      assert.deepEqual([again.data.applied, again.data.already_replayed], [0, 6]);

      const found = await server.call("find", {
        query: "written while the disk is full",
        tags_filter: ["outage"],
      });
      assert.equal(found.data.results.length, 5);
      assert.ok(found.data.results.every((r: { tags: string[] }) => r.tags.includes("outage")));
      const updated = await server.call("read", { memory_id: kept.data.memory_id });
      assert.equal(updated.data.version, 2);
      assert.equal(updated.data.agent_id, "test-agent");
    } finally {
      await server.close();
      const db = new DatabaseSync(`${disk}/mema.sqlite3`, { readOnly: true });
      assert.equal(
        (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
        "ok",
      );
      db.close();
      run("umount", [disk]);
      home.cleanup();
    }
  },
});
