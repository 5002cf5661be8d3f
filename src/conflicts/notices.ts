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
import type { NoticeRecord, NoticeStatus, Store } from "../store/mod.ts";
import { NOTICES_PER_RESPONSE } from "./constants_pipeline.ts";

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

/** Pending notices for a response, marked delivered. */
export async function takeNotices(
  store: Store,
  limit = NOTICES_PER_RESPONSE,
): Promise<Record<string, unknown>[]> {
  try {
    // Most responses have nothing to deliver: look before taking the write lock.
    const any = store.read(() =>
      store.conflicts.notices({ statuses: ["pending"], limit: 1, offset: 0 })
    );
    if (any.length === 0) return [];
    return await store.write(() => {
      const pending = store.conflicts.notices({ statuses: ["pending"], limit, offset: 0 });
      if (pending.length === 0) return [];
      store.conflicts.setNoticeStatus(pending.map((n) => n.id), {
        status: "delivered",
        from: ["pending"],
        now: nowIso(),
      });
      return pending.map(presentNotice);
    });
  } catch {
    // A database that cannot be written still answers; notices wait for the next response.
    return [];
  }
}

/** The `notice` task. */
export async function manageNotices(
  store: Store,
  input: {
    action: "list" | "read" | "dismiss" | "resolve";
    noticeId?: number;
    status?: NoticeStatus;
    limit?: number;
  },
): Promise<Record<string, unknown>> {
  if (input.action === "list") {
    const statuses: NoticeStatus[] = input.status ? [input.status] : ["pending", "delivered"];
    const notices = store.read(() =>
      store.conflicts.notices({ statuses, limit: input.limit ?? 50, offset: 0 })
    );
    return { notices: notices.map(presentNotice) };
  }
  if (input.noticeId === undefined) {
    throw new MemaError("invalid_input", `notice_id is required to ${input.action}`, {
      field: "notice_id",
    });
  }
  return await store.write(() => {
    const notice = store.conflicts.notice(input.noticeId!);
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
