/**
 * Notices: how detection results reach the agent. A response carries at most one summary
 * line about notices it has not been told of yet (counts and the call that lists them),
 * never their bodies; a write that waited for its own verdict (`notice_sync_wait_ms`) also
 * carries that one verdict. `notice` list, read, dismiss and resolve manage them, one by one
 * or in bulk by filter; a dismissed notice never comes back (its dedupe key is kept).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { takeNotices } from "./notices.ts";
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
 * // A fresh library has nothing to tell: the envelope carries no notices.
 * assert.deepEqual(await takeNotices(ctx), []);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { nowIso } from "../platform/clock.ts";
import type { NoticeFilter, NoticeRecord, NoticeStatus } from "../store/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { isStrict, strictWorkspace } from "../workspaces/access.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";
import { NOTICE_TELLING_KEY } from "./constants_pipeline.ts";
import {
  NOTICE_BODIES_PER_WRITE,
  NOTICE_BULK_MAX,
  NOTICE_LIST_DEFAULT,
  NOTICE_MESSAGE_PREVIEW_CHARS,
} from "./notice_constants.ts";

/** The statuses of notices nobody has dismissed or resolved yet. */
const UNHANDLED: NoticeStatus[] = ["pending", "delivered"];

/** The call that lists the unhandled notices. */
export const LIST_NOTICES_CALL = {
  tool: "memory_repair",
  task: "notice",
  data: { action: "list" },
} as const;

/** A notice as responses show it (`full` keeps the whole message, as `read` wants). */
export function presentNotice(
  notice: NoticeRecord,
  options: { full?: boolean } = {},
): Record<string, unknown> {
  const cut = !options.full && notice.message.length > NOTICE_MESSAGE_PREVIEW_CHARS;
  return {
    notice_id: notice.id,
    kind: notice.kind,
    severity: notice.severity,
    title: notice.title,
    message: cut ? `${notice.message.slice(0, NOTICE_MESSAGE_PREVIEW_CHARS)}…` : notice.message,
    ...(cut
      ? {
        message_chars: notice.message.length,
        read: {
          tool: "memory_repair",
          task: "notice",
          data: { action: "read", notice_id: notice.id },
        },
      }
      : {}),
    conflict_id: notice.conflictId,
    memory_ids: notice.payload.memory_ids ?? [],
    status: notice.status,
    created_at: notice.createdAt,
    action_required: notice.severity === "normal" ? "judge_conflict_before_use" : undefined,
    suggested_call: notice.conflictId === null ? undefined : {
      tool: "memory_review",
      view: "conflict_detail",
      data: { conflict_id: notice.conflictId },
    },
  };
}

/**
 * The notices a caller may see: under strict isolation only those every memory of which is in
 * the caller's workspace (a notice about another workspace is not theirs).
 */
function callerScope(ctx: ServiceContext): Pick<NoticeFilter, "workspace"> {
  return isStrict(ctx) ? { workspace: strictWorkspace(ctx) } : {};
}

/** Whether the caller may see one notice (the same rule as {@linkcode callerScope}). */
async function noticeVisible(ctx: ServiceContext, notice: NoticeRecord): Promise<boolean> {
  if (!isStrict(ctx)) return true;
  return (await ctx.store.conflicts.noticesWhere(
    { statuses: [notice.status], id: notice.id, ...callerScope(ctx) },
    { limit: 1, offset: 0 },
  )).length > 0;
}

function counts(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The summary a response carries when notices arrived since the caller was last told: how
 * many are new (by severity and kind), how many are unhandled in all, and the call that lists
 * them. Telling marks the new ones delivered, so the next response says nothing until more
 * arrive: a backlog is told once, not on every answer. Returns [] or [summary].
 */
export async function takeNotices(ctx: ServiceContext): Promise<Record<string, unknown>[]> {
  const store = ctx.store;
  try {
    // Most responses have nothing to tell: look before taking the write lock (and before
    // reading notices at all while none is pending and nothing changed).
    if (!await store.hasPendingNotices()) return [];
    const fresh: NoticeFilter = { statuses: ["pending"], ...callerScope(ctx) };
    // Under strict isolation the pending notices may all be other workspaces': look first.
    if (await store.read(async () => (await store.conflicts.countNotices(fresh)).total) === 0) {
      return [];
    }
    // Marking them delivered needs no disk sync of its own: a power cut that loses the mark
    // tells the same count again, and the next acknowledged write makes it durable anyway.
    return await store.write(async () => {
      await store.claimKeys([NOTICE_TELLING_KEY]);
      const told = await store.conflicts.countNotices(fresh);
      if (told.total === 0) return [];
      await store.conflicts.setNoticesWhere(fresh, {
        status: "delivered",
        now: nowIso(),
        limit: told.total,
      });
      const unhandled = (await store.conflicts.countNotices({
        statuses: UNHANDLED,
        ...callerScope(ctx),
      })).total;
      const severities = Object.entries(counts(told.bySeverity))
        .map(([severity, n]) => `${n} ${severity}`).join(", ");
      return [{
        kind: "notice_summary",
        new: told.total,
        unhandled,
        by_severity: counts(told.bySeverity),
        by_kind: counts(told.byKind),
        message: `${told.total} new notice${told.total === 1 ? "" : "s"} (${severities}); ` +
          `${unhandled} not yet dismissed or resolved. List them with the call in "list".`,
        list: LIST_NOTICES_CALL,
      }];
    }, { durable: false, concurrent: true });
  } catch {
    // A database that cannot be written still answers; the summary waits for the next one.
    return [];
  }
}

/**
 * The verdict a write waited for: pending notices naming the memory it just wrote, at most
 * {@linkcode NOTICE_BODIES_PER_WRITE} (the most severe first), marked delivered. The rest stay
 * pending for the summary line.
 */
export async function takeOwnNotices(
  ctx: ServiceContext,
  memoryId: number,
): Promise<Record<string, unknown>[]> {
  const store = ctx.store;
  try {
    if (!await store.hasPendingNotices()) return [];
    return await store.write(async () => {
      await store.claimKeys([NOTICE_TELLING_KEY]);
      const own = (await store.conflicts.noticesWhere(
        { statuses: ["pending"], memoryId, ...callerScope(ctx) },
        { limit: NOTICE_BULK_MAX, offset: 0 },
      )).sort((
        a,
        b,
      ) => (a.severity === b.severity ? b.id - a.id : a.severity === "normal" ? -1 : 1))
        .slice(0, NOTICE_BODIES_PER_WRITE);
      if (own.length === 0) return [];
      await store.conflicts.setNoticeStatus(own.map((n) => n.id), {
        status: "delivered",
        from: ["pending"],
        now: nowIso(),
      });
      return own.map((notice) => presentNotice({ ...notice, status: "delivered" }));
    }, { durable: false, concurrent: true });
  } catch {
    return [];
  }
}

/** The filters of a bulk dismiss or resolve (and of a list). */
export interface NoticeSelection {
  workspace?: string;
  kind?: string;
  severity?: "info" | "normal";
  conflictId?: number;
  sourceRefPrefix?: string;
  agentId?: string;
  client?: string;
  olderThanDays?: number;
  createdAfter?: string;
  status?: NoticeStatus;
}

/** The filter a selection stands for, within what the caller may see. */
function selectionFilter(ctx: ServiceContext, selection: NoticeSelection): NoticeFilter {
  const scope = callerScope(ctx);
  let workspace = selection.workspace === undefined
    ? undefined
    : canonicalWorkspace(selection.workspace);
  if (scope.workspace !== undefined) {
    if (workspace !== undefined && workspace !== scope.workspace) {
      throw new MemaError(
        "invalid_input",
        `under strict isolation only notices of workspace "${scope.workspace}" can be managed`,
        { field: "workspace", hint: `leave workspace out, or pass "${scope.workspace}"` },
      );
    }
    workspace = scope.workspace;
  }
  let createdAfter: string | undefined;
  if (selection.createdAfter !== undefined) {
    const at = Date.parse(selection.createdAfter);
    if (Number.isNaN(at)) {
      throw new MemaError("invalid_input", "created_after is not a date", {
        field: "created_after",
        hint: 'an ISO 8601 time, e.g. "2026-12-04T16:00:00Z"',
      });
    }
    createdAfter = new Date(at).toISOString();
  }
  return {
    statuses: selection.status ? [selection.status] : UNHANDLED,
    workspace,
    kind: selection.kind,
    severity: selection.severity,
    conflictId: selection.conflictId,
    sourceRefPrefix: selection.sourceRefPrefix,
    agentId: selection.agentId,
    client: selection.client,
    createdAfter,
    createdBefore: selection.olderThanDays === undefined
      ? undefined
      : new Date(Date.parse(nowIso()) - selection.olderThanDays * 86_400_000).toISOString(),
  };
}

/** The filter as answers and the audit row show it (only what was given). */
function presentSelection(selection: NoticeSelection): Record<string, unknown> {
  const shown: Record<string, unknown> = {
    workspace: selection.workspace,
    kind: selection.kind,
    severity: selection.severity,
    conflict_id: selection.conflictId,
    source_ref_prefix: selection.sourceRefPrefix,
    agent_id: selection.agentId,
    client: selection.client,
    older_than_days: selection.olderThanDays,
    created_after: selection.createdAfter,
    status: selection.status,
  };
  return Object.fromEntries(Object.entries(shown).filter(([, value]) => value !== undefined));
}

/**
 * One notice or a bulk change, never both: a call naming `notice_id` beside filters, `all` or
 * `dry_run` (or asking `list` for one id) is refused, so a filter is never silently ignored.
 */
function refuseMixedSelection(
  input: { action: string; all?: boolean; dryRun?: boolean },
  selection: NoticeSelection,
): void {
  if (input.action === "list") {
    throw new MemaError("invalid_input", "list pages notices and takes no notice_id", {
      field: "notice_id",
      hint: 'read one notice with {"action": "read", "notice_id": N}',
    });
  }
  const named = Object.entries(selection).find(([, value]) => value !== undefined)?.[0];
  const extra = named !== undefined
    ? named.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
    : input.all !== undefined
    ? "all"
    : input.dryRun !== undefined
    ? "dry_run"
    : undefined;
  if (extra === undefined) return;
  throw new MemaError(
    "invalid_input",
    `notice_id names one notice; ${extra} belongs to a bulk change: send one or the other`,
    { field: extra, hint: `drop ${extra} to ${input.action} notice_id alone, or drop notice_id` },
  );
}

/** The `notice` task. */
export async function manageNotices(
  ctx: ServiceContext,
  input: {
    action: "list" | "read" | "dismiss" | "resolve";
    noticeId?: number;
    selection?: NoticeSelection;
    all?: boolean;
    dryRun?: boolean;
    limit?: number;
    offset?: number;
    reason?: string;
  },
): Promise<Record<string, unknown>> {
  const store = ctx.store;
  const selection = input.selection ?? {};
  if (input.noticeId !== undefined) refuseMixedSelection(input, selection);
  if (input.action === "list") {
    const filter = selectionFilter(ctx, selection);
    const limit = input.limit ?? NOTICE_LIST_DEFAULT;
    const offset = input.offset ?? 0;
    const { notices, total } = await store.read(async () => ({
      notices: await store.conflicts.noticesWhere(filter, { limit, offset }),
      total: await store.conflicts.countNotices(filter),
    }));
    return {
      notices: notices.map((notice) => presentNotice(notice)),
      total: total.total,
      by_severity: counts(total.bySeverity),
      by_kind: counts(total.byKind),
      has_more: offset + notices.length < total.total,
      next_offset: offset + notices.length < total.total ? offset + notices.length : null,
    };
  }
  if (input.noticeId === undefined) {
    if (input.action === "read") {
      throw new MemaError("invalid_input", "notice_id is required to read", {
        field: "notice_id",
      });
    }
    return await bulkChange(ctx, { ...input, action: input.action, selection });
  }
  return await store.write(async () => {
    const found = await store.conflicts.notice(input.noticeId!);
    const notice = found && await noticeVisible(ctx, found) ? found : undefined;
    if (!notice) {
      throw new MemaError("not_found", `notice ${input.noticeId} does not exist`, {
        field: "notice_id",
      });
    }
    if (input.action === "read") return { notice: presentNotice(notice, { full: true }) };
    const status: NoticeStatus = input.action === "dismiss" ? "dismissed" : "resolved";
    await store.conflicts.setNoticeStatus([notice.id], { status, now: nowIso() });
    return { notice: presentNotice({ ...notice, status }) };
  });
}

/**
 * Dismisses or resolves every notice a filter takes, at most `limit` (≤ NOTICE_BULK_MAX) per
 * call, oldest first. A dry run (the default) only counts. A real run writes one audit row
 * with the filter and the count.
 */
async function bulkChange(
  ctx: ServiceContext,
  input: {
    action: "dismiss" | "resolve";
    selection: NoticeSelection;
    all?: boolean;
    dryRun?: boolean;
    limit?: number;
    reason?: string;
  },
): Promise<Record<string, unknown>> {
  const shown = presentSelection(input.selection);
  if (Object.keys(shown).length === 0 && input.all !== true) {
    throw new MemaError(
      "invalid_input",
      `${input.action} needs notice_id, a filter, or all: true`,
      {
        field: "notice_id",
        hint:
          "filters: workspace, kind, severity, conflict_id, source_ref_prefix, agent_id, client, older_than_days, created_after, status",
      },
    );
  }
  const filter = selectionFilter(ctx, input.selection);
  const limit = Math.min(input.limit ?? NOTICE_BULK_MAX, NOTICE_BULK_MAX);
  const dryRun = input.dryRun ?? true;
  const status: NoticeStatus = input.action === "dismiss" ? "dismissed" : "resolved";
  const store = ctx.store;
  const base = {
    action: input.action,
    dry_run: dryRun,
    filter: input.all === true && Object.keys(shown).length === 0 ? { all: true } : shown,
  };
  if (dryRun) {
    const matching = await store.read(async () => await store.conflicts.countNotices(filter));
    return {
      ...base,
      matching: matching.total,
      would_change: Math.min(matching.total, limit),
      by_severity: counts(matching.bySeverity),
      by_kind: counts(matching.byKind),
      has_more: matching.total > limit,
      next: matching.total === 0
        ? null
        : { tool: "memory_repair", task: "notice", data: { ...runData(input), dry_run: false } },
    };
  }
  return await store.write(async () => {
    const now = nowIso();
    const changed = await store.conflicts.setNoticesWhere(filter, { status, now, limit });
    const left = (await store.conflicts.countNotices(filter)).total;
    if (changed > 0) {
      await store.appendAudit({
        at: now,
        action: `notice_bulk_${input.action}`,
        memoryId: null,
        agentId: ctx.caller.agentId,
        client: ctx.caller.client,
        reason: input.reason ?? null,
        detail: { filter: base.filter, count: changed, to_status: status, has_more: left > 0 },
      });
    }
    return {
      ...base,
      changed,
      status,
      has_more: left > 0,
      remaining: left,
      next: left > 0
        ? { tool: "memory_repair", task: "notice", data: { ...runData(input), dry_run: false } }
        : null,
    };
  });
}

/** The `data` that repeats a bulk call (the next page of a large backlog). */
function runData(input: {
  action: string;
  selection: NoticeSelection;
  all?: boolean;
  limit?: number;
  reason?: string;
}): Record<string, unknown> {
  const data: Record<string, unknown> = {
    action: input.action,
    ...presentSelection(input.selection),
  };
  if (input.all === true) data.all = true;
  if (input.limit !== undefined) data.limit = input.limit;
  if (input.reason !== undefined) data.reason = input.reason;
  return data;
}
