/**
 * The `memory_review` tool: read-only views (docs/SPEC.md §5).
 * @module
 */
import { z } from "zod";
import { memoryHistory } from "../memory/history.ts";
import { type MemoryRecord, SOURCE_TYPES, type ValueGroup } from "../store/mod.ts";
import { auditView } from "../views/audit.ts";
import { conflictDetail, conflictList, type ConflictNextStep } from "../views/conflicts.ts";
import { overviewView } from "../views/overview.ts";
import { workspacesView } from "../views/workspaces.ts";
import { entitiesView, entityView } from "../views/entities.ts";
import {
  ENTITY_NAME_MAX_CHARS,
  ENTITY_PAGE_DEFAULT,
  ENTITY_PAGE_MAX,
  ENTITY_VIEW_BUDGET_MAX,
  ENTITY_VIEW_BUDGET_TOKENS,
  ENTITY_VIEW_DEPTH_MAX,
} from "../entities/constants.ts";
import { CLUSTERS_K_DEFAULT, CLUSTERS_K_MAX, clustersView } from "../views/clusters.ts";
import { expiredPage } from "../views/recall_page.ts";
import { exportView } from "../portability/export.ts";
import { memoryHeader, presentResults } from "./present.ts";
import { boundJson, cutText, previewAround } from "./bounded.ts";
import {
  CONFLICT_MEMBERS_DEFAULT,
  CONFLICT_MEMBERS_MAX,
  EVIDENCE_ITEMS_MAX,
  EVIDENCE_STRING_MAX,
  EXPLANATION_MAX,
  HISTORY_CONTENT_WHOLE_MAX,
  HISTORY_DIFF_PAGE_CHARS,
  HISTORY_VERSIONS_DEFAULT,
  HISTORY_VERSIONS_MAX,
  MEMBER_CONTENT_WHOLE_MAX,
  MEMBER_PREVIEW_CHARS,
  MEMBER_PREVIEW_LEAD,
  OVERVIEW_WORKSPACES_MAX,
  PLAN_HISTORY_MAX,
  ROW_TEXT_MAX,
  VALUE_GROUPS_MAX,
  VALUE_MEMBER_IDS_MAX,
  VALUE_PREVIEW_CHARS,
  VALUE_VARIANTS_MAX,
  WORKSPACES_PAGE_DEFAULT,
  WORKSPACES_PAGE_MAX,
} from "./review_constants.ts";
import { type VerbHandler, verbHelp, type VerbTool } from "./verb_tool.ts";

const REVIEW_VIEWS = {
  overview: {
    description: "Counts by status, trust and workspace; capability state; backlog.",
    schema: z.object({}),
    example: {},
  },
  history: {
    description:
      "A memory's versions (oldest first; a page counts from the newest, so the current version is on the first; long ones previewed unless whole:true) with a unified diff between two versions (paged by diff_offset).",
    schema: z.object({
      memory_id: z.number().int().positive(),
      from_version: z.number().int().positive().optional().describe("default: the previous"),
      to_version: z.number().int().positive().optional().describe("default: the current"),
      offset: z.number().int().min(0).optional().describe(
        "versions page: skip this many of the newest, default 0",
      ),
      limit: z.number().int().min(1).max(HISTORY_VERSIONS_MAX).optional().describe(
        `versions page size, default ${HISTORY_VERSIONS_DEFAULT}`,
      ),
      whole: z.boolean().optional().describe(
        `show long versions whole (default: longer than ${HISTORY_CONTENT_WHOLE_MAX} characters are previewed)`,
      ),
      diff_offset: z.number().int().min(0).optional().describe(
        "the diff's next_offset from the previous page",
      ),
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
      `One conflict: members side by side (a long member is previewed around the row that disagrees, with its offsets and the read call for the whole; ${CONFLICT_MEMBERS_DEFAULT} members a page, offset/limit), value groups and detection evidence capped with counts, the rule-based suggestion with its explanation, the plan and its revision.`,
    schema: z.object({
      conflict_id: z.number().int().positive(),
      offset: z.number().int().min(0).optional().describe("first member shown, default 0"),
      limit: z.number().int().min(1).max(CONFLICT_MEMBERS_MAX).optional().describe(
        `members shown, default ${CONFLICT_MEMBERS_DEFAULT}`,
      ),
    }),
    example: { conflict_id: 4 },
  },
  workspaces: {
    description:
      "Every workspace (paged: offset/limit): memory counts, state (active, pending confirmation, redirect), last write, writers, reviewed, left out of unscoped recall.",
    schema: z.object({
      offset: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(WORKSPACES_PAGE_MAX).optional().describe(
        `default ${WORKSPACES_PAGE_DEFAULT}`,
      ),
    }),
    example: {},
  },
  entities: {
    description:
      "Entities read from the facts (people, teams, services, identifiers…), newest first (paged: offset/limit): kind, workspace, memory and relation counts, and the count of each kind.",
    schema: z.object({
      workspace: z.string().max(256).optional(),
      kind: z.string().max(48).optional().describe("only this kind (person, team, service…)"),
      offset: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(ENTITY_PAGE_MAX).optional().describe(
        `default ${ENTITY_PAGE_DEFAULT}`,
      ),
    }),
    example: { kind: "service" },
  },
  entity: {
    description:
      "One entity by name or alias: its aliases, facts and relations, walked breadth-first to depth within a token budget (reported, with truncated).",
    schema: z.object({
      name: z.string().min(1).max(ENTITY_NAME_MAX_CHARS),
      depth: z.number().int().min(0).max(ENTITY_VIEW_DEPTH_MAX).optional().describe("default 1"),
      budget_tokens: z.number().int().min(100).max(ENTITY_VIEW_BUDGET_MAX).optional().describe(
        `default ${ENTITY_VIEW_BUDGET_TOKENS}`,
      ),
      workspace: z.string().max(256).optional(),
    }),
    example: { name: "Payments API", depth: 2 },
  },
  clusters: {
    description:
      "The memories as k topics: each labelled with its most telling words, a size and sample ids (newest 3,000 memories when larger; offline, deterministic).",
    schema: z.object({
      k: z.number().int().min(2).max(CLUSTERS_K_MAX).optional().describe(
        `topics, default ${CLUSTERS_K_DEFAULT}`,
      ),
      workspace: z.string().max(256).optional(),
    }),
    example: { k: 5, workspace: "infra" },
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
  async overview(runtime) {
    const view = await overviewView(runtime.ctx);
    return {
      version: view.version,
      memories: {
        by_status: view.memories.byStatus,
        by_source_type: view.memories.bySourceType,
        by_protection: view.memories.byProtection,
        ...largestWorkspaces(view.memories.byWorkspace),
      },
      history_versions: view.historyVersions,
      ...(view.backend === undefined ? {} : {
        backend: {
          kind: view.backend.kind,
          database: view.backend.database,
          schema_version: view.backend.schemaVersion,
          vector_path: view.backend.vectorPath,
        },
      }),
      conflicts: {
        open_conflicts: view.conflicts.openConflicts,
        applying_conflicts: view.conflicts.applyingConflicts,
        pending_notices: view.conflicts.pendingNotices,
        scan_queue_pending: view.conflicts.scanQueuePending,
      },
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

  async history(runtime, data) {
    const view = await memoryHistory(runtime.ctx, {
      memoryId: data.memory_id,
      fromVersion: data.from_version,
      toVersion: data.to_version,
    });
    // A page is taken from the newest end (the versions an agent asks about are the recent
    // ones, and the current one is always on the first page) and shown oldest first.
    const newest = [...view.versions].reverse();
    const offset = data.offset ?? 0;
    const page = newest.slice(offset, offset + (data.limit ?? HISTORY_VERSIONS_DEFAULT))
      .reverse();
    const more = offset + page.length < newest.length;
    return {
      ...memoryHeader(view.memory),
      superseded_by: view.memory.supersededBy,
      versions: page.map((v, i) => ({
        version: v.version,
        current: v.current,
        subject: v.subject,
        ...historyContent(data, offset + page.length - 1 - i, v.content),
        content_hash: v.contentSha,
        tags: v.tags,
        replaced_at: v.replaced?.at ?? null,
        replaced_by_agent: v.replaced?.by ?? null,
        replaced_by_client: v.replaced?.client ?? null,
        reason: v.replaced?.reason ?? null,
      })),
      versions_total: newest.length,
      has_more: more,
      next_offset: more ? offset + page.length : null,
      diff: view.diff ? presentDiff(data, view.diff) : null,
      absorbed: view.absorbed.map((a) => ({
        memory_id: a.memoryId,
        subject: a.subject,
        status: a.status,
        version: a.version,
      })),
    };
  },

  async expired(runtime, data) {
    const page = await expiredPage(runtime.ctx, {
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

  async audit(runtime, data) {
    const view = await auditView(runtime.ctx, {
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
        ...cutField("reason", row.reason, EVIDENCE_STRING_MAX),
        detail: boundJson(row.detail, {
          maxString: EVIDENCE_STRING_MAX,
          maxItems: EVIDENCE_ITEMS_MAX,
        }).value,
      })),
      total: view.total,
      has_more: view.hasMore,
    };
  },

  async conflicts(runtime, data) {
    const view = await conflictList(runtime.ctx, {
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
        values: group.valueGroups.slice(0, VALUE_GROUPS_MAX)
          .map((g) => cutText(g.value, VALUE_PREVIEW_CHARS).text),
        ...presentValueGroups(group.valueGroups),
        chosen_value: group.chosenValue,
        created_at: group.createdAt,
      })),
      total: view.total,
      has_more: view.hasMore,
    };
  },

  async conflict_detail(runtime, data) {
    const { group, members, suggestion, nextStep } = await conflictDetail(
      runtime.ctx,
      data.conflict_id,
    );
    const offset = data.offset ?? 0;
    const page = members.slice(offset, offset + (data.limit ?? CONFLICT_MEMBERS_DEFAULT));
    const detection = boundJson(group.detection, {
      maxString: EVIDENCE_STRING_MAX,
      maxItems: EVIDENCE_ITEMS_MAX,
    });
    const history = group.planHistory.slice(-PLAN_HISTORY_MAX);
    return {
      conflict_id: group.id,
      status: group.status,
      revision: group.revision,
      source: group.source,
      workspace: group.workspaceCanonical,
      members: page.map(({ member: m, memory, changedSince }) => {
        const row = cutText(m.row_text, ROW_TEXT_MAX);
        return {
          ...(memory ? memoryHeader(memory) : { memory_id: m.memory_id }),
          member_version: m.version,
          changed_since: changedSince,
          row_text: row.text,
          ...(row.cut ? { row_text_chars: m.row_text.length } : {}),
          ...memberValue(
            m.value ?? group.valueGroups.find((g) => g.memory_ids.includes(m.memory_id))?.value ??
              null,
          ),
          row_span: m.start_offset === null ? null : { start: m.start_offset, end: m.end_offset },
          ...presentMemberContent(memory, m.start_offset),
          source_ref: memory?.sourceRef ?? null,
          agent_id: memory?.agentId ?? null,
        };
      }),
      members_total: members.length,
      has_more: offset + page.length < members.length,
      next_offset: offset + page.length < members.length ? offset + page.length : null,
      ...presentValueGroups(group.valueGroups),
      detection: detection.value,
      ...(detection.cut ? { detection_truncated: true } : {}),
      suggestion: suggestion
        ? {
          winner_memory_id: suggestion.winnerMemoryId,
          ...cutField("chosen_value", suggestion.chosenValue, VALUE_PREVIEW_CHARS),
          ...cutField("explanation", suggestion.explanation, EXPLANATION_MAX),
          plan: suggestion.plan,
        }
        : null,
      ...cutField("chosen_value", group.chosenValue, VALUE_PREVIEW_CHARS),
      decided_by: group.decidedBy,
      decision_reason: group.decisionReason,
      plan: group.plan,
      plan_history: history,
      ...(history.length < group.planHistory.length
        ? { plan_history_total: group.planHistory.length }
        : {}),
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

  async workspaces(runtime, data) {
    const view = await workspacesView(runtime.ctx);
    const offset = data.offset ?? 0;
    const page = view.workspaces.slice(offset, offset + (data.limit ?? WORKSPACES_PAGE_DEFAULT));
    const more = offset + page.length < view.workspaces.length;
    return {
      isolation: view.isolation,
      caller_workspace: view.callerWorkspace,
      total: view.workspaces.length,
      has_more: more,
      next_offset: more ? offset + page.length : null,
      workspaces: page.map((w) => ({
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

  async entities(runtime, data) {
    const view = await entitiesView(runtime.ctx, data);
    return {
      total: view.total,
      kinds: view.kinds,
      has_more: view.nextOffset !== null,
      next_offset: view.nextOffset,
      entities: view.entities,
    };
  },

  async entity(runtime, data) {
    const view = await entityView(runtime.ctx, {
      name: data.name,
      depth: data.depth,
      budgetTokens: data.budget_tokens,
      workspace: data.workspace,
    });
    return {
      depth: view.depth,
      budget_tokens: view.budgetTokens,
      used_tokens: view.usedTokens,
      truncated: view.truncated,
      entities: view.entities,
      relations: view.relations,
      co_mentioned: view.coMentioned,
    };
  },

  async clusters(runtime, data) {
    const view = await clustersView(runtime.ctx, data);
    return {
      workspace: view.workspace,
      k: view.k,
      memories: view.memories,
      clustered: view.clustered,
      basis: view.basis,
      ...(view.sampled ? { sampled: "the newest memories only" } : {}),
      clusters: view.clusters.map((c) => ({
        label: c.label,
        size: c.size,
        share: c.share,
        sample_ids: c.samples.map((s) => s.id),
        sample_subjects: c.samples.map((s) => s.subject),
      })),
      unclustered: view.unclustered,
    };
  },

  async export(runtime, data) {
    const view = await exportView(runtime.ctx, { ...data, format: data.format ?? "jsonl" });
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

/**
 * Value groups as views show them: the first {@linkcode VALUE_GROUPS_MAX}, each with the
 * value, who states it and how they wrote it, cut with counts (`value_groups_total`,
 * `value_chars`, `variants_total`, `memory_ids_total`) where a list or a value is longer.
 */
function presentValueGroups(groups: readonly ValueGroup[]): Record<string, unknown> {
  const shown: Record<string, unknown> = {
    value_groups: groups.slice(0, VALUE_GROUPS_MAX).map(presentValueGroup),
  };
  if (groups.length > VALUE_GROUPS_MAX) shown.value_groups_total = groups.length;
  return shown;
}

function presentValueGroup(group: ValueGroup): Record<string, unknown> {
  const value = cutText(group.value, VALUE_PREVIEW_CHARS);
  const variants = (group.variants ?? [group.value]).slice(0, VALUE_VARIANTS_MAX)
    .map((variant) => cutText(variant, VALUE_PREVIEW_CHARS).text);
  const shown: Record<string, unknown> = {
    value: value.text,
    memory_ids: group.memory_ids.slice(0, VALUE_MEMBER_IDS_MAX),
    variants,
    normalized: group.normalized ?? null,
  };
  if (value.cut) shown.value_chars = group.value.length;
  if ((group.variants?.length ?? 1) > VALUE_VARIANTS_MAX) {
    shown.variants_total = group.variants!.length;
  }
  if (group.memory_ids.length > VALUE_MEMBER_IDS_MAX) {
    shown.memory_ids_total = group.memory_ids.length;
  }
  return shown;
}

/**
 * A version's content in the history view: whole when short or asked for (`whole`), else
 * its start with the call that shows this version whole.
 */
function historyContent(
  data: { memory_id: number; whole?: boolean },
  /** The version's place, newest first: the offset that shows it alone. */
  place: number,
  content: string,
): Record<string, unknown> {
  if (data.whole || content.length <= HISTORY_CONTENT_WHOLE_MAX) return { content };
  const preview = cutText(content, MEMBER_PREVIEW_CHARS);
  return {
    content_preview: preview.text,
    content_chars: content.length,
    content_omitted: true,
    next: {
      tool: "memory_review",
      view: "history",
      data: { memory_id: data.memory_id, offset: place, limit: 1, whole: true },
    },
  };
}

/** The unified diff, one page of at most {@linkcode HISTORY_DIFF_PAGE_CHARS} (cut at a line end). */
function presentDiff(
  data: { diff_offset?: number },
  diff: { from: number; to: number; unified: string },
): Record<string, unknown> {
  const start = Math.min(data.diff_offset ?? 0, diff.unified.length);
  let end = Math.min(diff.unified.length, start + HISTORY_DIFF_PAGE_CHARS);
  if (end < diff.unified.length) {
    const line = diff.unified.lastIndexOf("\n", end - 1);
    if (line >= start) end = line + 1;
  }
  const more = end < diff.unified.length;
  return {
    from_version: diff.from,
    to_version: diff.to,
    unified: diff.unified.slice(start, end),
    ...(start > 0 || more
      ? { unified_chars: diff.unified.length, offset: start, next_offset: more ? end : null }
      : {}),
  };
}

/**
 * The overview's memories per workspace: the largest {@linkcode OVERVIEW_WORKSPACES_MAX}, with
 * the count of all and the workspaces view (paged) for the rest.
 */
function largestWorkspaces(counts: Record<string, number>): Record<string, unknown> {
  const entries = Object.entries(counts);
  if (entries.length <= OVERVIEW_WORKSPACES_MAX) return { by_workspace: counts };
  const largest = entries.sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, OVERVIEW_WORKSPACES_MAX);
  return {
    by_workspace: Object.fromEntries(largest),
    workspaces_total: entries.length,
    all_workspaces: { tool: "memory_review", view: "workspaces", data: {} },
  };
}

/** A member's value, cut to a preview (with `value_chars`) when it is a passage. */
function memberValue(value: string | null): Record<string, unknown> {
  return cutField("value", value, VALUE_PREVIEW_CHARS);
}

/** `{[name]: text}` cut to `max` characters, with `${name}_chars` when it was. */
function cutField(name: string, text: string | null, max: number): Record<string, unknown> {
  if (text === null) return { [name]: null };
  const short = cutText(text, max);
  return short.cut ? { [name]: short.text, [`${name}_chars`]: text.length } : { [name]: text };
}

/**
 * A conflict member's content: whole when short; otherwise a preview around the row that
 * disagrees (its UTF-16 offsets) and the `read` call for the whole.
 */
function presentMemberContent(
  memory: MemoryRecord | undefined,
  rowStart: number | null,
): Record<string, unknown> {
  if (!memory) return { content: null };
  if (memory.content.length <= MEMBER_CONTENT_WHOLE_MAX) return { content: memory.content };
  return {
    content_omitted: true,
    content_preview: previewAround(memory.content, {
      at: rowStart ?? 0,
      lead: rowStart === null ? 0 : MEMBER_PREVIEW_LEAD,
      width: MEMBER_PREVIEW_CHARS,
    }),
    read: { tool: "memory", action: "read", data: { memory_id: memory.id } },
  };
}

/** The `memory_review` tool. */
export const REVIEW_VERB_TOOL: VerbTool = {
  name: "memory_review",
  title: "Memory review",
  readOnly: true,
  description:
    `mema read-only views. Call {"view": ..., "data": {...}}; help {topic?} gives every field.
- overview {}: counts, capabilities, backlog
- history {memory_id}: versions with a diff
- expired {query?}: superseded, retired
- audit {memory_id?}: who changed what, why
- conflicts {status?}: conflict groups
- conflict_detail {conflict_id}: members, suggestion, plan
- export {format?: md|jsonl, cursor?}: facts in force, paged
- clusters {k?}: topics
- workspaces {}: counts, state
- entities {kind?}, entity {name}`,
  verbKey: "view",
  verbs: REVIEW_VIEWS,
  handlers: handlers as Record<string, VerbHandler>,
  notes: ["Every view is read-only."],
};
