/**
 * The `memory_govern` tool: state changes that need the user's approval
 * (`authorized: true`), each audited (docs/SPEC.md §4, §5).
 * @module
 */
import { mergeEntities, splitEntity } from "../govern/entities.ts";
import { ENTITY_NAME_MAX_CHARS } from "../entities/constants.ts";
import { z } from "zod";
import { PLAN_ACTIONS } from "../conflicts/resolution_plan.ts";
import { applyConflictAction, replanConflict, resolveConflict } from "../conflicts/workflow.ts";
import { confirmMemory, mergeMemories, retireMemory } from "../govern/lifecycle.ts";
import { PURGE_MAX_IDS } from "../govern/constants.ts";
import { purgeMemories } from "../govern/purge.ts";
import { CONTENT_MAX_BYTES } from "../memory/limits.ts";
import { WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import {
  confirmPendingWorkspace,
  confirmWorkspaces,
  mergeWorkspaces,
  MOVE_MEMORIES_MAX,
  moveMemories,
  renameWorkspace,
  type WorkspaceMoveResult,
} from "../govern/workspaces.ts";
import { type VerbHandler, verbHelp, type VerbTool } from "./verb_tool.ts";

const authorized = z.boolean().optional().describe("the user approved this change");
const reason = z.string().max(2000).optional();
const workspaceName = z.string().min(1).max(WORKSPACE_MAX_CHARS);

const GOVERN_ACTIONS = {
  retire: {
    description:
      "Take a memory out of default recall: superseded (by superseded_by) or retired. Needs reason and authorized.",
    schema: z.object({
      memory_id: z.number().int().positive(),
      superseded_by: z.number().int().positive().optional(),
      previous_still_valid: z.boolean().optional().describe(
        "with superseded_by: keep this fact's validity window open",
      ),
      reason,
      authorized,
    }),
    example: { memory_id: 12, superseded_by: 31, reason: "office moved", authorized: true },
  },
  merge_entities: {
    description:
      "Fold entity `from` into `into` (one thing under two names, same workspace): names, facts and relations move. Audited.",
    schema: z.object({
      from: z.string().min(1).max(ENTITY_NAME_MAX_CHARS),
      into: z.string().min(1).max(ENTITY_NAME_MAX_CHARS),
      workspace: z.string().max(256).optional().describe("when the names exist in several"),
      reason,
      authorized,
    }),
    example: { from: "Payments", into: "Payments API", reason: "one service", authorized: true },
  },
  split_entity: {
    description:
      "Take one name (alias) out of an entity, with the facts that use it, into an entity of its own. Audited.",
    schema: z.object({
      entity: z.string().min(1).max(ENTITY_NAME_MAX_CHARS),
      alias: z.string().min(1).max(ENTITY_NAME_MAX_CHARS),
      kind: z.string().max(48).optional().describe("the new entity's kind (default the entity's)"),
      workspace: z.string().max(256).optional(),
      reason,
      authorized,
    }),
    example: {
      entity: "PostgreSQL",
      alias: "PG",
      kind: "organization",
      reason: "PG means Procter & Gamble here",
      authorized: true,
    },
  },
  merge_memories: {
    description:
      "Fold loser_ids into survivor_id (losers become superseded; every version stays readable); merged_content optionally replaces the survivor's text.",
    schema: z.object({
      survivor_id: z.number().int().positive(),
      loser_ids: z.array(z.number().int().positive()).min(1).max(50),
      merged_content: z.string().max(CONTENT_MAX_BYTES).optional(),
      reason,
      authorized,
    }),
    example: { survivor_id: 12, loser_ids: [14, 15], reason: "duplicates", authorized: true },
  },
  confirm: {
    description: "Promote a memory to user_confirmed and lock it.",
    schema: z.object({ memory_id: z.number().int().positive(), reason, authorized }),
    example: { memory_id: 12, authorized: true },
  },
  apply_conflict_action: {
    description:
      "Run one plan step of an applying conflict (CAS on expected_revision). update_current_claim needs content or old_text+new_text containing the chosen value.",
    schema: z.object({
      conflict_id: z.number().int().positive(),
      expected_revision: z.number().int().positive(),
      memory_id: z.number().int().positive(),
      content: z.string().max(CONTENT_MAX_BYTES).optional(),
      old_text: z.string().optional(),
      new_text: z.string().optional(),
      previous_still_valid: z.boolean().optional().describe(
        "the replaced claim still held: keep its validity window open",
      ),
      authorized,
    }),
    example: { conflict_id: 4, expected_revision: 2, memory_id: 9, authorized: true },
  },
  replan_conflict: {
    description:
      "Replace the plan of an applying conflict (after a failed step); done steps stay done.",
    schema: z.object({
      conflict_id: z.number().int().positive(),
      expected_revision: z.number().int().positive(),
      apply_plan: z.array(
        z.object({
          memory_id: z.number().int().positive(),
          action: z.enum(PLAN_ACTIONS),
        }).strict(),
      ).min(1).max(50),
      chosen_value: z.string().max(10_000).optional(),
      reason,
      authorized,
    }),
    example: {
      conflict_id: 4,
      expected_revision: 3,
      apply_plan: [{ memory_id: 9, action: "preserve_historical_record" }],
      authorized: true,
    },
  },
  resolve_conflict: {
    description: "Close a conflict whose every plan step is done.",
    schema: z.object({
      conflict_id: z.number().int().positive(),
      expected_revision: z.number().int().positive(),
      authorized,
    }),
    example: { conflict_id: 4, expected_revision: 4, authorized: true },
  },
  purge: {
    description:
      "Delete memories for good (a secret stored by mistake): every version's content, index entries, vectors, notices, conflict membership and backup copies. Needs reason and authorized; the audit log keeps only ids, content hashes and the reason.",
    schema: z.object({
      memory_id: z.number().int().positive().optional(),
      memory_ids: z.array(z.number().int().positive()).min(1).max(PURGE_MAX_IDS).optional(),
      reason,
      authorized,
    }),
    example: { memory_id: 12, reason: "API key stored by mistake", authorized: true },
  },
  rename_workspace: {
    description:
      "Rename a workspace (the new name must be unused): its memories move; the old name redirects to the new one.",
    schema: z.object({ from: workspaceName, to: workspaceName, reason, authorized }),
    example: { from: "alpah", to: "alpha", reason: "typo in the project name", authorized: true },
  },
  merge_workspaces: {
    description:
      "Fold workspaces into an existing one: memories move (exact duplicates become superseded by the copy already there); the old names redirect.",
    schema: z.object({
      from: z.union([workspaceName, z.array(workspaceName).min(1).max(50)]),
      into: workspaceName,
      reason,
      authorized,
    }),
    example: {
      from: ["billing-svc"],
      into: "billing-service",
      reason: "same project",
      authorized: true,
    },
  },
  move_memories: {
    description:
      "Move memories into a workspace, by memory_ids or by filter {workspace, tags?, status?}; dry_run lists what would move and changes nothing.",
    schema: z.object({
      memory_ids: z.array(z.number().int().positive()).min(1).max(MOVE_MEMORIES_MAX).optional(),
      filter: z.object({
        workspace: workspaceName,
        tags: z.array(z.string().max(128)).max(20).optional(),
        status: z.enum(["active", "any"]).optional(),
      }).strict().optional(),
      to: workspaceName,
      dry_run: z.boolean().optional(),
      reason,
      authorized,
    }),
    example: {
      filter: { workspace: "default", tags: ["billing"] },
      to: "billing-service",
      dry_run: true,
    },
  },
  confirm_pending_workspace: {
    description:
      "Make a pending workspace (created by a write under strict isolation) real; then repeat the write.",
    schema: z.object({ workspace: workspaceName, reason, authorized }),
    example: { workspace: "alpha", reason: "new project", authorized: true },
  },
  confirm_workspaces: {
    description:
      "Mark workspaces (default: every active one) as reviewed: no duplicates among them.",
    schema: z.object({
      workspaces: z.array(workspaceName).min(1).max(500).optional(),
      reason,
      authorized,
    }),
    example: { reason: "checked the list", authorized: true },
  },
  help: {
    description: "Each action's fields as JSON Schema, with examples.",
    schema: z.object({ topic: z.string().max(64).optional() }),
    example: { topic: "retire" },
  },
};

type Data<A extends keyof typeof GOVERN_ACTIONS> = z.output<typeof GOVERN_ACTIONS[A]["schema"]>;

const handlers: { [A in keyof typeof GOVERN_ACTIONS]: VerbHandler<Data<A>> } = {
  async retire(runtime, data) {
    const result = await retireMemory(runtime.ctx, {
      memoryId: data.memory_id,
      supersededBy: data.superseded_by,
      previousStillValid: data.previous_still_valid,
      reason: data.reason,
      authorized: data.authorized,
    });
    return {
      applied: true,
      memory_id: result.memoryId,
      status: result.status,
      superseded_by: result.supersededBy,
      ...(result.validTo !== undefined ? { valid_to: result.validTo } : {}),
    };
  },
  async merge_entities(runtime, data) {
    const result = await mergeEntities(runtime.ctx, data);
    return { applied: true, ...result };
  },
  async split_entity(runtime, data) {
    const result = await splitEntity(runtime.ctx, data);
    return { applied: true, ...result };
  },
  async merge_memories(runtime, data) {
    const result = await mergeMemories(runtime.ctx, {
      survivorId: data.survivor_id,
      loserIds: data.loser_ids,
      mergedContent: data.merged_content,
      reason: data.reason,
      authorized: data.authorized,
    });
    return {
      applied: true,
      survivor_id: result.survivorId,
      version: result.version,
      merged_ids: result.mergedIds,
    };
  },
  async confirm(runtime, data) {
    const result = await confirmMemory(runtime.ctx, {
      memoryId: data.memory_id,
      reason: data.reason,
      authorized: data.authorized,
    });
    return {
      applied: true,
      memory_id: result.memoryId,
      source_type: result.sourceType,
      protection_level: result.protectionLevel,
    };
  },
  async apply_conflict_action(runtime, data) {
    const result = await applyConflictAction(runtime.ctx, {
      conflictId: data.conflict_id,
      expectedRevision: data.expected_revision,
      memoryId: data.memory_id,
      content: data.content,
      oldText: data.old_text,
      newText: data.new_text,
      previousStillValid: data.previous_still_valid,
      authorized: data.authorized,
    });
    return {
      applied: result.step.status === "done",
      conflict_id: result.conflictId,
      revision: result.revision,
      step: result.step,
      remaining_steps: result.remaining,
      action_required: result.actionRequired ?? null,
      error: result.error ?? null,
    };
  },
  async replan_conflict(runtime, data) {
    const result = await replanConflict(runtime.ctx, {
      conflictId: data.conflict_id,
      expectedRevision: data.expected_revision,
      applyPlan: data.apply_plan,
      chosenValue: data.chosen_value,
      reason: data.reason,
      authorized: data.authorized,
    });
    return {
      applied: true,
      conflict_id: result.conflictId,
      revision: result.revision,
      plan: result.plan,
    };
  },
  async resolve_conflict(runtime, data) {
    const result = await resolveConflict(runtime.ctx, {
      conflictId: data.conflict_id,
      expectedRevision: data.expected_revision,
      authorized: data.authorized,
    });
    return {
      applied: true,
      conflict_id: result.conflictId,
      revision: result.revision,
      status: result.status,
    };
  },
  async purge(runtime, data) {
    const result = await purgeMemories(runtime.ctx, {
      memoryId: data.memory_id,
      memoryIds: data.memory_ids,
      reason: data.reason,
      authorized: data.authorized,
    });
    return {
      applied: true,
      purged_ids: result.purgedIds,
      versions_purged: result.versionsPurged,
      conflicts_removed: result.conflictsRemoved,
      conflicts_updated: result.conflictsUpdated,
      notices_removed: result.noticesRemoved,
      jobs_removed: result.jobsRemoved,
      audit_rows_scrubbed: result.auditRowsScrubbed,
      backup_entries_removed: result.backupEntriesRemoved,
      file_rebuilt: result.fileRebuilt,
      wal_truncated: result.walTruncated,
      warnings: result.warnings,
    };
  },
  async rename_workspace(runtime, data) {
    return presentWorkspaceMove(await renameWorkspace(runtime.ctx, data));
  },
  async merge_workspaces(runtime, data) {
    return presentWorkspaceMove(
      await mergeWorkspaces(runtime.ctx, {
        from: Array.isArray(data.from) ? data.from : [data.from],
        into: data.into,
        reason: data.reason,
        authorized: data.authorized,
      }),
    );
  },
  async move_memories(runtime, data) {
    const result = await moveMemories(runtime.ctx, {
      memoryIds: data.memory_ids,
      filter: data.filter,
      to: data.to,
      dryRun: data.dry_run,
      reason: data.reason,
      authorized: data.authorized,
    });
    if (result.dryRun) {
      return {
        applied: false,
        dry_run: true,
        to: result.to,
        would_move: result.wouldMove!.map((m) => ({
          memory_id: m.memoryId,
          subject: m.subject,
          from: m.from,
        })),
        count: result.wouldMove!.length,
      };
    }
    return {
      applied: true,
      to: result.to,
      moved: result.moved,
      superseded_by_twin: result.supersededByTwin.map((t) => ({
        memory_id: t.memoryId,
        twin_id: t.twinId,
      })),
    };
  },
  async confirm_pending_workspace(runtime, data) {
    const result = await confirmPendingWorkspace(runtime.ctx, data);
    return { applied: true, workspace: result.workspace, state: result.state };
  },
  async confirm_workspaces(runtime, data) {
    const result = await confirmWorkspaces(runtime.ctx, data);
    return { applied: true, confirmed: result.confirmed };
  },
  help(_runtime, data) {
    return verbHelp(GOVERN_VERB_TOOL, data.topic);
  },
};

function presentWorkspaceMove(result: WorkspaceMoveResult): Record<string, unknown> {
  return {
    applied: true,
    from: result.from,
    into: result.into,
    moved: result.moved.length,
    memory_ids: result.moved,
    superseded_by_twin: result.supersededByTwin.map((t) => ({
      memory_id: t.memoryId,
      twin_id: t.twinId,
    })),
  };
}

/** The `memory_govern` tool. */
export const GOVERN_VERB_TOOL: VerbTool = {
  name: "memory_govern",
  title: "Memory govern",
  description:
    `mema changes that need the user's approval. Call {"action": ..., "data": {..., "authorized": true}}; help {topic?} gives every field.
Without it nothing changes; the answer says what would: ask the user, then repeat.
- retire {memory_id, reason}
- merge_memories {survivor_id, loser_ids, reason}
- merge_entities {from, into}, split_entity {entity, alias}
- confirm {memory_id}: lock as the user's word
- apply_conflict_action, replan_conflict, resolve_conflict {conflict_id, expected_revision, ...}: a judged plan
- purge {memory_id | memory_ids, reason}: delete for good
- rename_workspace {from, to, reason}, merge_workspaces {from, into, reason}
- move_memories {memory_ids | filter, to, reason}
- confirm_pending_workspace {workspace}, confirm_workspaces {}`,
  verbKey: "action",
  verbs: GOVERN_ACTIONS,
  handlers: handlers as Record<string, VerbHandler>,
  notes: [
    "Every action needs authorized: true, the agent's assertion that the user approved. Without it nothing changes and the answer carries action_required: ask_user_for_authorization with the impact.",
  ],
};
