/**
 * The `memory` tool: validates each action's data and calls the service verb.
 * @module
 */
import { z } from "zod";
import { extractCandidates } from "../extract/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { BATCH_FIND_LIMIT_DEFAULT, BATCH_READ_FULL_MAX } from "../memory/limits.ts";
import { readMemories, readMemory, type ReadResult } from "../memory/read.ts";
import { isUnwritableError, writeOrBackup } from "../memory/backup.ts";
import { type PossibleDuplicate, possibleDuplicateOf } from "../conflicts/duplicates.ts";
import { judgeConflict } from "../conflicts/workflow.ts";
import { checkWithinWait } from "../conflicts/schedule.ts";
import { takeOwnNotices } from "../conflicts/notices.ts";
import { MEMORY_HELP_TOPICS } from "./guidance.ts";
import { rememberMemory, type RememberResult } from "../memory/remember.ts";
import { type BatchRememberInput, rememberMany } from "../memory/remember_many.ts";
import { type MemoryEdit, updateMemory } from "../memory/update.ts";
import type { ValidityRead } from "../memory/validity.ts";
import type { BatchItem, FindInput, FindPage } from "../recall/find.ts";
import { TIME_FILTER_FIELD } from "../recall/time_filter.ts";
import type { RankedMemory } from "../recall/rank.ts";
import type { SourceType } from "../store/mod.ts";
import { type OpenConflictRef, openConflictsOf } from "../views/conflicts.ts";
import {
  batchFindPage,
  findPage,
  type LinkedOpenItem,
  linkedOpenItems,
} from "../views/recall_page.ts";
import { statusView } from "../views/status.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";
import { RESULTS_AS_ROWS } from "./envelope.ts";
import { MEMORY_ACTIONS, type MemoryAction } from "./memory_schemas.ts";

/**
 * A read span as returned: the offsets of the text actually given, and when they differ from
 * the ones asked for (an offset inside a surrogate pair), those as `requested`.
 */
function presentSpan(span: NonNullable<ReadResult["span"]>): Record<string, unknown> {
  return {
    start: span.start,
    end: span.end,
    total_chars: span.totalChars,
    ...(span.requested ? { requested: span.requested } : {}),
  };
}
import {
  type ContentMode,
  memoryHeader,
  presentHistory,
  presentMemory,
  presentPaging,
  presentResults,
} from "./present.ts";
import type { McpRuntime } from "./runtime.ts";
import {
  BACKUP_MODE,
  RESPONSE_NOTICES,
  type VerbHandler,
  verbHelp,
  type VerbTool,
} from "./verb_tool.ts";

type Data<A extends MemoryAction> = z.output<typeof MEMORY_ACTIONS[A]["schema"]>;

function findInput(data: Data<"find"> | Data<"batch_find">): FindInput {
  const sourceType = data.source_type === undefined
    ? undefined
    : (Array.isArray(data.source_type) ? data.source_type : [data.source_type]) as SourceType[];
  return {
    workspace: data.workspace,
    workspaceOnly: data.workspace_only,
    tagsFilter: data.tags_filter,
    afterTime: data.after_time,
    beforeTime: data.before_time,
    sourceType,
    status: data.status,
    entity: data.entity,
  };
}

function editFrom(data: Data<"update">): MemoryEdit {
  const modes: string[] = [];
  if (data.new_content !== undefined) modes.push("new_content");
  if (data.old_text !== undefined || data.new_text !== undefined) modes.push("old_text+new_text");
  if (data.patches !== undefined) modes.push("patches");
  if (data.tags_only) modes.push("tags_only");
  if (modes.length > 1) {
    throw new MemaError("invalid_input", `choose one update mode; got ${modes.join(" and ")}`, {
      field: modes[1].split("+")[0],
      hint: "new_content | old_text+new_text | patches | tags_only",
    });
  }
  if (!data.tags_only && (data.add_tags !== undefined || data.remove_tags !== undefined)) {
    throw new MemaError("invalid_input", "add_tags/remove_tags need tags_only: true", {
      field: data.add_tags !== undefined ? "add_tags" : "remove_tags",
      hint: "or pass new_tags to replace the tag list (a versioned change)",
    });
  }
  if (data.new_content !== undefined) return { kind: "new_content", content: data.new_content };
  if (data.old_text !== undefined || data.new_text !== undefined) {
    if (data.old_text === undefined || data.new_text === undefined) {
      const missing = data.old_text === undefined ? "old_text" : "new_text";
      throw new MemaError(
        "invalid_input",
        `${missing} is required with the old_text+new_text mode`,
        {
          field: missing,
        },
      );
    }
    return { kind: "replace_text", oldText: data.old_text, newText: data.new_text };
  }
  if (data.patches !== undefined) {
    return {
      kind: "patches",
      patches: data.patches.map((p) => ({ oldText: p.old_text, newText: p.new_text })),
    };
  }
  if (data.tags_only) {
    if (data.new_subject !== undefined || data.new_tags !== undefined) {
      throw new MemaError(
        "invalid_input",
        "tags_only changes tags only; drop new_subject/new_tags",
        {
          field: data.new_subject !== undefined ? "new_subject" : "new_tags",
        },
      );
    }
    if (!data.add_tags?.length && !data.remove_tags?.length) {
      throw new MemaError("invalid_input", "tags_only needs add_tags or remove_tags", {
        field: "add_tags",
      });
    }
    return { kind: "tags_only", addTags: data.add_tags ?? [], removeTags: data.remove_tags ?? [] };
  }
  if (
    data.new_subject === undefined && data.new_tags === undefined &&
    data.valid_from === undefined && data.valid_to === undefined &&
    data.entities === undefined && data.relations === undefined
  ) {
    throw new MemaError("invalid_input", "update needs a change", {
      field: "new_content",
      hint:
        "pass new_content, old_text+new_text, patches, tags_only, new_subject, new_tags, valid_from/valid_to, entities or relations",
    });
  }
  return { kind: "metadata_only" };
}

/**
 * Lets a write response wait (bounded) for write-time conflict detection, and returns the
 * verdict about this memory when it came in time (at most one notice body: the point of
 * waiting is that the writer sees the contradiction it just made).
 */
async function waitForConflictCheck(
  runtime: McpRuntime,
  memory: { id: number; version: number },
): Promise<Record<string, unknown>[]> {
  if (!runtime.conflicts || runtime.conflicts.waitMs <= 0) return [];
  await checkWithinWait(runtime.ctx, memory, {
    stages: runtime.conflicts.stages,
    waitMs: runtime.conflicts.waitMs,
  });
  return await takeOwnNotices(runtime.ctx, memory.id);
}

/** A result that still carries a claim a resolved conflict replaced says what is current. */
function presentReplacedClaim(
  claim: NonNullable<RankedMemory["replacedClaim"]>,
): Record<string, unknown> {
  return {
    conflict_id: claim.conflictId,
    current_value: claim.currentValue,
    held_by: claim.holderIds,
    hint: "a resolved conflict replaced a claim of this memory; prefer the memories in held_by",
  };
}

/** `time_filter`: the phrase, its interval, the field compared and where the phrase came from. */
function presentTimeFilter(filter: NonNullable<FindPage["timeFilter"]>): Record<string, unknown> {
  return {
    phrase: filter.phrase,
    from: new Date(filter.start).toISOString(),
    to: new Date(filter.end).toISOString(),
    field: TIME_FILTER_FIELD,
    source: filter.source,
    ...(filter.applied ? {} : { applied: false }),
  };
}

/** `conflict_signal` (docs/SPEC.md §6): results that belong to an unresolved conflict say so. */
function conflictSignal(
  open: ReadonlyMap<number, readonly OpenConflictRef[]>,
  memoryId: number,
): Record<string, unknown> | undefined {
  const groups = open.get(memoryId);
  if (!groups) return undefined;
  return {
    conflict_ids: groups.map((g) => g.conflictId),
    status: groups[0].status,
    hint: "judge the conflict before relying on this memory",
  };
}

/**
 * What a recalled row says beyond its memory (find and batch_find): the version it is at now
 * when an as-of answer shows an earlier one, its open conflicts, a claim a resolution replaced.
 */
function markRecalled(
  item: RankedMemory,
  result: Record<string, unknown>,
  open: ReadonlyMap<number, readonly OpenConflictRef[]>,
): void {
  if (item.currentVersion !== undefined) result.current_version = item.currentVersion;
  const signal = conflictSignal(open, item.memory.id);
  if (signal) result.conflict_signal = signal;
  if (item.replacedClaim) result.replaced_claim = presentReplacedClaim(item.replacedClaim);
}

/** The answer to a write that went to the JSONL backup. */
function backedUp(
  outcome: { entryId: string; path: string; cause: string; version?: number },
  memoryId: number | null = null,
): Record<string, unknown> {
  return {
    [BACKUP_MODE]: true,
    memory_id: memoryId,
    // A saved update: the version the memory will have once replayed (the next saved update's
    // expected_version), while read still shows the database's.
    ...(outcome.version === undefined ? {} : { version: outcome.version }),
    backup_id: outcome.entryId,
    backup_path: outcome.path,
    saved: true,
    warnings: [
      `this write could not go to the database (${outcome.cause}); it was saved to ${outcome.path} and is not searchable yet. When the database is writable again, run memory_repair {"task": "replay_backup"} (dry run first) to apply it exactly once.`,
    ],
  };
}

function presentLinked(items: readonly LinkedOpenItem[]): Record<string, unknown>[] {
  return items.map((item) => ({
    memory_id: item.memoryId,
    subject: item.subject,
    tags: item.tags,
    shared_tags: item.sharedTags,
    workspace: item.workspace,
  }));
}

/**
 * What a write says about its workspace: `write_hints` (a new workspace, a near-miss name, a
 * renamed one) and, under `weak` isolation, a non-blocking `workspace_review` notice the first
 * time a workspace appears.
 */
function workspaceHints(
  runtime: McpRuntime,
  results: readonly RememberResult[],
): Record<string, unknown> {
  const hints: Record<string, unknown> = {};
  const fresh = [...new Set(results.filter((r) => r.newWorkspace).map((r) => r.workspace))];
  const near = results.find((r) => r.didYouMean !== undefined);
  const moved = results.find((r) => r.redirectedFrom !== undefined);
  if (fresh.length > 0 && runtime.ctx.settings.workspaceIsolation === "weak") {
    hints.new_workspace_detected = fresh.length === 1 ? fresh[0] : fresh;
  }
  if (near) hints.did_you_mean = { workspace: near.workspace, existing: near.didYouMean };
  if (moved) hints.redirected = { from: moved.redirectedFrom, to: moved.workspace };
  if (Object.keys(hints).length === 0) return {};
  const out: Record<string, unknown> = { write_hints: hints };
  if (hints.new_workspace_detected !== undefined) {
    out[RESPONSE_NOTICES] = fresh.map((workspace) => ({
      kind: "workspace_review",
      severity: "info",
      title: `new workspace "${workspace}"`,
      message: near
        ? `This write created workspace "${workspace}", close to the existing "${near.didYouMean}". If it is a typo, move the memory with memory_govern move_memories (authorized) and keep using "${near.didYouMean}".`
        : `This write created workspace "${workspace}". If it duplicates an existing one, merge it with memory_govern merge_workspaces; otherwise confirm the list with confirm_workspaces.`,
      suggested_call: { tool: "memory_review", view: "workspaces", data: {} },
    }));
  }
  return out;
}

/**
 * `write_hints.validity_read`: the window edges mema read from the fact's words, each with the
 * words that stated it, so the agent can correct a misreading with update.
 */
function validityHint(read: readonly ValidityRead[] | undefined): Record<string, unknown> {
  if (!read || read.length === 0) return {};
  return {
    validity_read: Object.fromEntries(
      read.map((edge) => [edge.field, { value: edge.value, words: edge.words }]),
    ),
  };
}

const handlers: { [A in MemoryAction]: VerbHandler<Data<A>> } = {
  async remember(runtime, data) {
    const input = {
      content: data.content,
      subject: data.subject,
      workspace: data.workspace,
      tags: data.tags,
      sourceType: data.source_type,
      sourceRef: data.source_ref,
      eventTime: data.event_time,
      validFrom: data.valid_from,
      validTo: data.valid_to,
      confidence: data.confidence,
      protectionLevel: data.protection_level,
      status: data.status,
      metadata: data.metadata,
      follows: data.follows,
      authorized: data.authorized,
      entities: data.entities,
      relations: data.relations,
    };
    // The duplicate hint is read while the write's disk sync runs (it only reads).
    let duplicate: PossibleDuplicate | undefined;
    const outcome = await writeOrBackup(
      runtime.ctx,
      { action: "remember", input },
      () =>
        rememberMemory(runtime.ctx, input, {
          whileSyncing: async (result) => {
            // A pending fact is not active yet: nothing to be a duplicate of.
            if (!result.duplicateReplay && (input.status ?? "active") === "active") {
              duplicate = await possibleDuplicateOf(runtime.ctx, {
                id: result.memoryId,
                content: input.content,
                workspaceCanonical: result.workspace,
              });
            }
          },
        }),
    );
    if (outcome.kind === "backed_up") return backedUp(outcome);
    const result = outcome.result;
    const response: Record<string, unknown> = {
      memory_id: result.memoryId,
      version: result.version,
      workspace: result.workspace,
    };
    if (result.duplicateReplay) response.duplicate_replay = true;
    else {
      const read = validityHint(result.validityRead);
      if (Object.keys(read).length > 0) response.write_hints = read;
      const verdict = await waitForConflictCheck(runtime, {
        id: result.memoryId,
        version: result.version,
      });
      if (verdict.length > 0) response[RESPONSE_NOTICES] = verdict;
      if (duplicate) {
        response.write_hints = {
          ...response.write_hints as object,
          possible_duplicate: {
            memory_id: duplicate.memoryId,
            similarity: Math.round(duplicate.similarity * 1000) / 1000,
            hint:
              "an active fact in this workspace says the same; read it, then merge or retire one",
          },
        };
      }
    }
    const workspace = workspaceHints(runtime, [result]);
    if (workspace.write_hints && response.write_hints) {
      workspace.write_hints = {
        ...response.write_hints as object,
        ...workspace.write_hints as object,
      };
    }
    if (response[RESPONSE_NOTICES] && workspace[RESPONSE_NOTICES]) {
      workspace[RESPONSE_NOTICES] = [
        ...response[RESPONSE_NOTICES] as unknown[],
        ...workspace[RESPONSE_NOTICES] as unknown[],
      ];
    }
    return { ...response, ...workspace };
  },

  async batch_remember(runtime, data) {
    const inputs: BatchRememberInput[] = data.items.map((item) => ({
      content: item.content,
      subject: item.subject,
      workspace: item.workspace,
      tags: item.tags,
      sourceType: item.source_type,
      sourceRef: item.source_ref,
      eventTime: item.event_time,
      validFrom: item.valid_from,
      validTo: item.valid_to,
      confidence: item.confidence,
      protectionLevel: item.protection_level,
      status: item.status,
      metadata: item.metadata,
      follows: item.follows,
      followsItem: item.follows_item,
      entities: item.entities,
      relations: item.relations,
      authorized: item.authorized,
    }));
    let results;
    try {
      results = await rememberMany(runtime.ctx, inputs);
    } catch (error) {
      // A batch is not diverted to the JSONL backup: it answers with an error and stores
      // nothing, and the agent can fall back to remember, which the backup serves.
      if (!isUnwritableError(error)) throw error;
      throw new MemaError("storage_error", `the database cannot be written: ${error}`, {
        hint: "nothing was stored; retry later, or store the facts one by one with remember " +
          "(saved to the JSONL backup while the database is unwritable)",
        cause: error,
      });
    }
    return {
      results: results.map((result, index) => ({
        index,
        memory_id: result.memoryId,
        version: result.version,
        workspace: result.workspace,
        ...(result.duplicateReplay ? { duplicate_replay: true } : {}),
        ...(result.validityRead ? { write_hints: validityHint(result.validityRead) } : {}),
      })),
      stored: results.filter((result) => !result.duplicateReplay).length,
      duplicates: results.filter((result) => result.duplicateReplay).length,
      ...workspaceHints(runtime, results),
    };
  },

  async find(runtime, data) {
    const mode: ContentMode = data.content_mode ?? "preview";
    const { page, hits, conflicts, warnings } = await findPage(runtime.ctx, {
      ...findInput(data),
      query: data.query,
      time: data.time,
      timeFromQuery: true,
      asOf: data.as_of,
      knownAt: data.known_at,
      limit: data.limit,
      offset: data.offset,
    }, { withHits: mode === "hits", hitWindow: data.hit_window });
    // Lean by default; content_mode full or include_size (call or config) keep every field.
    const whole = mode === "full" || (data.include_size ?? runtime.ctx.settings.includeSize);
    const { results, size } = presentResults(page.items, mode, {
      hits,
      extend: (item, result) => markRecalled(item, result, conflicts),
      lean: whole ? undefined : { workspace: data.workspace && canonicalWorkspace(data.workspace) },
    });
    const response: Record<string, unknown> = {
      results,
      ...presentPaging(page, data.offset ?? 0, !whole),
    };
    if (page.hint) response.hint = page.hint;
    if (page.timeFilter) response.time_filter = presentTimeFilter(page.timeFilter);
    if (data.include_linked_open_items !== false) {
      const linked = await linkedOpenItems(runtime.ctx, page.items);
      if (linked.length > 0) response.linked_open_items = presentLinked(linked);
    }
    if (whole) response.size = size;
    if (warnings.length > 0) response.warnings = warnings;
    return response;
  },

  async batch_find(runtime, data) {
    const mode: ContentMode = data.content_mode ?? "preview";
    const queries = data.queries.map((q, index) =>
      typeof q === "string" ? { id: `q${index + 1}`, query: q } : {
        id: q.id ?? `q${index + 1}`,
        query: q.query,
        asOf: q.as_of,
        knownAt: q.known_at,
      }
    );
    const ids = new Set<string>();
    for (const [index, q] of queries.entries()) {
      if (ids.has(q.id)) {
        throw new MemaError("invalid_input", `query id "${q.id}" is used twice`, {
          field: `queries.${index}.id`,
        });
      }
      ids.add(q.id);
    }
    // The batch answer has never carried the semantic-channel warning; kept as it was.
    const { page, hits, conflicts } = await batchFindPage(runtime.ctx, {
      queries,
      filters: {
        ...findInput(data),
        asOf: data.as_of,
        knownAt: data.known_at,
        limit: data.limit_per_query ?? BATCH_FIND_LIMIT_DEFAULT,
      },
      deduplicate: data.deduplicate ?? true,
    }, { withHits: mode === "hits", hitWindow: data.hit_window });
    const whole = mode === "full" || (data.include_size ?? runtime.ctx.settings.includeSize);
    const { results, size } = presentResults(page.items, mode, {
      hits,
      extend(item, result) {
        markRecalled(item, result, conflicts);
        const batch = item as BatchItem;
        result.matched_queries = batch.matchedQueries;
        result.best_query_id = batch.bestQueryId;
      },
      lean: whole ? undefined : { workspace: data.workspace && canonicalWorkspace(data.workspace) },
    });
    const response: Record<string, unknown> = {
      results,
      has_more: page.hasMore,
      total_estimate: page.totalEstimate,
      retrieval_mode: "batch",
      per_query: page.perQuery.map((q) => ({
        id: q.id,
        count: q.count,
        has_more: q.hasMore,
        total_estimate: q.totalEstimate,
        retrieval_mode: q.retrievalMode,
      })),
    };
    if (whole) response.size = size;
    else Object.assign(response, { [RESULTS_AS_ROWS]: true });
    return response;
  },

  async read(runtime, data) {
    const result = await readMemory(runtime.ctx, {
      memoryId: data.memory_id,
      span: data.span,
      includeHistory: data.include_history,
    });
    const response: Record<string, unknown> = {
      ...presentMemory(result.memory),
      content: result.content,
    };
    if (result.span) {
      response.span = presentSpan(result.span);
    }
    if (result.history) response.history = result.history.map(presentHistory);
    return response;
  },

  async batch_read(runtime, data) {
    const mode = data.content_mode ?? "full";
    if (mode === "full" && data.memory_ids.length > BATCH_READ_FULL_MAX) {
      throw new MemaError(
        "resource_limit_exceeded",
        `batch_read returns full content for at most ${BATCH_READ_FULL_MAX} ids (got ${data.memory_ids.length})`,
        { field: "memory_ids", hint: 'pass content_mode: "preview" for up to 50 ids' },
      );
    }
    const entries = await readMemories(runtime.ctx, {
      memoryIds: data.memory_ids,
      spans: data.spans,
    });
    const memories = entries.map((entry) => {
      if (!entry.ok) {
        return { memory_id: entry.memoryId, error: entry.error.code, reason: entry.error.reason };
      }
      const { result } = entry;
      const item: Record<string, unknown> = memoryHeader(result.memory);
      if (mode === "full" || result.span) item.content = result.content;
      if (result.span) {
        item.span = presentSpan(result.span);
      }
      return item;
    });
    return { memories, missing: entries.filter((e) => !e.ok).map((e) => e.memoryId) };
  },

  async update(runtime, data) {
    const input = {
      memoryId: data.memory_id,
      edit: editFrom(data),
      newSubject: data.new_subject,
      newTags: data.new_tags,
      reason: data.reason,
      expectedVersion: data.expected_version,
      expectedContentHash: data.expected_content_hash,
      validFrom: data.valid_from,
      validTo: data.valid_to,
      previousStillValid: data.previous_still_valid,
      authorized: data.authorized,
      entities: data.entities,
      relations: data.relations,
    };
    const outcome = await writeOrBackup(
      runtime.ctx,
      { action: "update", input },
      () => updateMemory(runtime.ctx, input),
    );
    if (outcome.kind === "backed_up") return backedUp(outcome, input.memoryId);
    const result = outcome.result;
    const response: Record<string, unknown> = {
      memory_id: result.memoryId,
      version: result.version,
      content_hash: result.contentSha,
      tags: result.tags,
    };
    if (result.unchanged) response.unchanged = true;
    if (result.validityRead) response.write_hints = validityHint(result.validityRead);
    if (result.closedPrevious) {
      response.closed_previous = {
        version: result.closedPrevious.version,
        valid_to: result.closedPrevious.validTo,
      };
    }
    if (!result.unchanged && input.edit.kind !== "tags_only") {
      const verdict = await waitForConflictCheck(runtime, {
        id: result.memoryId,
        version: result.version,
      });
      if (verdict.length > 0) response[RESPONSE_NOTICES] = verdict;
    }
    const open = await openConflictsOf(runtime.ctx, [result.memoryId]);
    if (open.size > 0) {
      response.attention = {
        reason: "this memory belongs to an unresolved conflict",
        conflict_ids: open.get(result.memoryId)!.map((c) => c.conflictId),
      };
    }
    return response;
  },

  async judge(runtime, data) {
    const result = await judgeConflict(runtime.ctx, {
      conflictId: data.conflict_id,
      expectedRevision: data.expected_revision,
      verdict: data.verdict,
      chosenValue: data.chosen_value,
      decidedBy: data.decided_by ?? "agent",
      ref: data.ref,
      reason: data.reason,
      applyPlan: data.apply_plan,
      preserveHistory: data.preserve_history,
      apply: data.apply,
      authorized: data.authorized,
    });
    const response: Record<string, unknown> = {
      conflict_id: result.conflictId,
      revision: result.revision,
      status: result.status,
      chosen_value: result.chosenValue,
      plan: result.plan,
    };
    if (result.staleMemoryIds) response.stale_memory_ids = result.staleMemoryIds;
    if (result.actionRequired) {
      return {
        ...response,
        error: result.error,
        action_required: result.actionRequired,
        next: {
          tool: "memory_govern",
          action: "replan_conflict",
          data: { conflict_id: result.conflictId, expected_revision: result.revision },
        },
      };
    }
    return {
      ...response,
      next: result.status === "applying"
        ? {
          tool: "memory_govern",
          action: "apply_conflict_action",
          data: {
            conflict_id: result.conflictId,
            expected_revision: result.revision,
            memory_id: result.plan[0]?.memory_id,
            authorized: true,
          },
        }
        : null,
    };
  },

  extract(runtime, data) {
    const candidates = extractCandidates(runtime.ctx, { text: data.text });
    return {
      candidates: candidates.map((c) => ({
        text: c.text,
        subject: c.subject,
        tags: c.tags,
        ...(c.eventTime === undefined ? {} : { event_time: c.eventTime }),
        ...(c.validUntil === undefined ? {} : { valid_until: c.validUntil }),
        ...(c.datePhrase === undefined ? {} : { date_phrase: c.datePhrase }),
        span: { start: c.start, end: c.end },
        score: c.score,
      })),
      stored: false,
      hint: candidates.length === 0
        ? "no sentence reads like a fact (too short, a question, or only about the conversation)"
        : "nothing is stored: keep the facts you want with batch_remember (content = text; add a workspace)",
    };
  },

  async status(runtime) {
    const view = await statusView(runtime.ctx);
    const caps = view.store;
    return {
      version: view.version,
      database: view.database,
      schema_generation: view.schemaGeneration,
      ...(view.backend === undefined ? {} : {
        backend: {
          kind: view.backend.kind,
          database: view.backend.database,
          server_version: view.backend.serverVersion,
          schema_version: view.backend.schemaVersion,
          vector_path: view.backend.vectorPath,
          extensions: view.backend.extensions,
        },
      }),
      started_at: runtime.startedAt,
      identity: { client: view.identity.client, agent_id: view.identity.agentId },
      memories: view.memories,
      history_versions: view.historyVersions,
      capabilities: {
        mode: view.capabilities.mode,
        writable: view.writable,
        ...(view.unwritableReason === undefined
          ? {}
          : { unwritable_reason: view.unwritableReason }),
        fts: caps.fts,
        // On PostgreSQL no sqlite-vec is loaded: `backend.vector_path` says which search runs.
        ...(view.backend !== undefined ? {} : {
          sqlite_vec: caps.vec
            ? { loaded: true, version: caps.vecVersion }
            : { loaded: false, error: caps.vecError },
        }),
        embedding_model: view.vector.modelId,
        vector_state: view.vector.state,
        embedding_space: view.vector.space,
        judge: {
          state: view.judge.state,
          model: view.judge.modelId ?? null,
          ...(view.judge.warning ? { warning: view.judge.warning, fix: view.judge.fix } : {}),
        },
      },
      evidence: {
        rows: view.evidence.rows,
        embedded_rows: view.evidence.embeddedRows,
        coverage: view.evidence.coverage,
      },
      jobs: view.jobs,
      workspace_isolation: view.workspaceIsolation,
      workspace: view.workspace,
      recall_blacklist: view.recallBlacklist,
    };
  },

  help(_runtime, data) {
    return verbHelp(MEMORY_VERB_TOOL, data.topic);
  },
};

// What an agent needs to call each action right; `help` carries every field, limit and example
// (tools/list is paid by every session, help only when asked).
const MEMORY_TOOL_DESCRIPTION =
  `mema: a local fact store. Search before storing; update a fact instead of storing a contradiction.
Call {"action": ..., "data": {...}}; help {topic?}: every field, examples.
- remember {content, subject, workspace, tags?, source_ref?, event_time?} → {memory_id, version}
- batch_remember {items: [remember data] (≤ 500)}
- find {query?, workspace?, limit?, content_mode?: preview|hits|full} → {results, has_more}
- batch_find {queries (≤ 8)}
- read {memory_id, span?: {start, end}}
- batch_read {memory_ids}
- update {memory_id, new_content | old_text+new_text, reason?, expected_version?}
- judge {conflict_id, expected_revision, chosen_value?}
- extract {text}: facts from notes
- status {}
Locked memories change only with authorized:true (user approved).`;

/** The `memory` tool. */
export const MEMORY_VERB_TOOL: VerbTool = {
  name: "memory",
  title: "Memory",
  description: MEMORY_TOOL_DESCRIPTION,
  verbKey: "action",
  verbs: MEMORY_ACTIONS,
  handlers: handlers as Record<string, VerbHandler>,
  topics: MEMORY_HELP_TOPICS,
  notes: [
    "Memory ids are stable integers. Offsets are UTF-16 code units.",
    "Every response is {ok, mode, degraded, warnings, data}; errors have ok:false and data.error.",
    "Byte-identical content already active in a workspace returns the same id with duplicate_replay:true.",
    "update keeps every earlier version; pass expected_version to avoid overwriting someone else's change.",
  ],
};
