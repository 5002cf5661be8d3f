/**
 * Notices: how detection results reach the agent. Pending notices ride on
 * the next successful responses (each delivered once); `notice` list, read,
 * dismiss and resolve manage them; a dismissed notice never comes back (its
 * dedupe key is kept).
 *
 * @example
 * ```ts
 * import { takeNotices } from "./src/conflicts/notices.ts";
 * // envelope.notices = takeNotices(store);
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { nowIso } from "../platform/mod.ts";
import type { NoticeRecord, NoticeStatus } from "../store/mod.ts";
import type { ServiceContext } from "../memory/context.ts";
import { canSeeWorkspace, isStrict } from "../workspaces/access.ts";
import { NOTICES_PER_RESPONSE, STRICT_NOTICE_WINDOW } from "./constants_pipeline.ts";

/** A notice as responses show it. */
export function presentNotice(notice: NoticeRecord): Record<string, unknown> {
  return {
    notice_id: notice.id,
    kind: notice.kind,
    severity: notice.severity,
    title: notice.title,
    message: notice.message,
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
 * Whether the caller may see a notice: under strict isolation only when every memory it
 * names is in the caller's workspace (a notice about another workspace is not theirs).
 */
export function noticeVisible(ctx: ServiceContext, notice: NoticeRecord): boolean {
  if (!isStrict(ctx)) return true;
  const ids = Array.isArray(notice.payload.memory_ids) ? notice.payload.memory_ids as number[] : [];
  const memories = ctx.store.getMemories(ids.map(Number));
  return ids.length > 0 && [...memories.values()].length === ids.length &&
    [...memories.values()].every((m) => canSeeWorkspace(ctx, m.workspaceCanonical));
}

/** Pending notices for a response (those the caller may see), marked delivered. */
export async function takeNotices(
  ctx: ServiceContext,
  limit = NOTICES_PER_RESPONSE,
): Promise<Record<string, unknown>[]> {
  const store = ctx.store;
  // Under strict isolation notices of other workspaces are skipped: look further ahead.
  const window = isStrict(ctx) ? STRICT_NOTICE_WINDOW : limit;
  try {
    // Most responses have nothing to deliver: look before taking the write lock (and before
    // reading notices at all while none is pending and nothing changed).
    if (!store.hasPendingNotices()) return [];
    // Under strict isolation the pending notices may all be other workspaces': look first.
    // Otherwise every pending notice is the caller's, and the write below reads them itself.
    if (isStrict(ctx)) {
      const any = store.read(() =>
        store.conflicts.notices({ statuses: ["pending"], limit: window, offset: 0 })
          .some((notice) => noticeVisible(ctx, notice))
      );
      if (!any) return [];
    }
    // Marking them delivered needs no disk sync of its own: a power cut that loses the mark
    // delivers the same notices again (they are written without one too, by detection), and
    // the next acknowledged write makes it durable anyway. With a backlog of notices after a
    // large import, the sync was a second one on every response.
    return await store.write(() => {
      const pending = store.conflicts.notices({ statuses: ["pending"], limit: window, offset: 0 })
        .filter((notice) => noticeVisible(ctx, notice)).slice(0, limit);
      if (pending.length === 0) return [];
      store.conflicts.setNoticeStatus(pending.map((n) => n.id), {
        status: "delivered",
        from: ["pending"],
        now: nowIso(),
      });
      return pending.map(presentNotice);
    }, { durable: false });
  } catch {
    // A database that cannot be written still answers; notices wait for the next response.
    return [];
  }
}

/** The `notice` task. */
export async function manageNotices(
  ctx: ServiceContext,
  input: {
    action: "list" | "read" | "dismiss" | "resolve";
    noticeId?: number;
    status?: NoticeStatus;
    limit?: number;
  },
): Promise<Record<string, unknown>> {
  const store = ctx.store;
  if (input.action === "list") {
    const statuses: NoticeStatus[] = input.status ? [input.status] : ["pending", "delivered"];
    const limit = input.limit ?? 50;
    const notices = store.read(() =>
      store.conflicts.notices({
        statuses,
        limit: isStrict(ctx) ? Math.max(limit, STRICT_NOTICE_WINDOW) : limit,
        offset: 0,
      }).filter((notice) => noticeVisible(ctx, notice)).slice(0, limit)
    );
    return { notices: notices.map(presentNotice) };
  }
  if (input.noticeId === undefined) {
    throw new MemaError("invalid_input", `notice_id is required to ${input.action}`, {
      field: "notice_id",
    });
  }
  return await store.write(() => {
    const found = store.conflicts.notice(input.noticeId!);
    const notice = found && noticeVisible(ctx, found) ? found : undefined;
    if (!notice) {
      throw new MemaError("not_found", `notice ${input.noticeId} does not exist`, {
        field: "notice_id",
      });
    }
    if (input.action === "read") return { notice: presentNotice(notice) };
    const status: NoticeStatus = input.action === "dismiss" ? "dismissed" : "resolved";
    store.conflicts.setNoticeStatus([notice.id], { status, now: nowIso() });
    return { notice: presentNotice({ ...notice, status }) };
  });
}
