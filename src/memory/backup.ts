/**
 * The last step of the degradation chain (docs/SPEC.md §7): when the database cannot
 * be written (disk full, read-only, I/O error), a write that would be lost is
 * appended, synced, to a JSONL file instead, and `replay_backup` applies it
 * later exactly once (each entry's id is logged in the same transaction that
 * applies it). Saved updates of one memory chain: each builds on the one saved
 * before it (`basedOn`) and records the version the memory will have once those
 * apply, so all of them apply, in order. A saved update is applied only to the
 * version it was based on, and only after the one it builds on applied; otherwise
 * replay reports a conflict and keeps the saved change (report, notice, backup
 * file) instead of overwriting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isUnwritableError } from "./backup.ts";
 *
 * assert.equal(isUnwritableError(new Error("database or disk is full")), true);
 * ```
 * @module
 */
import { prefixByUnits } from "../text/code_points.ts";
import { MemaError } from "../errors/mod.ts";
import { requireAuthorization } from "../core/authorization.ts";
import { nowIso } from "../platform/clock.ts";
import { ensureDir, isDirWritable } from "../platform/directories.ts";
import { appendLineDurable, rewriteLinesDurable } from "../platform/durable_lines.ts";
import { writeRefusal } from "../platform/file_info.ts";
import { readTextIfExists } from "../platform/files.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import type { CallerIdentity, ServiceContext } from "../core/context.ts";
import { type RememberInput, rememberInTransaction } from "./remember.ts";
import { isStorageFailure, type MemoryRecord, type Store } from "../store/mod.ts";
import { CHAIN_READS_MAX, CONFLICT_NOTICE_PREVIEW_CHARS } from "./backup_constants.ts";
import { contentSha } from "./content_hash.ts";
import { type MemoryEdit, projectUpdate, type UpdateInput, updateInTransaction } from "./update.ts";

/** True when `error` says the database cannot be written (not "bad input"). */
export function isUnwritableError(error: unknown): boolean {
  return isStorageFailure(error);
}

/** One saved write. */
export type BackupEntry =
  | { id: string; at: string; caller: CallerIdentity; action: "remember"; input: RememberInput }
  | UpdateEntry;

/** One saved update. */
export interface UpdateEntry {
  id: string;
  at: string;
  caller: CallerIdentity;
  action: "update";
  input: UpdateInput;
  /** The saved update of the same memory this one builds on (applied just before it). */
  basedOn?: string;
}

/**
 * Replays a saved remember. Its `follows` was not checked when it was saved (the
 * database could not be written); a link that no longer resolves is a recall hint
 * lost, not a reason to lose the acknowledged fact, so the fact is stored without it.
 */
async function replayRemember(ctx: ServiceContext, input: RememberInput): Promise<number> {
  try {
    return (await rememberInTransaction(ctx, { ...input, authorized: true })).memoryId;
  } catch (error) {
    if (!(error instanceof MemaError) || error.field !== "follows") throw error;
    return (await rememberInTransaction(ctx, { ...input, follows: undefined, authorized: true }))
      .memoryId;
  }
}

/** Where the backup goes: beside the database unless configured otherwise. */
export function defaultBackupPath(dbPath: string): string {
  return `${dbPath}.backup.jsonl`;
}

/**
 * Why a write could not be saved to the backup at `path` now (the file, or the
 * nearest existing directory on its way, cannot be written), or undefined when it could.
 */
export function backupRefusal(path: string): string | undefined {
  if (pathExists(path)) return writeRefusal(path);
  let dir = dirName(path);
  while (!pathExists(dir) && dirName(dir) !== dir) dir = dirName(dir);
  return isDirWritable(dir) ? undefined : `${dir} cannot be written`;
}

/** The result of a write that may have gone to the backup. */
export type WriteOutcome<T> =
  | { kind: "written"; result: T }
  | {
    kind: "backed_up";
    entryId: string;
    path: string;
    cause: string;
    /** A saved update: the version the memory will have once the backup is replayed. */
    version?: number;
  };

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
    if (!ctx.settings.backupPath) throw error;
    const path = ctx.settings.backupPath;
    const cause = isUnwritableError(error)
      ? (error as Error).message
      : entry.action === "update" && await buildsOnSavedChanges(ctx, path, entry.input, error)
      ? `memory ${entry.input.memoryId} has changes saved to the backup that are not replayed yet, and this change builds on them`
      : undefined;
    if (cause === undefined) throw error;
    const id = crypto.randomUUID();
    let version: number | undefined;
    // Composed under the backup file's lock: a saved update builds on the updates of the same
    // memory saved before it, by this process or another one appending to the same file.
    // The database is read first (the store is asynchronous, the lock's composition is not):
    // when another process saved an update of the memory in between, it is read again.
    let base = entry.action === "update"
      ? await readChainBase(ctx, readBackup(path).entries, entry.input)
      : undefined;
    const compose = (text: string): string => {
      const common = { id, at: nowIso(), caller: ctx.caller };
      if (entry.action === "remember") return JSON.stringify({ ...entry, ...common });
      const chained = chainUpdate(base!, parseBackup(text).entries, entry.input);
      version = chained.version;
      const saved: BackupEntry = { ...entry, input: chained.input, ...common };
      if (chained.basedOn !== undefined) saved.basedOn = chained.basedOn;
      return JSON.stringify(saved);
    };
    try {
      ensureDir(dirName(path));
      for (let attempt = 1;; attempt++) {
        try {
          appendLineDurable(path, compose);
          break;
        } catch (stale) {
          if (!(stale instanceof StaleChainBase) || attempt >= CHAIN_READS_MAX) throw stale;
          base = await readChainBase(ctx, readBackup(path).entries, entry.input as UpdateInput);
        }
      }
    } catch (backupError) {
      // A saved update that does not apply on top of the ones saved before it is bad input.
      if (backupError instanceof MemaError) throw backupError;
      throw new MemaError(
        "storage_error",
        `the database cannot be written (${cause}) and neither can the backup ${path}: ${backupError}`,
        {
          hint: sameDirectory(path, ctx.store.path)
            ? "the backup file lies beside the database, on the same disk: set backup_jsonl in the config file (or MEMA_BACKUP_JSONL) to a writable place on another disk, or free space / fix permissions; nothing was stored"
            : "free disk space or fix permissions of the backup file (backup_jsonl / MEMA_BACKUP_JSONL); nothing was stored",
          cause: error,
        },
      );
    }
    return { kind: "backed_up", entryId: id, path, cause, version };
  }
}

/** The fields whose check depends on the memory's content and version. */
const CHAINED_CHECK = /^(old_text|patches\.\d+\.old_text|expected_version|expected_content_hash)$/;

/**
 * True when an update failed a check against the database's version of its memory while
 * updates of that memory saved to the backup are not replayed yet: the agent's old_text or
 * expected version may be the saved changes' (the answers to them said so), so the update
 * joins their chain, where it is checked against the memory as they leave it.
 */
async function buildsOnSavedChanges(
  ctx: ServiceContext,
  path: string,
  input: UpdateInput,
  error: unknown,
): Promise<boolean> {
  if (!(error instanceof MemaError) || !CHAINED_CHECK.test(error.field ?? "")) return false;
  const saved = readBackup(path).entries.filter((e) =>
    e.action === "update" && e.input.memoryId === input.memoryId
  );
  if (saved.length === 0) return false;
  try {
    return await ctx.store.read(async () => {
      for (const e of saved) if (!await ctx.store.replayOutcome(e.id)) return true;
      return false;
    });
  } catch {
    return false;
  }
}

/** A saved update, placed at the end of its memory's chain of saved updates. */
interface ChainedUpdate {
  /** The input with the version it is based on pinned. */
  input: UpdateInput;
  /** The saved update it builds on. */
  basedOn?: string;
  /** The memory's version once it is applied. */
  version?: number;
}

/**
 * Places a saved update on top of the database's version of its memory and of every
 * update of that memory saved before it and not replayed yet: it is based on the last of
 * them (`basedOn`), and its pinned `expectedVersion` is the version the memory will have
 * once they apply (the "virtual" version). Its edit must apply to the content they leave
 * (an old_text the previous saved edit introduced is found), and the agent's own
 * `expected_version` / `expected_content_hash` are checked against that virtual memory,
 * as they would be had the database taken the earlier writes: a stale one fails now.
 *
 * A saved update that would not apply on replay (its base changed meanwhile) is passed
 * over, as replay will pass it over: the chain goes on from the state before it. When the
 * database cannot even be read, nothing is pinned and the update only follows the last
 * saved update of the memory; replay then compares the time it was saved instead.
 */
function chainUpdate(
  base: ChainBase,
  entries: readonly BackupEntry[],
  input: UpdateInput,
): ChainedUpdate {
  const saved = savedUpdatesOf(entries, input);
  if (base.unreadable) return { input, basedOn: saved.at(-1)?.id };
  // An update saved since the base was read: its replay outcome is not known here.
  if (saved.some((e) => !base.outcomes.has(e.id))) throw new StaleChainBase();
  const outcomes = base.outcomes;
  let current = base.current;
  if (!current) return { input };
  const applied = new Set(saved.filter((e) => outcomes.get(e.id) === "applied").map((e) => e.id));
  let basedOn: string | undefined;
  for (const earlier of saved) {
    if (outcomes.get(earlier.id) !== undefined) continue;
    if (earlier.basedOn !== undefined && !applied.has(earlier.basedOn)) continue;
    try {
      current = projectUpdate(current, earlier.input);
    } catch {
      continue;
    }
    applied.add(earlier.id);
    basedOn = earlier.id;
  }
  let after: MemoryRecord;
  try {
    after = projectUpdate(current, input);
  } catch (error) {
    if (basedOn === undefined || !(error instanceof MemaError)) throw error;
    throw new MemaError(
      error.code,
      `${error.reason} (counting the changes to memory ${current.id} saved to the backup while the database cannot be written, the last one ${basedOn})`,
      {
        field: error.field,
        details: error.details,
        hint:
          "the database still shows the memory without the saved changes; apply this change to the memory as the saved changes leave it",
      },
    );
  }
  return {
    input: input.expectedVersion === undefined
      ? { ...input, expectedVersion: current.version }
      : input,
    basedOn,
    version: after.version,
  };
}

/** What {@linkcode chainUpdate} reads from the database: the memory and the saved updates' fate. */
interface ChainBase {
  current: MemoryRecord | undefined;
  /** Replay outcome of each saved update of the memory (undefined: not replayed yet). */
  outcomes: Map<string, string | undefined>;
  /** The database could not be read. */
  unreadable: boolean;
}

/** The backup changed under the lock since its chain base was read: read it again. */
class StaleChainBase extends Error {}

function savedUpdatesOf(entries: readonly BackupEntry[], input: UpdateInput): UpdateEntry[] {
  return entries.filter((e): e is UpdateEntry =>
    e.action === "update" && e.input.memoryId === input.memoryId
  );
}

async function readChainBase(
  ctx: ServiceContext,
  entries: readonly BackupEntry[],
  input: UpdateInput,
): Promise<ChainBase> {
  const saved = savedUpdatesOf(entries, input);
  try {
    return await ctx.store.read(async () => {
      const outcomes = new Map<string, string | undefined>();
      for (const e of saved) outcomes.set(e.id, await ctx.store.replayOutcome(e.id));
      return { current: await ctx.store.getMemory(input.memoryId), outcomes, unreadable: false };
    });
  } catch {
    return { current: undefined, outcomes: new Map(), unreadable: true };
  }
}

function sameDirectory(a: string, b: string): boolean {
  return dirName(a) === dirName(b);
}

/** Reads the backup; a torn last line (crash mid-append) is reported, not fatal. */
export function readBackup(path: string): { entries: BackupEntry[]; unreadableLines: number[] } {
  return parseBackup(readTextIfExists(path) ?? "");
}

/** The entries of a backup file's text, and the numbers of the lines that are not entries. */
function parseBackup(text: string): { entries: BackupEntry[]; unreadableLines: number[] } {
  const entries: BackupEntry[] = [];
  const unreadableLines: number[] = [];
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

/** What marks a saved write as holding a purged memory's content. */
export interface PurgedContentMatch {
  /** Entries the replay log tied to a purged memory (already applied, or rejected). */
  entryIds: ReadonlySet<string>;
  /** Saved updates of these memories. */
  memoryIds: ReadonlySet<number>;
  /** Saved remembers of exactly this content (not replayed yet: replay would bring it back). */
  contentShas: ReadonlySet<string>;
}

/** The ids of the backup entries that hold content of purged memories. */
export function backupEntriesHolding(
  entries: readonly BackupEntry[],
  match: PurgedContentMatch,
): string[] {
  return entries.filter((entry) =>
    match.entryIds.has(entry.id) ||
    (entry.action === "update" && match.memoryIds.has(entry.input.memoryId)) ||
    (entry.action === "remember" && typeof entry.input.content === "string" &&
      match.contentShas.has(contentSha(entry.input.content)))
  ).map((entry) => entry.id);
}

/**
 * Removes the entries with these ids from the backup file, atomically (a synced copy
 * renamed over it, under the appenders' lock; see `rewriteLinesDurable`). Lines that
 * cannot be read are kept as they are (replay never applies them). Returns the lines removed.
 */
export function dropBackupEntries(path: string, ids: ReadonlySet<string>): number {
  if (ids.size === 0) return 0;
  return rewriteLinesDurable(path, (line) => {
    try {
      const entry = JSON.parse(line) as { id?: unknown };
      return typeof entry.id !== "string" || !ids.has(entry.id);
    } catch {
      return true;
    }
  });
}

/** One entry's replay result. */
export interface ReplayItem {
  entryId: string;
  action: string;
  at: string;
  outcome: "pending" | "applied" | "rejected" | "conflict" | "already_replayed";
  memoryId?: number;
  reason?: string;
  /** A conflict: the memory's version now, and the version the saved change was based on. */
  currentVersion?: number;
  basedOnVersion?: number | null;
  /** The saved update as the agent sent it, on every update that was not applied. */
  savedChange?: UpdateInput;
}

/** What replay_backup did (or, on a dry run, would do). */
export interface ReplayReport {
  path: string;
  dryRun: boolean;
  total: number;
  pending: number;
  applied: number;
  rejected: number;
  /** Updates not applied because the memory changed after they were saved. */
  conflicts: number;
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
    conflicts: 0,
    alreadyReplayed: 0,
    unreadableLines,
    items: [],
  };
  const pending = await ctx.store.read(async () => {
    const waiting: typeof page = [];
    for (const entry of page) if (!await ctx.store.replayOutcome(entry.id)) waiting.push(entry);
    return waiting;
  });
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
  if (pending.length > 0 && ctx.store.capabilities.readOnly) {
    throw new MemaError(
      "storage_error",
      `the database was opened read-only (${ctx.store.capabilities.readOnly}); the ${pending.length} saved change(s) stay in ${path}`,
      { hint: "make the database writable, restart mema, then run replay_backup again" },
    );
  }
  for (const entry of pending) {
    const as: ServiceContext = { ...ctx, caller: entry.caller };
    const base = { entryId: entry.id, action: entry.action, at: entry.at };
    try {
      const item = await ctx.store.write(async (): Promise<ReplayItem | undefined> => {
        if (await ctx.store.replayOutcome(entry.id)) return undefined;
        if (entry.action === "update") {
          const chain = await chainState(ctx.store, entry, entries);
          if (chain === "waiting") {
            return {
              ...base,
              outcome: "pending",
              memoryId: entry.input.memoryId,
              reason:
                `it builds on the saved change ${entry.basedOn}, which is not replayed yet (replay the entries before it first)`,
              savedChange: entry.input,
            };
          }
          const conflict = chain ?? await overtaken(ctx.store, entry);
          if (conflict) return await recordConflict(ctx, entry, conflict);
        }
        const id = entry.action === "remember"
          ? await replayRemember(as, entry.input)
          : (await updateInTransaction(as, { ...entry.input, authorized: true })).memoryId;
        await ctx.store.logReplay({
          entryId: entry.id,
          at: nowIso(),
          outcome: "applied",
          memoryId: id,
          detail: {},
        });
        return { ...base, outcome: "applied", memoryId: id };
      });
      if (item === undefined) {
        report.alreadyReplayed++;
        continue;
      }
      if (item.outcome === "conflict") report.conflicts++;
      else if (item.outcome === "pending") report.pending++;
      else report.applied++;
      report.items.push(item);
    } catch (error) {
      if (!(error instanceof MemaError)) throw error;
      // The entry cannot apply any more (say its memory was retired): log it so it is
      // reported once and not retried forever.
      await ctx.store.write(async () =>
        await ctx.store.logReplay({
          entryId: entry.id,
          at: nowIso(),
          outcome: "rejected",
          memoryId: null,
          detail: { error: error.code, reason: error.reason },
        })
      );
      report.rejected++;
      report.items.push({
        ...base,
        outcome: "rejected",
        reason: error.reason,
        savedChange: entry.action === "update" ? entry.input : undefined,
      });
    }
  }
  if (report.applied + report.rejected + report.conflicts > 0) {
    await ctx.store.write(async () =>
      await ctx.store.appendAudit({
        at: nowIso(),
        action: "replay_backup",
        memoryId: null,
        agentId: ctx.caller.agentId,
        client: ctx.caller.client,
        reason: null,
        detail: {
          path,
          applied: report.applied,
          rejected: report.rejected,
          conflicts: report.conflicts,
        },
      })
    );
  }
  return report;
}

/** Why a saved update no longer applies to its memory as it is now. */
interface Overtaken {
  current: MemoryRecord;
  basedOnVersion: number | null;
  reason: string;
}

/**
 * Where a saved update stands in its memory's chain: `waiting` while the saved update it
 * builds on is in the file but not replayed yet (it is left pending, not logged), overtaken
 * when that one was not applied (a conflict: applying this one would put its change on a
 * base it was not made on), undefined when it may apply (or builds on nothing).
 */
async function chainState(
  store: Store,
  entry: UpdateEntry,
  entries: readonly BackupEntry[],
): Promise<Overtaken | "waiting" | undefined> {
  if (entry.basedOn === undefined) return undefined;
  const outcome = await store.replayOutcome(entry.basedOn);
  if (outcome === "applied") return undefined;
  if (outcome === undefined && entries.some((e) => e.id === entry.basedOn)) return "waiting";
  const current = await store.getMemory(entry.input.memoryId);
  if (!current) return undefined; // the update itself reports not_found
  return {
    current,
    basedOnVersion: entry.input.expectedVersion ?? null,
    reason:
      `it builds on the change saved before it (backup entry ${entry.basedOn}), which was not applied`,
  };
}

/**
 * Checks a saved update against the memory as it is now: the version (and content
 * hash) it was based on must still be current. An entry without either (the
 * database could not even be read when it was saved, or an older build saved it)
 * is overtaken when the memory changed after the entry was saved.
 */
async function overtaken(
  store: Store,
  entry: UpdateEntry,
): Promise<Overtaken | undefined> {
  const input = entry.input;
  const current = await store.getMemory(input.memoryId);
  if (!current) return undefined; // the update itself reports not_found
  const basedOnVersion = input.expectedVersion ?? null;
  if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) {
    return {
      current,
      basedOnVersion,
      reason:
        `memory ${current.id} is at version ${current.version}; this change was based on version ${input.expectedVersion}`,
    };
  }
  if (
    input.expectedContentHash !== undefined &&
    input.expectedContentHash.toLowerCase() !== current.contentSha
  ) {
    return {
      current,
      basedOnVersion,
      reason: `memory ${current.id} content changed after this change was saved`,
    };
  }
  // One that builds on a saved change applied just before it (chainState) follows that one's
  // check: its memory's last change is that application.
  if (
    input.expectedVersion === undefined && input.expectedContentHash === undefined &&
    entry.basedOn === undefined && current.updatedAt > entry.at
  ) {
    return {
      current,
      basedOnVersion,
      reason:
        `memory ${current.id} was changed at ${current.updatedAt}, after this change was saved (${entry.at})`,
    };
  }
  return undefined;
}

/**
 * Logs a conflicting entry as replayed (it is not retried) and leaves a notice for
 * the agents, in the replay's transaction. Nothing is written to the memory.
 */
async function recordConflict(
  ctx: ServiceContext,
  entry: UpdateEntry,
  conflict: Overtaken,
): Promise<ReplayItem> {
  const { current, basedOnVersion, reason } = conflict;
  const now = nowIso();
  await ctx.store.logReplay({
    entryId: entry.id,
    at: now,
    outcome: "rejected",
    memoryId: current.id,
    detail: { conflict: true, reason, current_version: current.version, saved: entry.input },
  });
  const path = ctx.settings.backupPath;
  await ctx.store.conflicts.insertNotice({
    kind: "backup_replay_conflict",
    severity: "info",
    conflictId: null,
    dedupeKey: `backup-replay:${entry.id}`,
    title: `A change to memory ${current.id} saved during an outage was not applied`,
    message:
      `${reason}, so the change saved at ${entry.at} (backup entry ${entry.id} in ${path}) ` +
      `was not applied over the newer version. Read memory ${current.id} and, if the saved change ` +
      `still holds, make it again with update. The saved change: ${describeEdit(entry.input)}`,
    payload: {
      memory_ids: [current.id],
      backup_entry_id: entry.id,
      backup_path: path ?? null,
      current_version: current.version,
      based_on_version: basedOnVersion,
      saved: entry.input,
    },
    createdAt: now,
  });
  return {
    entryId: entry.id,
    action: entry.action,
    at: entry.at,
    outcome: "conflict",
    memoryId: current.id,
    reason,
    currentVersion: current.version,
    basedOnVersion,
    savedChange: entry.input,
  };
}

/** A saved update in words, long texts cut to a preview. */
function describeEdit(input: UpdateInput): string {
  const quote = (text: string) =>
    JSON.stringify(
      text.length > CONFLICT_NOTICE_PREVIEW_CHARS
        ? `${prefixByUnits(text, CONFLICT_NOTICE_PREVIEW_CHARS)}… (${text.length} characters)`
        : text,
    );
  const edit: MemoryEdit = input.edit;
  const parts: string[] = [];
  switch (edit.kind) {
    case "new_content":
      parts.push(`new_content ${quote(edit.content)}`);
      break;
    case "replace_text":
      parts.push(`replace ${quote(edit.oldText)} with ${quote(edit.newText)}`);
      break;
    case "patches":
      parts.push(
        edit.patches.map((p) => `replace ${quote(p.oldText)} with ${quote(p.newText)}`).join("; "),
      );
      break;
    case "tags_only":
      parts.push(
        `add tags ${JSON.stringify(edit.addTags)}, remove ${JSON.stringify(edit.removeTags)}`,
      );
      break;
    case "metadata_only":
      break;
  }
  if (input.newSubject !== undefined) parts.push(`new_subject ${quote(input.newSubject)}`);
  if (input.newTags !== undefined) parts.push(`new_tags ${JSON.stringify(input.newTags)}`);
  return parts.join("; ") || "(no change recorded)";
}
