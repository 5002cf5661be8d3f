/**
 * The `memory_repair` tool: maintenance of derived data (docs/SPEC.md §5).
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { replayBackup } from "../memory/backup.ts";
import { SCAN_QUEUE_PAGE_MAX, SCAN_SUBMIT_MAX } from "../conflicts/constants_pipeline.ts";
import { manageNotices } from "../conflicts/notices.ts";
import {
  NOTICE_BULK_MAX,
  NOTICE_LIST_DEFAULT,
  NOTICE_LIST_MAX,
} from "../conflicts/notice_constants.ts";
import {
  kickScan,
  recordConflict,
  scanDuplicates,
  scanQueuePage,
  scanQueueSubmit,
} from "../conflicts/scan.ts";
import { cleanupHistory } from "../memory/history.ts";
import type { UpdateInput } from "../memory/update.ts";
import type { McpRuntime } from "./runtime.ts";
import { type VerbHandler, verbHelp, type VerbTool } from "./verb_tool.ts";

/** Largest rebuild batch (rows embedded per call). */
const REBUILD_BATCH_MAX = 500;
const REBUILD_BATCH_DEFAULT = 200;

const REPAIR_TASKS = {
  rebuild_evidence: {
    description:
      "Rebuild evidence rows and vectors for the configured embedding model. dry_run (default true) reports the work; then call with dry_run:false repeatedly until complete:true.",
    schema: z.object({
      dry_run: z.boolean().optional().describe("default true: report only"),
      batch_size: z.number().int().min(1).max(REBUILD_BATCH_MAX).optional().describe(
        `rows embedded per call, default ${REBUILD_BATCH_DEFAULT}`,
      ),
    }),
    example: { dry_run: false, batch_size: 200 },
  },
  semantic_control: {
    description:
      "Vector recall state (status) or release the embedding model from memory (unload).",
    schema: z.object({ action: z.enum(["status", "unload"]) }),
    example: { action: "status" },
  },
  cleanup_history: {
    description:
      "Permanently delete earlier versions of a memory (never the current one): versions or older_than_days. Needs authorized.",
    schema: z.object({
      memory_id: z.number().int().positive(),
      versions: z.array(z.number().int().positive()).min(1).max(1000).optional(),
      older_than_days: z.number().min(0).max(36_500).optional(),
      authorized: z.boolean().optional(),
    }),
    example: { memory_id: 12, older_than_days: 365, authorized: true },
  },
  replay_backup: {
    description:
      "Apply writes saved to the JSONL backup while the database was unwritable. dry_run (default true) lists them; a real run needs authorized and applies each entry exactly once. A saved update whose memory changed since is not applied: outcome conflict, with current_version and the saved_change to redo by hand.",
    schema: z.object({
      dry_run: z.boolean().optional(),
      authorized: z.boolean().optional(),
      limit: z.number().int().min(1).max(10_000).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    example: { dry_run: false, authorized: true },
  },
  scan_pipeline: {
    description:
      "Kick the scheduled conflict scan: one bounded step of the current round (full or incremental, decided by the server). Repeat until complete:true.",
    schema: z.object({
      action: z.enum(["kick"]),
      max_memories: z.number().int().min(1).max(2000).optional(),
      time_budget_s: z.number().min(1).max(300).optional(),
    }),
    example: { action: "kick" },
  },
  scan_queue: {
    description:
      "page: suspect pairs found by the scan, best first; submit: your decisions (confirmed → a conflict group; dismissed → never asked again).",
    schema: z.object({
      action: z.enum(["page", "submit"]),
      page_size: z.number().int().min(1).max(SCAN_QUEUE_PAGE_MAX).optional(),
      page_token: z.string().max(512).optional(),
      decisions: z.array(
        z.object({
          item_id: z.number().int().positive(),
          status: z.enum(["confirmed", "dismissed"]),
          reason: z.string().max(2000).optional(),
        }).strict(),
      ).min(1).max(SCAN_SUBMIT_MAX).optional(),
    }),
    example: { action: "submit", decisions: [{ item_id: 3, status: "confirmed" }] },
  },
  scan_duplicates: {
    description: "Near-duplicate pairs of active memories (≤ 200), each with a suggested merge.",
    schema: z.object({ limit: z.number().int().min(1).max(200).optional() }),
    example: {},
  },
  record_conflict: {
    description:
      "Record a conflict you found (status open), or that memories do not conflict (status not_a_conflict, needs authorized).",
    schema: z.object({
      memory_ids: z.array(z.number().int().positive()).min(2).max(8),
      value_groups: z.array(
        z.object({
          value: z.string().min(1).max(10_000),
          memory_ids: z.array(z.number().int().positive()).min(1),
        }).strict(),
      ).min(1).max(8).optional(),
      status: z.enum(["open", "not_a_conflict"]).optional(),
      reason: z.string().max(2000).optional(),
      authorized: z.boolean().optional(),
    }),
    example: {
      memory_ids: [9, 12],
      value_groups: [{ value: "Friday", memory_ids: [9] }, { value: "Monday", memory_ids: [12] }],
      reason: "two deadlines for the same release",
    },
  },
  notice: {
    description:
      "Notices: list (default pending+delivered, paged, with counts), read (the whole message), dismiss (never shown again) or resolve — one by notice_id, or in bulk by filter (workspace, kind, severity, conflict_id, source_ref_prefix, agent_id, client, older_than_days, created_after, status) or all:true. A bulk change is a dry run unless dry_run:false, changes at most 10,000 per call (repeat while has_more) and writes one audit row.",
    schema: z.object({
      action: z.enum(["list", "read", "dismiss", "resolve"]),
      notice_id: z.number().int().positive().optional(),
      status: z.enum(["pending", "delivered", "dismissed", "resolved"]).optional(),
      workspace: z.string().min(1).max(256).optional(),
      kind: z.string().min(1).max(64).optional(),
      severity: z.enum(["info", "normal"]).optional(),
      conflict_id: z.number().int().positive().optional(),
      source_ref_prefix: z.string().min(1).max(1024).optional().describe(
        "notices naming a memory whose source_ref starts so (an import's folder or file)",
      ),
      agent_id: z.string().min(1).max(128).optional().describe(
        "notices naming a memory written by this agent (mema import writes as mema-import)",
      ),
      client: z.string().min(1).max(128).optional(),
      older_than_days: z.number().min(0).max(36_500).optional(),
      created_after: z.string().min(1).max(64).optional().describe("ISO 8601 time"),
      all: z.boolean().optional().describe("bulk change with no filter: every notice you see"),
      dry_run: z.boolean().optional().describe("bulk change: default true, only counts"),
      reason: z.string().max(2000).optional(),
      limit: z.number().int().min(1).max(NOTICE_BULK_MAX).optional().describe(
        `list: default ${NOTICE_LIST_DEFAULT}, at most ${NOTICE_LIST_MAX}; bulk: at most ${NOTICE_BULK_MAX}`,
      ),
      offset: z.number().int().min(0).optional(),
    }),
    example: { action: "dismiss", workspace: "npm-docs", agent_id: "mema-import", dry_run: false },
  },
  help: {
    description: "Each task's fields as JSON Schema, with examples.",
    schema: z.object({ topic: z.string().max(64).optional() }),
    example: { topic: "rebuild_evidence" },
  },
};

type Data<T extends keyof typeof REPAIR_TASKS> = z.output<typeof REPAIR_TASKS[T]["schema"]>;

function conflictSettings(runtime: McpRuntime) {
  if (!runtime.conflicts) {
    throw new MemaError("invalid_input", "this server runs without conflict detection");
  }
  return runtime.conflicts;
}

function semantic(runtime: McpRuntime) {
  const index = runtime.ctx.semantic;
  if (!index) {
    throw new MemaError("invalid_input", "this server runs without an evidence index", {
      hint: "configure embedding_model and restart",
    });
  }
  return index;
}

const handlers: { [T in keyof typeof REPAIR_TASKS]: VerbHandler<Data<T>> } = {
  async rebuild_evidence(runtime, data) {
    const report = await semantic(runtime).rebuild({
      dryRun: data.dry_run ?? true,
      batchSize: data.batch_size ?? REBUILD_BATCH_DEFAULT,
    });
    return {
      dry_run: report.dryRun,
      state: report.state,
      from_space: report.fromSpace ?? null,
      to_space: report.toSpace ?? null,
      rows: report.rows,
      rows_to_embed: report.toEmbed,
      memories_missing_rows: report.memoriesMissingRows,
      embedded_now: report.embeddedNow,
      complete: report.complete,
      next: report.complete
        ? null
        : { task: "rebuild_evidence", data: { dry_run: false, batch_size: data.batch_size } },
    };
  },
  async semantic_control(runtime, data) {
    const index = semantic(runtime);
    if (data.action === "unload") await index.unload();
    const report = await index.describe();
    return {
      action: data.action,
      state: report.state,
      model: report.modelId ?? null,
      space: report.space ?? report.indexedSpace ?? null,
      rows: report.rows,
      embedded_rows: report.embeddedRows,
      ...(report.rebuild
        ? {
          rebuild: {
            from_space: report.rebuild.fromSpace,
            done: report.rebuild.done,
            total: report.rebuild.total,
          },
        }
        : {}),
      warning: report.warning ?? null,
      fix: report.fix ?? null,
    };
  },
  async cleanup_history(runtime, data) {
    const result = await cleanupHistory(runtime.ctx, {
      memoryId: data.memory_id,
      versions: data.versions,
      olderThanDays: data.older_than_days,
      authorized: data.authorized,
    });
    return {
      applied: true,
      memory_id: result.memoryId,
      removed_versions: result.removedVersions,
      kept_versions: result.keptVersions,
    };
  },
  async replay_backup(runtime, data) {
    const report = await replayBackup(runtime.ctx, {
      dryRun: data.dry_run ?? true,
      authorized: data.authorized,
      limit: data.limit ?? 1000,
      offset: data.offset ?? 0,
    });
    return {
      dry_run: report.dryRun,
      path: report.path,
      total_entries: report.total,
      pending: report.pending,
      applied: report.applied,
      rejected: report.rejected,
      conflicts: report.conflicts,
      already_replayed: report.alreadyReplayed,
      unreadable_lines: report.unreadableLines,
      entries: report.items.map((item) => {
        const entry: Record<string, unknown> = {
          entry_id: item.entryId,
          action: item.action,
          saved_at: item.at,
          outcome: item.outcome,
          memory_id: item.memoryId ?? null,
          reason: item.reason ?? null,
        };
        if (item.currentVersion !== undefined) entry.current_version = item.currentVersion;
        if (item.basedOnVersion !== undefined) entry.based_on_version = item.basedOnVersion;
        if (item.savedChange) entry.saved_change = presentSavedChange(item.savedChange);
        return entry;
      }),
    };
  },
  async scan_pipeline(runtime, data) {
    const settings = conflictSettings(runtime);
    const receipt = await kickScan(runtime.ctx, {
      assess: settings.stages.assess,
      logPath: settings.scanLogPath,
      maxMemories: data.max_memories,
      timeBudgetS: data.time_budget_s,
    });
    return {
      round_id: receipt.roundId,
      mode: receipt.mode,
      processed_this_kick: receipt.processedThisKick,
      queued_this_kick: receipt.queuedThisKick,
      queued_total: receipt.queuedTotal,
      pending_memories: receipt.pendingMemories,
      complete: receipt.complete,
      logged: receipt.logged,
      next: receipt.complete
        ? { tool: "memory_repair", task: "scan_queue", data: { action: "page" } }
        : { tool: "memory_repair", task: "scan_pipeline", data: { action: "kick" } },
    };
  },
  async scan_queue(runtime, data) {
    if (data.action === "page") {
      return await scanQueuePage(runtime.ctx, {
        pageSize: data.page_size,
        pageToken: data.page_token,
      });
    }
    if (!data.decisions) {
      throw new MemaError("invalid_input", "submit needs decisions", { field: "decisions" });
    }
    return await scanQueueSubmit(runtime.ctx, {
      decisions: data.decisions.map((d) => ({
        itemId: d.item_id,
        status: d.status,
        reason: d.reason,
      })),
    });
  },
  async scan_duplicates(runtime, data) {
    return await scanDuplicates(runtime.ctx, { limit: data.limit });
  },
  async record_conflict(runtime, data) {
    return await recordConflict(runtime.ctx, {
      memoryIds: data.memory_ids,
      valueGroups: data.value_groups,
      status: data.status ?? "open",
      reason: data.reason,
      authorized: data.authorized,
    });
  },
  async notice(runtime, data) {
    if (data.action === "list" && data.limit !== undefined && data.limit > NOTICE_LIST_MAX) {
      throw new MemaError("invalid_input", `list returns at most ${NOTICE_LIST_MAX} notices`, {
        field: "limit",
        hint: "page with offset (the answer says next_offset)",
      });
    }
    return await manageNotices(runtime.ctx, {
      action: data.action,
      noticeId: data.notice_id,
      selection: {
        workspace: data.workspace,
        kind: data.kind,
        severity: data.severity,
        conflictId: data.conflict_id,
        sourceRefPrefix: data.source_ref_prefix,
        agentId: data.agent_id,
        client: data.client,
        olderThanDays: data.older_than_days,
        createdAfter: data.created_after,
        status: data.status,
      },
      all: data.all,
      dryRun: data.dry_run,
      limit: data.limit,
      offset: data.offset,
      reason: data.reason,
    });
  },
  help(_runtime, data) {
    return verbHelp(REPAIR_VERB_TOOL, data.topic);
  },
};

/** The `memory_repair` tool. */
export const REPAIR_VERB_TOOL: VerbTool = {
  name: "memory_repair",
  title: "Memory repair",
  description:
    `mema maintenance. Call {"task": ..., "data": {...}}; help {topic?} gives every field.
- rebuild_evidence {dry_run?}: after a model change; repeat until complete:true
- semantic_control {action: status|unload}
- scan_pipeline {action: "kick"}: run the conflict scan until complete:true
- scan_queue {action: page|submit, decisions?}: confirm or dismiss suspect pairs
- scan_duplicates {}: near-duplicate pairs
- record_conflict {memory_ids}
- notice {action: list|read|dismiss|resolve, notice_id?}
- cleanup_history {memory_id, versions | older_than_days, authorized}
- replay_backup {dry_run?, authorized}: apply writes saved while unwritable`,
  verbKey: "task",
  verbs: REPAIR_TASKS,
  handlers: handlers as Record<string, VerbHandler>,
  notes: [
    "Repairs touch derived data only (rows, vectors); facts and their history are never changed.",
  ],
};

/** A saved update in the update action's own field names, so it can be sent again as is. */
function presentSavedChange(input: UpdateInput): Record<string, unknown> {
  const change: Record<string, unknown> = { memory_id: input.memoryId };
  const edit = input.edit;
  if (edit.kind === "new_content") change.new_content = edit.content;
  if (edit.kind === "replace_text") {
    [change.old_text, change.new_text] = [edit.oldText, edit.newText];
  }
  if (edit.kind === "patches") {
    change.patches = edit.patches.map((p) => ({ old_text: p.oldText, new_text: p.newText }));
  }
  if (edit.kind === "tags_only") {
    Object.assign(change, {
      tags_only: true,
      add_tags: edit.addTags,
      remove_tags: edit.removeTags,
    });
  }
  if (input.newSubject !== undefined) change.new_subject = input.newSubject;
  if (input.newTags !== undefined) change.new_tags = input.newTags;
  if (input.reason !== undefined) change.reason = input.reason;
  return change;
}
