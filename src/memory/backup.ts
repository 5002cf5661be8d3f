/**
 * The last step of the degradation chain (SPEC §7): when the database cannot
 * be written (disk full, read-only, I/O error), a write that would be lost is
 * appended, synced, to a JSONL file instead, and `replay_backup` applies it
 * later exactly once (each entry's id is logged in the same transaction that
 * applies it).
 *
 * @example
 * ```ts
 * import { isUnwritableError } from "./src/memory/backup.ts";
 * isUnwritableError(new Error("database or disk is full")); // true
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { requireAuthorization } from "../govern/authorization.ts";
import {
  appendLineDurable,
  dirName,
  ensureDir,
  nowIso,
  readTextIfExists,
} from "../platform/mod.ts";
import type { CallerIdentity, ServiceContext } from "./context.ts";
import { type RememberInput, rememberInTransaction } from "./remember.ts";
import { type UpdateInput, updateInTransaction } from "./update.ts";

/** SQLite failures that mean "this file cannot take writes now", not "bad input". */
const UNWRITABLE =
  /database or disk is full|attempt to write a readonly database|readonly database|disk I\/O error|unable to open database file|read-only file system|no space left/i;

/** True when `error` says the database cannot be written. */
export function isUnwritableError(error: unknown): boolean {
  if (error instanceof MemaError) return false;
  return error instanceof Error && UNWRITABLE.test(error.message);
}

/** One saved write. */
export type BackupEntry =
  | { id: string; at: string; caller: CallerIdentity; action: "remember"; input: RememberInput }
  | { id: string; at: string; caller: CallerIdentity; action: "update"; input: UpdateInput };

/**
 * Replays a saved remember. Its `follows` was not checked when it was saved (the
 * database could not be written); a link that no longer resolves is a recall hint
 * lost, not a reason to lose the acknowledged fact, so the fact is stored without it.
 */
function replayRemember(ctx: ServiceContext, input: RememberInput): number {
  try {
    return rememberInTransaction(ctx, { ...input, authorized: true }).memoryId;
  } catch (error) {
    if (!(error instanceof MemaError) || error.field !== "follows") throw error;
    return rememberInTransaction(ctx, { ...input, follows: undefined, authorized: true }).memoryId;
  }
}

/** Where the backup goes: beside the database unless configured otherwise. */
export function defaultBackupPath(dbPath: string): string {
  return `${dbPath}.backup.jsonl`;
}

/** The result of a write that may have gone to the backup. */
export type WriteOutcome<T> =
  | { kind: "written"; result: T }
  | { kind: "backed_up"; entryId: string; path: string; cause: string };

/**
 * Runs a write; if the database cannot be written, saves it to the backup
 * file instead. Bad input still fails normally: only storage failures divert.
 */
export async function writeOrBackup<T>(
  ctx: ServiceContext,
  entry: { action: "remember"; input: RememberInput } | { action: "update"; input: UpdateInput },
  write: () => Promise<T>,
): Promise<WriteOutcome<T>> {
  try {
    return { kind: "written", result: await write() };
  } catch (error) {
    if (!isUnwritableError(error) || !ctx.settings.backupPath) throw error;
    const path = ctx.settings.backupPath;
    const saved = {
      ...entry,
      id: crypto.randomUUID(),
      at: nowIso(),
      caller: ctx.caller,
    } as BackupEntry;
    try {
      ensureDir(dirName(path));
      appendLineDurable(path, JSON.stringify(saved));
    } catch (backupError) {
      throw new MemaError(
        "storage_error",
        `the database cannot be written (${
          (error as Error).message
        }) and neither can the backup ${path}: ${backupError}`,
        { hint: "free disk space or fix permissions; nothing was stored", cause: error },
      );
    }
    return { kind: "backed_up", entryId: saved.id, path, cause: (error as Error).message };
  }
}

/** Reads the backup; a torn last line (crash mid-append) is reported, not fatal. */
export function readBackup(path: string): { entries: BackupEntry[]; unreadableLines: number[] } {
  const text = readTextIfExists(path);
  const entries: BackupEntry[] = [];
  const unreadableLines: number[] = [];
  if (text === undefined) return { entries, unreadableLines };
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      const entry = JSON.parse(line) as BackupEntry;
      if (
        typeof entry.id !== "string" || (entry.action !== "remember" && entry.action !== "update")
      ) {
        throw new Error("not a backup entry");
      }
      entries.push(entry);
    } catch {
      unreadableLines.push(index + 1);
    }
  });
  return { entries, unreadableLines };
}

/** One entry's replay result. */
export interface ReplayItem {
  entryId: string;
  action: string;
  at: string;
  outcome: "pending" | "applied" | "rejected" | "already_replayed";
  memoryId?: number;
  reason?: string;
}

/** What replay_backup did (or, on a dry run, would do). */
export interface ReplayReport {
  path: string;
  dryRun: boolean;
  total: number;
  pending: number;
  applied: number;
  rejected: number;
  alreadyReplayed: number;
  unreadableLines: number[];
  items: ReplayItem[];
}

/**
 * Replays the backup. A dry run lists what is pending; a real run needs
 * approval and applies each pending entry as its original caller, logging it
 * in the same transaction, so running it again applies nothing.
 */
export async function replayBackup(
  ctx: ServiceContext,
  input: { dryRun: boolean; authorized?: boolean; limit: number; offset: number },
): Promise<ReplayReport> {
  const path = ctx.settings.backupPath;
  if (!path) throw new MemaError("invalid_input", "no backup file is configured");
  const { entries, unreadableLines } = readBackup(path);
  const page = entries.slice(input.offset, input.offset + input.limit);
  const report: ReplayReport = {
    path,
    dryRun: input.dryRun,
    total: entries.length,
    pending: 0,
    applied: 0,
    rejected: 0,
    alreadyReplayed: 0,
    unreadableLines,
    items: [],
  };
  const pending = ctx.store.read(() => page.filter((entry) => !ctx.store.replayOutcome(entry.id)));
  report.alreadyReplayed = page.length - pending.length;
  if (input.dryRun) {
    report.pending = pending.length;
    report.items = pending.map((e) => ({
      entryId: e.id,
      action: e.action,
      at: e.at,
      outcome: "pending",
    }));
    return report;
  }
  if (pending.length > 0) {
    requireAuthorization(input.authorized, {
      action: "replay_backup",
      impact:
        `This writes ${pending.length} saved change(s) from ${path} into the database, as the agents that made them. Entries already replayed are skipped.`,
    });
  }
  for (const entry of pending) {
    const as: ServiceContext = { ...ctx, caller: entry.caller };
    try {
      const memoryId = await ctx.store.write(() => {
        if (ctx.store.replayOutcome(entry.id)) return undefined;
        const id = entry.action === "remember"
          ? replayRemember(as, entry.input)
          : updateInTransaction(as, { ...entry.input, authorized: true }).memoryId;
        ctx.store.logReplay({
          entryId: entry.id,
          at: nowIso(),
          outcome: "applied",
          memoryId: id,
          detail: {},
        });
        return id;
      });
      if (memoryId === undefined) {
        report.alreadyReplayed++;
        continue;
      }
      report.applied++;
      report.items.push({
        entryId: entry.id,
        action: entry.action,
        at: entry.at,
        outcome: "applied",
        memoryId,
      });
    } catch (error) {
      if (!(error instanceof MemaError)) throw error;
      // The entry cannot apply any more (say its expected_version is stale): log it so it is
      // reported once and not retried forever.
      await ctx.store.write(() =>
        ctx.store.logReplay({
          entryId: entry.id,
          at: nowIso(),
          outcome: "rejected",
          memoryId: null,
          detail: { error: error.code, reason: error.reason },
        })
      );
      report.rejected++;
      report.items.push({
        entryId: entry.id,
        action: entry.action,
        at: entry.at,
        outcome: "rejected",
        reason: error.reason,
      });
    }
  }
  if (report.applied + report.rejected > 0) {
    await ctx.store.write(() =>
      ctx.store.appendAudit({
        at: nowIso(),
        action: "replay_backup",
        memoryId: null,
        agentId: ctx.caller.agentId,
        client: ctx.caller.client,
        reason: null,
        detail: { path, applied: report.applied, rejected: report.rejected },
      })
    );
  }
  return report;
}
