/**
 * Opening a database on a read-only file system (a tmpfs remounted `ro`; root
 * ignores file permissions, so those would not test anything here): a cleanly
 * closed database opens read-only and serves reads, writes fail as storage
 * failures the backup takes, and a database whose write-ahead log still holds
 * changes is refused with the way forward instead of being read without them.
 */
import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { isUnwritableError } from "../../src/memory/backup.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { readMemories } from "../../src/memory/read.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openStore } from "../../src/store/mod.ts";
import { canMountTmpfs, mountTmpfs, remount, unmount } from "../helpers/tmpfs.ts";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";

const mountable = canMountTmpfs();

function contextOf(store: ServiceContext["store"]): ServiceContext {
  return {
    store,
    caller: { client: "unit", agentId: "unit-agent" },
    settings: { workspaceIsolation: "none", includeSize: true },
    events: composeMemoryEvents(),
  };
}

Deno.test({
  name: "openStore opens a cleanly closed database on a read-only file system read-only",
  ignore: !mountable,
  async fn() {
    const dir = Deno.makeTempDirSync({ prefix: "mema-ro-" });
    const disk = `${dir}/disk`;
    Deno.mkdirSync(disk);
    mountTmpfs(disk, "20m");
    const dbPath = `${disk}/mema.sqlite3`;
    try {
      const writable = await openStore(dbPath, { cacheDir: `${dir}/cache`, skipVec: true });
      const { memoryId } = await rememberMemory(contextOf(writable), {
        content: "Backups run nightly at two.",
        subject: "backups",
        workspace: "w",
      });
      writable.close();
      await remount(disk, "ro");

      const store = await openStore(dbPath, { cacheDir: `${dir}/cache`, skipVec: true });
      try {
        assert.match(store.capabilities.readOnly ?? "", /Read-only file system/);
        const [entry] = await readMemories(contextOf(store), { memoryIds: [memoryId] });
        assert.ok(entry.ok);
        assert.equal(entry.result.content, "Backups run nightly at two.");
        const write = rememberMemory(contextOf(store), {
          content: "Cannot land here.",
          subject: "x",
          workspace: "w",
        });
        await assert.rejects(write, (error) => isUnwritableError(error));
      } finally {
        store.close();
      }
    } finally {
      await unmount(disk);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "openStore refuses a read-only database whose write-ahead log holds changes",
  ignore: !mountable,
  async fn() {
    const dir = Deno.makeTempDirSync({ prefix: "mema-ro-" });
    const disk = `${dir}/disk`;
    Deno.mkdirSync(disk);
    mountTmpfs(disk, "20m");
    try {
      const source = await openStore(`${dir}/mema.sqlite3`, {
        cacheDir: `${dir}/cache`,
        skipVec: true,
      });
      await rememberMemory(contextOf(source), {
        content: "In the log.",
        subject: "s",
        workspace: "w",
      });
      // A crash leaves the database and its log behind (the shared-memory file is rebuilt).
      Deno.copyFileSync(`${dir}/mema.sqlite3`, `${disk}/mema.sqlite3`);
      Deno.copyFileSync(`${dir}/mema.sqlite3-wal`, `${disk}/mema.sqlite3-wal`);
      source.close();
      await remount(disk, "ro");

      await assert.rejects(
        openStore(`${disk}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true }),
        (error) =>
          error instanceof MemaError && error.code === "storage_error" &&
          /not closed cleanly/.test(error.reason) && /writable/.test(error.hint ?? ""),
      );
    } finally {
      await unmount(disk);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
