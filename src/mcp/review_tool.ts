/**
 * The `memory_review` tool: read-only views (SPEC §5).
 * @module
 */
import { z } from "zod";
import { memoryHistory } from "../memory/history.ts";
import { SOURCE_TYPES, type ValueGroup } from "../store/mod.ts";
import { auditView } from "../views/audit.ts";
import { conflictDetail, conflictList, type ConflictNextStep } from "../views/conflicts.ts";
import { overviewView } from "../views/overview.ts";
import { workspacesView } from "../views/workspaces.ts";
import { expiredPage } from "../views/recall_page.ts";
import { exportView } from "../portability/export.ts";
import { memoryHeader, presentResults } from "./present.ts";
import { type VerbHandler, verbHelp, type VerbTool } from "./verb_tool.ts";

const REVIEW_VIEWS = {
  overview: {
    description: "Counts by status, trust and workspace; capability state; backlog.",
    schema: z.object({}),
    example: {},
  },
  history: {
    description: "Every version of a memory with a unified diff between two versions.",
    schema: z.object({
      memory_id: z.number().int().positive(),
      from_version: z.number().int().positive().optional().describe("default: the previous"),
      to_version: z.number().int().positive().optional().describe("default: the current"),
    }),
    example: { memory_id: 12, from_version: 1, to_version: 3 },
  },
  expired: {
    description: "Search superseded and retired memories (they leave default recall).",
    schema: z.object({
      query: z.string().max(4096).optional(),
      workspace: z.string().max(256).optional(),
      source_type: z.enum(SOURCE_TYPES).optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).max(10_000).optional(),
    }),
    example: { query: "office address" },
  },
  audit: {
    description: "Governance and tag changes: who did what, when and why (newest first).",
    schema: z.object({
      memory_id: z.number().int().positive().optional(),
      action: z.string().max(64).optional(),
      agent_id: z.string().max(128).optional(),
      after_time: z.string().max(64).optional(),
      limit: z.number().int().min(1).max(200).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    example: { memory_id: 12 },
  },
  conflicts: {
    description: "Conflict groups by status (default open and applying), newest first.",
    schema: z.object({
      status: z.enum(["open", "applying", "resolved", "not_a_conflict", "unresolved", "all"])
        .optional(),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    example: { status: "open" },
  },
  conflict_detail: {
    description:
      "One conflict: members side by side, value groups, detection evidence, the rule-based suggestion with its explanation, the plan and its revision.",
    schema: z.object({ conflict_id: z.number().int().positive() }),
    example: { conflict_id: 4 },
  },
  workspaces: {
    description:
      "Every workspace: memory counts, state (active, pending confirmation, redirect), last write, writers, reviewed, left out of unscoped recall.",
    schema: z.object({}),
    example: {},
  },
  export: {
    description:
      "The facts in force (active and pending) as Markdown files with frontmatter or JSONL lines, every field included, in pages (at most 100 memories or ~256k characters; pass next_cursor back as cursor).",
    schema: z.object({
      workspace: z.string().max(256).optional(),
      format: z.enum(["md", "jsonl"]).optional().describe("default jsonl"),
      cursor: z.number().int().min(0).optional().describe("next_cursor of the previous page"),
      limit: z.number().int().min(1).max(100).optional().describe("default 20"),
    }),
    example: { workspace: "infra", format: "md" },
  },
  help: {
    description: "Each view's fields as JSON Schema, with examples.",
    schema: z.object({ topic: z.string().max(64).optional() }),
    example: { topic: "history" },
  },
};

/** The govern action behind each later lifecycle step. */
const NEXT_GOVERN_ACTION: Record<Exclude<ConflictNextStep, "judge" | null>, string> = {
  apply: "apply_conflict_action",
  replan: "replan_conflict",
  resolve: "resolve_conflict",
};

type Data<V extends keyof typeof REVIEW_VIEWS> = z.output<typeof REVIEW_VIEWS[V]["schema"]>;

const handlers: { [V in keyof typeof REVIEW_VIEWS]: VerbHandler<Data<V>> } = {
  overview(runtime) {
    const view = overviewView(runtime.ctx);
    return {
      version: view.version,
      memories: {
        by_status: view.memories.byStatus,
        by_source_type: view.memories.bySourceType,
        by_protection: view.memories.byProtection,
        by_workspace: view.memories.byWorkspace,
      },
      history_versions: view.historyVersions,
      conflicts: view.conflicts,
      capabilities: {
        mode: view.capabilities.mode,
        degraded: view.capabilities.degraded,
        writable: view.capabilities.writable,
        unwritable_reason: view.capabilities.unwritableReason,
        vector_state: view.capabilities.vectorState,
        embedded_rows: view.capabilities.embeddedRows,
        rows: view.capabilities.rows,
      },
      jobs: view.jobs,
      backup: { path: view.backup.path, pending_entries: view.backup.pendingEntries },
      recent_audit: view.recentAudit.map((row) => ({
        at: row.at,
        action: row.action,
        memory_id: row.memoryId,
        agent_id: row.agentId,
      })),
    };
  },

  history(runtime, data) {
    const view = memoryHistory(runtime.ctx, {
      memoryId: data.memory_id,
      fromVersion: data.from_version,
      toVersion: data.to_version,
    });
    return {
      ...memoryHeader(view.memory),
      superseded_by: view.memory.supersededBy,
      versions: view.versions.map((v) => ({
        version: v.version,
        current: v.current,
        subject: v.subject,
        content: v.content,
        content_hash: v.contentSha,
        tags: v.tags,
        replaced_at: v.replaced?.at ?? null,
        replaced_by_agent: v.replaced?.by ?? null,
        replaced_by_client: v.replaced?.client ?? null,
        reason: v.replaced?.reason ?? null,
      })),
      diff: view.diff
        ? { from_version: view.diff.from, to_version: view.diff.to, unified: view.diff.unified }
        : null,
      absorbed: view.absorbed.map((a) => ({
        memory_id: a.memoryId,
        subject: a.subject,
        status: a.status,
        version: a.version,
      })),
    };
  },

  expired(runtime, data) {
    const page = expiredPage(runtime.ctx, {
      query: data.query,
      workspace: data.workspace,
      sourceType: data.source_type ? [data.source_type] : undefined,
      limit: data.limit,
      offset: data.offset,
    });
    const { results, size } = presentResults(page.items, "preview", {
      extend(item, result) {
        result.superseded_by = item.memory.supersededBy;
      },
    });
    return {
      results,
      has_more: page.hasMore,
      total_estimate: page.totalEstimate,
      retrieval_mode: page.retrievalMode,
      size,
    };
  },

  audit(runtime, data) {
    const view = auditView(runtime.ctx, {
      memoryId: data.memory_id,
      action: data.action,
      agentId: data.agent_id,
      afterTime: data.after_time,
      limit: data.limit,
      offset: data.offset,
    });
    return {
      entries: view.entries.map((row) => ({
        audit_id: row.id,
        at: row.at,
        action: row.action,
        memory_id: row.memoryId,
        agent_id: row.agentId,
        client: row.client,
        reason: row.reason,
        detail: row.detail,
      })),
      total: view.total,
      has_more: view.hasMore,
    };
  },

  conflicts(runtime, data) {
    const view = conflictList(runtime.ctx, {
      status: data.status,
      limit: data.limit,
      offset: data.offset,
    });
    return {
      conflicts: view.conflicts.map((group) => ({
        conflict_id: group.id,
        status: group.status,
        revision: group.revision,
        source: group.source,
        workspace: group.workspaceCanonical,
        member_ids: group.members.map((m) => m.memory_id),
        values: group.valueGroups.map((g) => g.value),
        value_groups: group.valueGroups.map(presentValueGroup),
        chosen_value: group.chosenValue,
        created_at: group.createdAt,
      })),
      total: view.total,
      has_more: view.hasMore,
    };
  },

  conflict_detail(runtime, data) {
    const { group, members, suggestion, nextStep } = conflictDetail(
      runtime.ctx,
      data.conflict_id,
    );
    return {
      conflict_id: group.id,
      status: group.status,
      revision: group.revision,
      source: group.source,
      workspace: group.workspaceCanonical,
      members: members.map(({ member: m, memory, changedSince }) => ({
        ...(memory ? memoryHeader(memory) : { memory_id: m.memory_id }),
        member_version: m.version,
        changed_since: changedSince,
        row_text: m.row_text,
        value: m.value ??
          group.valueGroups.find((g) => g.memory_ids.includes(m.memory_id))?.value ??
          null,
        row_span: m.start_offset === null ? null : { start: m.start_offset, end: m.end_offset },
        content: memory?.content ?? null,
        source_ref: memory?.sourceRef ?? null,
        agent_id: memory?.agentId ?? null,
      })),
      value_groups: group.valueGroups.map(presentValueGroup),
      detection: group.detection,
      suggestion: suggestion
        ? {
          winner_memory_id: suggestion.winnerMemoryId,
          chosen_value: suggestion.chosenValue,
          explanation: suggestion.explanation,
          plan: suggestion.plan,
        }
        : null,
      chosen_value: group.chosenValue,
      decided_by: group.decidedBy,
      decision_reason: group.decisionReason,
      plan: group.plan,
      plan_history: group.planHistory,
      resolution_memory_id: group.resolutionMemoryId,
      // The suggested plan in one call: judge with apply runs it and resolves (authorized).
      one_step: nextStep === "judge" && suggestion
        ? {
          tool: "memory",
          action: "judge",
          data: {
            conflict_id: group.id,
            expected_revision: group.revision,
            chosen_value: suggestion.chosenValue,
            apply: true,
            authorized: true,
          },
          requires: "the user's approval of the suggested plan (authorized: true)",
        }
        : null,
      next: nextStep === null ? null : nextStep === "judge"
        ? {
          tool: "memory",
          action: "judge",
          data: { conflict_id: group.id, expected_revision: group.revision },
        }
        : {
          tool: "memory_govern",
          action: NEXT_GOVERN_ACTION[nextStep],
          data: { conflict_id: group.id, expected_revision: group.revision },
        },
    };
  },

  workspaces(runtime) {
    const view = workspacesView(runtime.ctx);
    return {
      isolation: view.isolation,
      caller_workspace: view.callerWorkspace,
      workspaces: view.workspaces.map((w) => ({
        workspace: w.canonical,
        display: w.display,
        state: w.state,
        ...(w.redirectTo !== null ? { redirect_to: w.redirectTo } : {}),
        memories: w.counts,
        last_write: w.lastWrite,
        writers: w.writers,
        reviewed: w.reviewed,
        created_at: w.createdAt,
        created_by: w.createdBy,
        ...(w.blacklisted ? { left_out_of_unscoped_recall: true } : {}),
        ...(w.own ? { own: true } : {}),
      })),
      pending: view.pending,
      unreviewed: view.unreviewed,
    };
  },

  export(runtime, data) {
    const view = exportView(runtime.ctx, { ...data, format: data.format ?? "jsonl" });
    return {
      format: view.format,
      items: view.items.map((item) => ({
        memory_id: item.memoryId,
        ...(item.path !== undefined ? { path: item.path } : {}),
        text: item.text,
      })),
      next_cursor: view.nextCursor,
      has_more: view.hasMore,
      total: view.total,
      returned_chars: view.returnedChars,
    };
  },

  help(_runtime, data) {
    return verbHelp(REVIEW_VERB_TOOL, data.topic);
  },
};

/** A value group as views show it: the value, who states it, and how they wrote it. */
function presentValueGroup(group: ValueGroup): Record<string, unknown> {
  return {
    value: group.value,
    memory_ids: group.memory_ids,
    variants: group.variants ?? [group.value],
    normalized: group.normalized ?? null,
  };
}

/** The `memory_review` tool. */
export const REVIEW_VERB_TOOL: VerbTool = {
  name: "memory_review",
  title: "Memory review",
  readOnly: true,
  description: `mema read-only views. Call as {"view": ..., "data": {...}}.
- overview {}: counts by status, trust, workspace; capabilities; backlog
- history {memory_id, from_version?, to_version?}: every version with a unified diff
- expired {query?, workspace?, limit?, offset?}: search superseded and retired memories
- audit {memory_id?, action?, agent_id?, after_time?, limit?, offset?}: who changed what, when, why
- conflicts {status?, limit?, offset?}: conflict groups (default unresolved)
- conflict_detail {conflict_id}: members side by side, the rule-based suggestion, plan, revision
- export {workspace?, format?: md|jsonl, cursor?, limit?}: the facts in force as files, paged
- workspaces {}: every workspace with counts, state (pending/redirect), last write, writers
- help {topic?}`,
  verbKey: "view",
  verbs: REVIEW_VIEWS,
  handlers: handlers as Record<string, VerbHandler>,
  notes: ["Every view is read-only."],
};
