/**
 * Retiring and merging memories (docs/SPEC.md §4 supersede chains). Both need the
 * user's approval, change no content, and leave an audit row; retired and
 * superseded memories leave default recall but stay readable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { retireMemory } from "./lifecycle.ts";
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
 * await retireMemory(ctx, { memoryId, reason: "deploys moved", authorized: true });
 * assert.equal((await store.getMemory(memoryId))?.status, "retired");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { updateInTransaction } from "../memory/update.ts";
import { memoryClaim } from "../memory/claims.ts";
import { closedWindow } from "../memory/validity.ts";
import { nowIso } from "../platform/clock.ts";
import type { MemoryRecord } from "../store/mod.ts";
import { requireAuthorization } from "../core/authorization.ts";
import { visible } from "../workspaces/access.ts";

async function liveMemory(ctx: ServiceContext, id: number, field: string): Promise<MemoryRecord> {
  const memory = visible(ctx, await ctx.store.getMemory(id));
  if (!memory || memory.status === "deleted") {
    throw new MemaError("not_found", `memory ${id} does not exist`, { field });
  }
  if (memory.status !== "active" && memory.status !== "pending") {
    throw new MemaError("invalid_input", `memory ${id} is already ${memory.status}`, {
      field,
      hint: memory.supersededBy ? `it was superseded by memory ${memory.supersededBy}` : undefined,
    });
  }
  return memory;
}

/** The reason a governance action gives for the audit log: required, trimmed. */
export function checkReason(reason: string | undefined): string {
  if (reason === undefined || reason.trim() === "") {
    throw new MemaError("invalid_input", "reason is required: say why, for the audit log", {
      field: "reason",
    });
  }
  return reason.trim();
}

/** What retire did. */
export interface RetireResult {
  memoryId: number;
  status: "retired" | "superseded";
  supersededBy: number | null;
  /** Where superseding closed the fact's validity window. */
  validTo?: string;
}

/**
 * Takes a memory out of default recall: `superseded` when another memory
 * replaces it (`supersededBy`), otherwise `retired`.
 */
export async function retireMemory(
  ctx: ServiceContext,
  input: {
    memoryId: number;
    supersededBy?: number;
    /** Superseded, the fact still holds: its validity window stays open. */
    previousStillValid?: boolean;
    reason?: string;
    authorized?: boolean;
  },
): Promise<RetireResult> {
  const reason = checkReason(input.reason);
  // Beside remembers and updates (`concurrent`): the unit claims both memories before it reads
  // their status, so no other writer of either comes between its read and its write.
  const claims = [
    input.memoryId,
    ...(input.supersededBy === undefined ? [] : [input.supersededBy]),
  ];
  return await ctx.store.write(async () => {
    await ctx.store.claimKeys(claims.map(memoryClaim));
    const memory = await liveMemory(ctx, input.memoryId, "memory_id");
    let successor: MemoryRecord | undefined;
    if (input.supersededBy !== undefined) {
      if (input.supersededBy === memory.id) {
        throw new MemaError("invalid_input", "a memory cannot supersede itself", {
          field: "superseded_by",
        });
      }
      successor = await liveMemory(ctx, input.supersededBy, "superseded_by");
    }
    const status = input.supersededBy === undefined ? "retired" : "superseded";
    requireAuthorization(input.authorized, {
      action: "retire",
      memoryIds: [memory.id],
      impact: `Memory ${memory.id} ("${memory.subject}") becomes ${status}${
        input.supersededBy ? ` by memory ${input.supersededBy}` : ""
      }: it leaves default recall but stays readable in history and the expired view. Reason: ${reason}.`,
    });
    const now = nowIso();
    await ctx.store.setStatus(memory.id, { status, supersededBy: input.supersededBy ?? null, now });
    // A retired fact no longer says who or what anything is (issue 35).
    await ctx.store.dropMemoryGraph(memory.id);
    // docs/SPEC.md §16: the replaced fact stops holding where its successor starts (now, when the
    // successor names no start), unless the caller says it still holds.
    const closed = successor && !input.previousStillValid
      ? closedWindow(memory, successor.validFrom ?? now)
      : undefined;
    const validTo = closed && closed.validTo !== memory.validTo ? closed.validTo! : undefined;
    if (validTo !== undefined) await ctx.store.changeMemory(memory.id, { validTo, updatedAt: now });
    await ctx.store.appendAudit({
      at: now,
      action: "retire",
      memoryId: memory.id,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason,
      detail: {
        from_status: memory.status,
        to_status: status,
        superseded_by: input.supersededBy ?? null,
        ...(validTo !== undefined ? { valid_to: validTo } : {}),
      },
    });
    return {
      memoryId: memory.id,
      status,
      supersededBy: input.supersededBy ?? null,
      ...(validTo !== undefined ? { validTo } : {}),
    };
  }, { concurrent: true });
}

/** What merge did. */
export interface MergeResult {
  survivorId: number;
  version: number;
  mergedIds: number[];
}

/**
 * Folds `loserIds` into `survivorId`: each loser becomes superseded by the
 * survivor (its own versions stay readable), the survivor records where it
 * came from in `metadata.merged_from`, and `mergedContent`, when given,
 * becomes the survivor's next version (the old text stays in its history).
 */
export async function mergeMemories(
  ctx: ServiceContext,
  input: {
    survivorId: number;
    loserIds: number[];
    mergedContent?: string;
    reason?: string;
    authorized?: boolean;
  },
): Promise<MergeResult> {
  const reason = checkReason(input.reason);
  const losers = [...new Set(input.loserIds)];
  if (losers.length === 0) {
    throw new MemaError("invalid_input", "loser_ids must name at least one memory", {
      field: "loser_ids",
    });
  }
  if (losers.includes(input.survivorId)) {
    throw new MemaError("invalid_input", "the survivor cannot also be a loser", {
      field: "loser_ids",
    });
  }
  return await ctx.store.write(async () => {
    const survivor = await liveMemory(ctx, input.survivorId, "survivor_id");
    const records: MemoryRecord[] = [];
    for (const [index, id] of losers.entries()) {
      records.push(await liveMemory(ctx, id, `loser_ids.${index}`));
    }
    requireAuthorization(input.authorized, {
      action: "merge_memories",
      memoryIds: [survivor.id, ...losers],
      impact: `Memories ${losers.join(", ")} (${
        records.map((r) => `"${r.subject}"`).join(", ")
      }) become superseded by memory ${survivor.id} ("${survivor.subject}")${
        input.mergedContent !== undefined ? ", whose content is replaced by the merged text" : ""
      }. Every version stays readable. Reason: ${reason}.`,
    });
    let version = survivor.version;
    if (input.mergedContent !== undefined) {
      version = (await updateInTransaction(ctx, {
        memoryId: survivor.id,
        edit: { kind: "new_content", content: input.mergedContent },
        reason: `merge of ${losers.join(", ")}: ${reason}`,
        authorized: true,
      })).version;
    }
    const now = nowIso();
    for (const loser of records) {
      await ctx.store.setStatus(loser.id, { status: "superseded", supersededBy: survivor.id, now });
      await ctx.store.dropMemoryGraph(loser.id);
      // A merged-away fact stops holding where the survivor starts (now, when it names no start).
      const closed = closedWindow(loser, survivor.validFrom ?? now);
      if (closed.validTo !== loser.validTo) {
        await ctx.store.changeMemory(loser.id, { validTo: closed.validTo, updatedAt: now });
      }
    }
    const previous = Array.isArray(survivor.metadata.merged_from)
      ? survivor.metadata.merged_from as number[]
      : [];
    await ctx.store.setMetadata(survivor.id, {
      ...survivor.metadata,
      merged_from: [...new Set([...previous, ...losers])],
    });
    await ctx.store.appendAudit({
      at: now,
      action: "merge_memories",
      memoryId: survivor.id,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason,
      detail: {
        loser_ids: losers,
        loser_versions: Object.fromEntries(records.map((r) => [r.id, r.version])),
        merged_content: input.mergedContent !== undefined,
        survivor_version: version,
      },
    });
    return { survivorId: survivor.id, version, mergedIds: losers };
  });
}

/** Promotes a memory to `user_confirmed` and locks it. */
export async function confirmMemory(
  ctx: ServiceContext,
  input: { memoryId: number; reason?: string; authorized?: boolean },
): Promise<{ memoryId: number; sourceType: "user_confirmed"; protectionLevel: "locked" }> {
  return await ctx.store.write(async () => {
    const memory = await liveMemory(ctx, input.memoryId, "memory_id");
    requireAuthorization(input.authorized, {
      action: "confirm",
      memoryIds: [memory.id],
      impact:
        `Memory ${memory.id} ("${memory.subject}") becomes user_confirmed, the most trusted level, and locked: later changes need approval.`,
    });
    const now = nowIso();
    await ctx.store.setTrust(memory.id, {
      sourceType: "user_confirmed",
      protectionLevel: "locked",
      now,
    });
    await ctx.store.appendAudit({
      at: now,
      action: "confirm",
      memoryId: memory.id,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason: input.reason ?? null,
      detail: {
        from: { source_type: memory.sourceType, protection_level: memory.protectionLevel },
        to: { source_type: "user_confirmed", protection_level: "locked" },
        version: memory.version,
      },
    });
    return { memoryId: memory.id, sourceType: "user_confirmed", protectionLevel: "locked" };
  });
}
