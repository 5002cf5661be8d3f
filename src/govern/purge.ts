/**
 * Purging facts for good (a secret stored by mistake). Unlike retire, nothing stays
 * readable: the content of every version, the word-index entries, evidence rows and
 * vectors, pending jobs, notices, conflict membership and links go in one transaction;
 * the `memories` row stays as a content-free tombstone (status `deleted`) so its id is
 * never reused. The audit log keeps the ids, the content hashes and the purge's reason;
 * earlier audit rows about the memory lose their free text. After the commit the database
 * file and its WAL are scrubbed of the freed pages, and the JSONL backup loses the saved
 * writes that carried the content, so a later replay cannot bring it back.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { purgeMemories } from "./purge.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * await purgeMemories(ctx, { memoryId, reason: "stored by mistake", authorized: true });
 * const purged = await store.getMemory(memoryId);
 * assert.equal(purged?.status, "deleted");
 * assert.equal(purged?.content, ""); // the text is gone, the id stays taken
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import {
  backupEntriesHolding,
  type BackupEntry,
  backupRefusal,
  dropBackupEntries,
  readBackup,
} from "../memory/backup.ts";
import { contentSha } from "../memory/content_hash.ts";
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../platform/clock.ts";
import { pathExists } from "../platform/paths.ts";
import type {
  ConflictRecord,
  FreedSpaceScrub,
  MemoryRecord,
  PlanStep,
  Store,
} from "../store/mod.ts";
import { visible } from "../workspaces/access.ts";
import { requireAuthorization } from "../core/authorization.ts";
import {
  OWED_SCRUB_ATTEMPTS,
  OWED_SCRUB_RETRY_MS,
  PURGE_MAX_IDS,
  PURGE_REASON_MAX_CHARS,
} from "./constants.ts";

/** What the caller asks to purge. Exactly one of `memoryId` and `memoryIds`. */
export interface PurgeInput {
  memoryId?: number;
  memoryIds?: number[];
  reason?: string;
  authorized?: boolean;
}

/** What a purge removed. */
export interface PurgeResult {
  purgedIds: number[];
  /** Versions whose content was deleted (current and earlier), over all purged memories. */
  versionsPurged: number;
  /** Groups deleted because fewer than two members were left. */
  conflictsRemoved: number[];
  /** Groups that keep two or more members, rewritten without the purged one. */
  conflictsUpdated: number[];
  noticesRemoved: number;
  jobsRemoved: number;
  auditRowsScrubbed: number;
  backupEntriesRemoved: number;
  /** The database file was rebuilt (VACUUM): it predates secure_delete. */
  fileRebuilt: boolean;
  walTruncated: boolean;
  warnings: string[];
}

/** Strings an audit detail keeps under these keys: they hold fixed words, never content. */
const ENUM_KEYS = new Set([
  "action",
  "status",
  "from_status",
  "to_status",
  "verdict",
  "source_type",
  "protection_level",
  "kind",
]);
const HASH = /^[0-9a-f]{64}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * An audit detail without any text that may quote a fact: numbers, booleans, content
 * hashes, times and fixed enum words stay; every other string (tags, chosen values,
 * error messages, paths) goes.
 */
export function scrubAuditDetail(value: unknown, key?: string): unknown {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") {
    return HASH.test(value) || TIME.test(value) || (key !== undefined && ENUM_KEYS.has(key))
      ? value
      : undefined;
  }
  if (Array.isArray(value)) {
    return value.map((item) => scrubAuditDetail(item, key)).filter((item) => item !== undefined);
  }
  if (typeof value === "object") {
    const kept: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
      const scrubbed = scrubAuditDetail(item, name);
      if (scrubbed !== undefined) kept[name] = scrubbed;
    }
    return kept;
  }
  return undefined;
}

function checkIds(input: PurgeInput): { ids: number[]; field: (index: number) => string } {
  if ((input.memoryId === undefined) === (input.memoryIds === undefined)) {
    throw new MemaError("invalid_input", "give exactly one of memory_id and memory_ids", {
      field: "memory_id",
    });
  }
  const list = input.memoryIds ?? [input.memoryId as number];
  const field = (index: number) =>
    input.memoryIds === undefined ? "memory_id" : `memory_ids.${index}`;
  if (list.length === 0 || list.length > PURGE_MAX_IDS) {
    throw new MemaError(
      "invalid_input",
      `memory_ids must name 1 to ${PURGE_MAX_IDS} memories (got ${list.length})`,
      { field: "memory_ids", hint: "purge a longer list in several calls" },
    );
  }
  list.forEach((id, index) => {
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) {
      throw new MemaError("invalid_input", "a memory id is a positive integer", {
        field: field(index),
      });
    }
  });
  const ids = [...new Set(list)];
  return { ids, field: (index) => field(list.indexOf(ids[index])) };
}

function checkReason(reason: string | undefined): string {
  if (typeof reason !== "string" || reason.trim() === "") {
    throw new MemaError("invalid_input", "reason is required: say why, for the audit log", {
      field: "reason",
      hint: "the reason is kept in the audit log: do not repeat the purged text in it",
    });
  }
  if (reason.length > PURGE_REASON_MAX_CHARS) {
    throw new MemaError(
      "invalid_input",
      `reason is longer than ${PURGE_REASON_MAX_CHARS} characters`,
      { field: "reason" },
    );
  }
  return reason.trim();
}

/** Reads the backup before the transaction (file I/O never runs inside one). */
function savedEntries(path: string | undefined): BackupEntry[] {
  if (!path || !pathExists(path)) return [];
  return readBackup(path).entries;
}

/** A group left with fewer than two members is deleted; a larger one forgets the member. */
async function detachFromConflict(
  store: Store,
  group: ConflictRecord,
  memoryId: number,
  now: string,
): Promise<"removed" | "updated"> {
  const members = group.members.filter((member) => member.memory_id !== memoryId);
  if (new Set(members.map((member) => member.memory_id)).size < 2) {
    await store.deleteConflict(group.id);
    return "removed";
  }
  const valueGroups = group.valueGroups
    .map((value) => {
      const memory_ids = value.memory_ids.filter((id) => id !== memoryId);
      // The ways the remaining members wrote the value (the purged member's wording goes).
      const stated = group.members
        .filter((m) => m.memory_id !== memoryId && memory_ids.includes(m.memory_id))
        .flatMap((m) => m.value === undefined ? [] : [m.value]);
      return stated.length > 0
        ? { ...value, memory_ids, value: stated[0], variants: [...new Set(stated)] }
        : { ...value, memory_ids };
    })
    .filter((value) => value.memory_ids.length > 0);
  const held = (value: unknown) =>
    typeof value === "string" &&
    valueGroups.some((kept) => kept.value === value || kept.variants?.includes(value));
  const steps = (plan: unknown) =>
    Array.isArray(plan) ? (plan as PlanStep[]).filter((step) => step.memory_id !== memoryId) : plan;
  const chosenValue = held(group.chosenValue) ? group.chosenValue : null;
  // A decision that rested on the purged member's value is undone: the group is open again.
  const reopen = group.status === "applying" && chosenValue === null;
  const detection = { ...group.detection };
  if ("reason" in detection) detection.reason = null;
  // The rule stage's reasons quote the pair's words and values ("… 12 vs 15").
  const rule = detection.rule;
  if (rule && typeof rule === "object" && "reasons" in rule) {
    detection.rule = { ...rule, reasons: [] };
  }
  await store.rewriteConflictWithout(group.id, memoryId, {
    status: reopen ? "open" : group.status,
    // An agent-recorded group's key spells out its values; the hash still tells groups apart.
    candidateKey: `purged:${contentSha(group.candidateKey)}`,
    members,
    valueGroups,
    detection,
    chosenValue,
    decisionReason: null,
    plan: reopen ? [] : steps(group.plan) as PlanStep[],
    planHistory: group.planHistory.map((entry) => ({
      ...entry,
      plan: steps(entry.plan),
      ...("replaced" in entry ? { replaced: steps(entry.replaced) } : {}),
      chosen_value: held(entry.chosen_value) ? entry.chosen_value : null,
    })),
    staleClaims: chosenValue === null ? "drop" : "keep",
    memoryId,
    now,
  });
  return "updated";
}

/**
 * Purges memories for good (needs `authorized: true` and a reason). Unknown or already
 * purged ids are `not_found`; nothing changes unless every id can be purged.
 */
export async function purgeMemories(
  ctx: ServiceContext,
  input: PurgeInput,
): Promise<PurgeResult> {
  const { ids, field } = checkIds(input);
  const reason = checkReason(input.reason);
  const { store } = ctx;
  const backupPath = ctx.settings.backupPath;
  const saved = savedEntries(backupPath);
  const outcome = await store.write(async () => {
    const memories: MemoryRecord[] = [];
    for (const [index, id] of ids.entries()) {
      // Under strict isolation another workspace's memory is "not found", as everywhere.
      const memory = visible(ctx, await store.getMemory(id));
      if (!memory || memory.status === "deleted") {
        throw new MemaError("not_found", `memory ${id} does not exist`, { field: field(index) });
      }
      memories.push(memory);
    }
    requireAuthorization(input.authorized, {
      action: "purge",
      memoryIds: ids,
      impact: `This permanently deletes memor${ids.length === 1 ? "y" : "ies"} ${
        memories.map((m) => `${m.id} ("${m.subject}")`).join(", ")
      }: the content of every version, its search index entries, vectors, notices and conflict membership, and the saved copies in the JSONL backup. It cannot be undone: the audit log keeps only the ids, content hashes and this reason. Reason: ${reason}.`,
    });
    const now = nowIso();
    const result = {
      versionsPurged: 0,
      conflictsRemoved: [] as number[],
      conflictsUpdated: [] as number[],
      noticesRemoved: 0,
      jobsRemoved: 0,
      auditRowsScrubbed: 0,
      replayEntryIds: new Set<string>(),
      contentShas: new Set<string>(),
    };
    for (const memory of memories) {
      const conflictIds = await store.conflictIdsOf(memory.id);
      const earlierAudit = await store.auditMentioning(memory.id, conflictIds);
      // Its relations and the names only it used go first (issue 35).
      await store.dropMemoryGraph(memory.id);
      const purged = await store.purgeMemoryContent(memory, now);
      for (const conflictId of conflictIds) {
        const group = await store.conflicts.get(conflictId);
        if (!group) continue;
        const change = await detachFromConflict(store, group, memory.id, now);
        (change === "removed" ? result.conflictsRemoved : result.conflictsUpdated).push(group.id);
      }
      result.noticesRemoved += await store.deleteNoticesNaming(memory.id);
      for (const row of earlierAudit) {
        await store.scrubAuditRow(row.id, {
          reason: null,
          detail: { ...scrubAuditDetail(row.detail) as object, scrubbed_by_purge: true },
        });
      }
      result.auditRowsScrubbed += earlierAudit.length;
      result.jobsRemoved += purged.jobs;
      result.versionsPurged += 1 + purged.history.length;
      purged.replayEntryIds.forEach((id) => result.replayEntryIds.add(id));
      result.contentShas.add(memory.contentSha);
      purged.history.forEach((entry) => result.contentShas.add(entry.contentSha));
      await store.appendAudit({
        at: now,
        action: "purge",
        memoryId: memory.id,
        agentId: ctx.caller.agentId,
        client: ctx.caller.client,
        reason,
        detail: {
          version: memory.version,
          content_sha: memory.contentSha,
          earlier_versions: purged.history.map((entry) => ({
            version: entry.version,
            content_sha: entry.contentSha,
          })),
          evidence_rows: purged.rows,
          audit_rows_scrubbed: earlierAudit.length,
          conflicts: conflictIds,
        },
      });
    }
    await store.compactTermsIndex();
    const backupIds = backupEntriesHolding(saved, {
      entryIds: result.replayEntryIds,
      memoryIds: new Set(ids),
      contentShas: result.contentShas,
    });
    const refusal = backupIds.length > 0 && backupPath ? backupRefusal(backupPath) : undefined;
    if (refusal !== undefined) {
      throw new MemaError(
        "storage_error",
        `the JSONL backup ${backupPath} holds ${backupIds.length} saved write(s) of this content and cannot be rewritten (${refusal}); nothing was purged`,
        { hint: "make the backup file and its directory writable, then purge again" },
      );
    }
    // Logged as rejected, a saved write is never replayed, even if rewriting the file fails.
    for (const entryId of backupIds) {
      if (await store.replayOutcome(entryId) !== undefined) continue;
      await store.logReplay({
        entryId,
        at: now,
        outcome: "rejected",
        memoryId: null,
        detail: { purged: true },
      });
    }
    // Durable with the purge: if this process dies before the scrub below is done (or another
    // connection keeps the WAL), the next start finishes it (finishOwedScrub).
    await store.markScrubOwed(backupIds);
    return { ...result, backupIds };
  });
  const owed = await store.read(async () => await store.owedScrub());
  const warnings: string[] = [];
  let scrub: FreedSpaceScrub = { vacuumed: false, walTruncated: false, problems: [] };
  try {
    scrub = await store.scrubFreedSpace();
  } catch (error) {
    scrub.problems.push(String(error));
  }
  for (const problem of scrub.problems) {
    warnings.push(
      `purged from every table, but ${problem}: old pages may stay in the database files until the next purge (file rebuild) or until the last process using the database closes it (WAL)`,
    );
  }
  let backupEntriesRemoved = 0;
  let backupRewritten = true;
  // Entries an earlier purge still owed go too.
  const dropped = new Set([...outcome.backupIds, ...(owed?.backupIds ?? [])]);
  if (dropped.size > 0 && backupPath) {
    try {
      backupEntriesRemoved = dropBackupEntries(backupPath, dropped);
    } catch (error) {
      backupRewritten = false;
      warnings.push(
        `purged, but the JSONL backup ${backupPath} could not be rewritten (${error}): ${outcome.backupIds.length} saved write(s) of the purged content remain in it (entries ${
          outcome.backupIds.join(", ")
        }); replay skips them (they are logged as rejected), but the file still holds the text: remove those lines by hand`,
      );
    }
  }
  if (owed && scrub.walTruncated && backupRewritten) await clearDebt(store, owed.value);
  return {
    purgedIds: ids,
    versionsPurged: outcome.versionsPurged,
    conflictsRemoved: outcome.conflictsRemoved,
    conflictsUpdated: outcome.conflictsUpdated,
    noticesRemoved: outcome.noticesRemoved,
    jobsRemoved: outcome.jobsRemoved,
    auditRowsScrubbed: outcome.auditRowsScrubbed,
    backupEntriesRemoved,
    fileRebuilt: scrub.vacuumed,
    walTruncated: scrub.walTruncated,
    warnings,
  };
}

/**
 * Finishes the scrub a purge left owed (its process died first, or another connection kept
 * the WAL busy): checkpoints and truncates the WAL, retrying while readers hold it (bounded),
 * and drops the owed entries from the JSONL backup; then clears the debt. Runs when a server
 * opens the database, before it serves. Returns warnings for what is still owed (the debt
 * stays, and the next start or purge tries again).
 */
export async function finishOwedScrub(
  store: Store,
  backupPath: string | undefined,
): Promise<string[]> {
  if (store.capabilities.readOnly !== undefined) return [];
  const owed = await store.read(async () => await store.owedScrub());
  if (!owed) return [];
  let wal = await store.truncateWal();
  for (let attempt = 1; !wal.truncated && attempt < OWED_SCRUB_ATTEMPTS; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, OWED_SCRUB_RETRY_MS));
    wal = await store.truncateWal();
  }
  const warnings: string[] = [];
  if (!wal.truncated) {
    warnings.push(
      `an earlier purge's content may still be in ${store.path}-wal: ${wal.problem}; it is tried again at the next start or purge (close the other processes using the database first)`,
    );
  }
  let backupRewritten = true;
  if (owed.backupIds.length > 0 && backupPath) {
    try {
      dropBackupEntries(backupPath, new Set(owed.backupIds));
    } catch (error) {
      backupRewritten = false;
      warnings.push(
        `an earlier purge's content may still be in the JSONL backup ${backupPath} (${error}): entries ${
          owed.backupIds.join(", ")
        }; replay skips them; it is tried again at the next start or purge`,
      );
    }
  }
  if (wal.truncated && backupRewritten) await clearDebt(store, owed.value);
  return warnings;
}

/**
 * Clears a paid scrub debt. The purge is done and its scrub too: a failure to record that
 * (the disk filled up meanwhile) only means the next start checks again, never an error.
 */
async function clearDebt(store: Store, value: string): Promise<void> {
  try {
    await store.write(async () => await store.clearOwedScrub(value));
  } catch {
    // Paying it again is harmless: a truncation of an empty WAL and a rewrite that drops nothing.
  }
}
