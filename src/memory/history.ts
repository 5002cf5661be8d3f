/**
 * A memory's versions, a diff between two of them, and history cleanup.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoryHistory } from "./history.ts";
 * import { rememberMemory } from "./remember.ts";
 * import { updateMemory } from "./update.ts";
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
 * await updateMemory(ctx, {
 *   memoryId,
 *   edit: { kind: "replace_text", oldText: "Fridays", newText: "Mondays" },
 * });
 * const history = await memoryHistory(ctx, { memoryId, fromVersion: 1, toVersion: 2 });
 * assert.match(history.diff!.unified, /\+Deploys run on Mondays\./);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { requireAuthorization } from "../core/authorization.ts";
import { nowIso } from "../platform/clock.ts";
import type { HistoryEntry, MemoryRecord } from "../store/mod.ts";
import { unifiedDiff } from "../text/unified_diff.ts";
import type { ServiceContext } from "../core/context.ts";
import { visible } from "../workspaces/access.ts";

/** One version as the history view shows it. */
export interface VersionView {
  version: number;
  subject: string;
  content: string;
  contentSha: string;
  tags: string[];
  current: boolean;
  /** The version's validity window (for a replaced one, as it stood when it was replaced). */
  validFrom: string | null;
  validTo: string | null;
  /** When this version was replaced, by whom and why (undefined for the current one). */
  replaced?: { at: string; by: string; client: string; reason: string | null };
}

/** The history view. */
export interface HistoryView {
  memory: MemoryRecord;
  versions: VersionView[];
  diff?: { from: number; to: number; unified: string };
  /** Memories merged into or superseded by this one. */
  absorbed: { memoryId: number; subject: string; status: string; version: number }[];
}

function versionsOf(memory: MemoryRecord, history: HistoryEntry[]): VersionView[] {
  const versions: VersionView[] = history.map((entry) => ({
    version: entry.version,
    subject: entry.subject,
    content: entry.content,
    contentSha: entry.contentSha,
    tags: entry.tags,
    current: false,
    validFrom: entry.validFrom,
    validTo: entry.validTo,
    replaced: {
      at: entry.changedAt,
      by: entry.changedBy,
      client: entry.changedByClient,
      reason: entry.reason,
    },
  }));
  versions.push({
    version: memory.version,
    subject: memory.subject,
    content: memory.content,
    contentSha: memory.contentSha,
    tags: memory.tags,
    current: true,
    validFrom: memory.validFrom,
    validTo: memory.validTo,
  });
  return versions;
}

/** Every version of a memory, and a unified diff between two (default: the last change). */
export async function memoryHistory(
  ctx: ServiceContext,
  input: { memoryId: number; fromVersion?: number; toVersion?: number },
): Promise<HistoryView> {
  return await ctx.store.read(async () => {
    const memory = visible(ctx, await ctx.store.getMemory(input.memoryId));
    if (!memory || memory.status === "deleted") {
      throw new MemaError("not_found", `memory ${input.memoryId} does not exist`, {
        field: "memory_id",
      });
    }
    const versions = versionsOf(memory, await ctx.store.listHistory(memory.id));
    const byVersion = new Map(versions.map((v) => [v.version, v]));
    const to = input.toVersion ?? memory.version;
    const from = input.fromVersion ?? versions[versions.length - 2]?.version;
    for (const [field, version] of [["from_version", from], ["to_version", to]] as const) {
      if (version !== undefined && !byVersion.has(version)) {
        throw new MemaError("invalid_input", `memory ${memory.id} has no version ${version}`, {
          field,
          hint: `versions kept: ${versions.map((v) => v.version).join(", ")}`,
        });
      }
    }
    const view: HistoryView = {
      memory,
      versions,
      absorbed: [],
    };
    for (const id of await ctx.store.supersededBy(memory.id)) {
      const other = visible(ctx, await ctx.store.getMemory(id));
      if (other) {
        view.absorbed.push({
          memoryId: id,
          subject: other.subject,
          status: other.status,
          version: other.version,
        });
      }
    }
    if (from !== undefined && from !== to) {
      const a = byVersion.get(from)!;
      const b = byVersion.get(to)!;
      view.diff = {
        from,
        to,
        unified: unifiedDiff(`${a.subject}\n\n${a.content}`, `${b.subject}\n\n${b.content}`, {
          fromLabel: `memory ${memory.id} v${from}`,
          toLabel: `memory ${memory.id} v${to}`,
        }),
      };
    }
    return view;
  });
}

/**
 * Deletes earlier versions of a memory (with approval). The current version
 * is never deleted; `olderThanDays` selects versions replaced before then.
 */
export async function cleanupHistory(
  ctx: ServiceContext,
  input: { memoryId: number; versions?: number[]; olderThanDays?: number; authorized?: boolean },
): Promise<{ memoryId: number; removedVersions: number[]; keptVersions: number[] }> {
  if ((input.versions === undefined) === (input.olderThanDays === undefined)) {
    throw new MemaError("invalid_input", "give exactly one of versions or older_than_days", {
      field: "versions",
    });
  }
  return await ctx.store.write(async () => {
    const memory = visible(ctx, await ctx.store.getMemory(input.memoryId));
    if (!memory || memory.status === "deleted") {
      throw new MemaError("not_found", `memory ${input.memoryId} does not exist`, {
        field: "memory_id",
      });
    }
    if (input.versions?.includes(memory.version)) {
      throw new MemaError(
        "invalid_input",
        `version ${memory.version} is the current version of memory ${memory.id}; it cannot be cleaned up`,
        { field: "versions", hint: "only earlier versions can be removed" },
      );
    }
    const history = await ctx.store.listHistory(memory.id);
    const cutoff = input.olderThanDays === undefined
      ? undefined
      : new Date(Date.now() - input.olderThanDays * 86_400_000).toISOString();
    const targets = input.versions !== undefined
      ? input.versions
      : history.filter((entry) => entry.changedAt < cutoff!).map((entry) => entry.version);
    const known = new Set(history.map((entry) => entry.version));
    const missing = targets.filter((version) => !known.has(version));
    if (missing.length > 0) {
      throw new MemaError(
        "invalid_input",
        `memory ${memory.id} has no earlier version ${missing.join(", ")}`,
        {
          field: "versions",
          hint: `earlier versions kept: ${[...known].join(", ") || "none"}`,
        },
      );
    }
    requireAuthorization(input.authorized, {
      action: "cleanup_history",
      memoryIds: [memory.id],
      impact: `This permanently deletes ${targets.length} earlier version(s) (${
        targets.join(", ") || "none"
      }) of memory ${memory.id} ("${memory.subject}"). The current version ${memory.version} stays.`,
    });
    const removed = await ctx.store.deleteHistory(memory.id, targets);
    await ctx.store.appendAudit({
      at: nowIso(),
      action: "cleanup_history",
      memoryId: memory.id,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason: null,
      detail: {
        removed_versions: removed,
        removed_hashes: history.filter((h) => removed.includes(h.version)).map((h) => h.contentSha),
      },
    });
    return {
      memoryId: memory.id,
      removedVersions: removed,
      keptVersions: [...known].filter((v) => !removed.includes(v)),
    };
  });
}
