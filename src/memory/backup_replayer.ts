/**
 * On a database server (PostgreSQL), writes saved to the local JSONL backup while it could not
 * be reached are replayed by the server that saved them, by itself, once the database answers
 * again: the agent was told its fact was saved, and no person is there to run
 * `replay_backup` on a team's shared database. The replay is `replay_backup`'s
 * ({@linkcode replayBackup}): each entry is applied as its original caller and its id logged in
 * the same transaction, so an entry is applied once however often, or by however many servers,
 * the file is replayed. A SQLite file that cannot be written keeps the manual `replay_backup`
 * (someone has to make the file writable first).
 *
 * Each tick looks at the backup file's signature (inode, size, time): when it changed since the
 * last replay that left nothing pending, or the database was unreachable, the file is replayed;
 * a replay that fails (the database still away) is tried again at the next tick. The first tick
 * runs at once, so a server killed while the database was away replays on its next start.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 * import { openStore } from "../store/mod.ts";
 * import { startBackupReplayer } from "./backup_replayer.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
 * const replayer = startBackupReplayer({
 *   store,
 *   caller: { client: "doc", agentId: "doc" },
 *   settings: { workspaceIsolation: "none", includeSize: true, backupPath: `${dir}/b.jsonl` },
 *   events: composeMemoryEvents(),
 * }, { tickMs: 10 });
 * await replayer.stop();
 * assert.equal(replayer.replays, 0, "no backup file: nothing to replay");
 * await store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { fileSignature } from "../platform/file_info.ts";
import { logInfo, logWarn } from "../platform/log.ts";
import { replayBackup } from "./backup.ts";
import { BACKUP_REPLAY_TICK_MS } from "./backup_constants.ts";

/** The running replayer. */
export interface BackupReplayer {
  /** How many replays applied, rejected or set aside at least one entry. */
  readonly replays: number;
  /** Stops ticking; waits for a replay in progress. */
  stop(): Promise<void>;
}

/** Starts replaying `ctx`'s backup file whenever it holds writes the database has not taken. */
export function startBackupReplayer(
  ctx: ServiceContext,
  options: { tickMs?: number } = {},
): BackupReplayer {
  const path = ctx.settings.backupPath;
  const tickMs = options.tickMs ?? BACKUP_REPLAY_TICK_MS;
  // The file's signature when a replay last left nothing pending in it.
  let settled: string | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let warned = "";
  const state = { replays: 0 };

  const tick = async (): Promise<void> => {
    if (!path) return;
    const signature = fileSignature(path);
    if (signature === undefined) return;
    if (signature === settled && ctx.store.capabilities.unreachable === undefined) return;
    try {
      const report = await replayBackup(ctx, {
        dryRun: false,
        authorized: true,
        limit: Number.MAX_SAFE_INTEGER,
        offset: 0,
      });
      warned = "";
      if (report.applied + report.rejected + report.conflicts > 0) {
        state.replays++;
        logInfo(
          `replayed the local backup ${path}: ${report.applied} applied, ${report.rejected} rejected, ${report.conflicts} conflict(s)`,
        );
      }
      // Entries still pending wait on one another: the next tick tries again.
      if (report.pending === 0) settled = signature;
    } catch (error) {
      // The database is still away (every answer says so); say anything else once.
      const reason = error instanceof Error ? error.message : String(error);
      if (ctx.store.capabilities.unreachable === undefined && reason !== warned) {
        warned = reason;
        logWarn(`replaying the local backup ${path} failed (tried again): ${reason}`);
      }
    }
  };
  const schedule = (delay: number): void => {
    timer = setTimeout(() => {
      running = tick().finally(() => {
        if (!stopped) schedule(tickMs);
      });
    }, delay);
  };
  schedule(0);
  return {
    get replays() {
      return state.replays;
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
