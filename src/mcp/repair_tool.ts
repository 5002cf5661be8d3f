/**
 * The `memory_repair` tool: maintenance of derived data (SPEC §5).
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { replayBackup } from "../memory/backup.ts";
import { cleanupHistory } from "../memory/history.ts";
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
      "Apply writes saved to the JSONL backup while the database was unwritable. dry_run (default true) lists them; a real run needs authorized and applies each entry exactly once.",
    schema: z.object({
      dry_run: z.boolean().optional(),
      authorized: z.boolean().optional(),
      limit: z.number().int().min(1).max(10_000).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    example: { dry_run: false, authorized: true },
  },
  help: {
    description: "Each task's fields as JSON Schema, with examples.",
    schema: z.object({ topic: z.string().max(64).optional() }),
    example: { topic: "rebuild_evidence" },
  },
};

type Data<T extends keyof typeof REPAIR_TASKS> = z.output<typeof REPAIR_TASKS[T]["schema"]>;

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
    const report = index.describe();
    return {
      action: data.action,
      state: report.state,
      model: report.modelId ?? null,
      space: report.space ?? report.indexedSpace ?? null,
      rows: report.rows,
      embedded_rows: report.embeddedRows,
      warning: report.warning ?? null,
      fix: report.fix ?? null,
    };
  },
  cleanup_history(runtime, data) {
    const result = cleanupHistory(runtime.ctx, {
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
  replay_backup(runtime, data) {
    const report = replayBackup(runtime.ctx, {
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
      already_replayed: report.alreadyReplayed,
      unreadable_lines: report.unreadableLines,
      entries: report.items.map((item) => ({
        entry_id: item.entryId,
        action: item.action,
        saved_at: item.at,
        outcome: item.outcome,
        memory_id: item.memoryId ?? null,
        reason: item.reason ?? null,
      })),
    };
  },
  help(_runtime, data) {
    return verbHelp(REPAIR_VERB_TOOL, data.topic);
  },
};

/** The `memory_repair` tool. */
export const REPAIR_VERB_TOOL: VerbTool = {
  name: "memory_repair",
  title: "Memory repair",
  description: `mema maintenance. Call as {"task": ..., "data": {...}}.
- rebuild_evidence {dry_run? (default true), batch_size?}: rebuild rows and vectors after an embedding-model change; repeat with dry_run:false until complete:true
- semantic_control {action: status|unload}
- cleanup_history {memory_id, versions | older_than_days, authorized}: delete earlier versions (never the current)
- replay_backup {dry_run? (default true), authorized}: apply writes saved while the database was unwritable, exactly once
- help {topic?}`,
  verbKey: "task",
  verbs: REPAIR_TASKS,
  handlers: handlers as Record<string, VerbHandler>,
  notes: [
    "Repairs touch derived data only (rows, vectors); facts and their history are never changed.",
  ],
};
