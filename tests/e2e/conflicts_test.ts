import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { type ServerSession, startServer } from "../helpers/server.ts";

async function remember(server: ServerSession, content: string, subject: string) {
  const response = await server.call("remember", { content, subject, workspace: "acme" });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response;
}

async function detail(server: ServerSession, conflictId: number) {
  const response = await server.callRaw({
    view: "conflict_detail",
    data: { conflict_id: conflictId },
  }, "memory_review");
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response.data;
}

/**
 * The notices announced on the next responses: by default a write does not wait for its
 * conflict check, so a later call carries a one-line summary, and the call it names lists them.
 */
async function laterNotices(server: ServerSession): Promise<Record<string, unknown>[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await server.call("status");
    const summary = response.notices?.[0] as
      | { kind: string; list: { tool: string; task: string; data: unknown } }
      | undefined;
    if (summary) {
      assert.equal(summary.kind, "notice_summary");
      const list = await server.callRaw(
        { task: summary.list.task, data: summary.list.data },
        summary.list.tool,
      );
      return list.data.notices;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return [];
}

onBothBackends(
  "e2e: contradicting facts → notice → judge → apply (a failed step → replan) → resolve",
  async (home) => {
    const server = await startServer(home);
    try {
      const a = await remember(
        server,
        "The v2 release deadline is Friday, March 14.",
        "release deadline",
      );
      const b = await remember(
        server,
        "The v2 release deadline moved to Monday, March 17.",
        "release deadline",
      );
      const idA = a.data.memory_id;
      const idB = b.data.memory_id;
      assert.equal(b.notices, undefined, "by default the write does not wait for the check");
      const notices = await laterNotices(server);
      assert.ok(notices.length > 0, "the verdict rides on a later response");
      const notice = notices[0] as {
        kind: string;
        conflict_id: number;
        memory_ids: number[];
        severity: string;
      };
      assert.deepEqual(notice.memory_ids.sort(), [idA, idB].sort());
      assert.equal(
        notice.severity,
        "info",
        "rules alone (no judge installed) give a grey-zone notice",
      );
      const conflictId = notice.conflict_id;
      const again = await server.call("status");
      assert.equal(again.notices, undefined, "a notice is delivered once");

      const found = await server.call("find", { query: "release deadline" });
      for (const result of found.data.results) {
        assert.deepEqual(result.conflict_signal.conflict_ids, [conflictId]);
      }

      let view = await detail(server, conflictId);
      assert.equal(view.status, "open");
      assert.equal(view.members.length, 2);
      assert.equal(view.suggestion.winner_memory_id, idB);
      assert.match(view.suggestion.explanation, /newer/);
      assert.equal(view.suggestion.chosen_value, "Monday");

      const stale = await server.call("judge", {
        conflict_id: conflictId,
        expected_revision: view.revision + 5,
        chosen_value: "Monday",
      });
      assert.equal(stale.data.error, "version_conflict");
      assert.equal(stale.data.current_revision, view.revision);

      const judged = await server.call("judge", {
        conflict_id: conflictId,
        expected_revision: view.revision,
        chosen_value: "Monday",
        apply_plan: [{ memory_id: idA, action: "update_current_claim" }, {
          memory_id: idB,
          action: "use_as_resolution",
        }],
      });
      assert.equal(judged.data.status, "applying", JSON.stringify(judged.data));
      let revision = judged.data.revision;

      const failed = await server.call("apply_conflict_action", {
        conflict_id: conflictId,
        expected_revision: revision,
        memory_id: idA,
        content: "The v2 release deadline is Tuesday.",
        authorized: true,
      }, "memory_govern");
      assert.equal(failed.data.applied, false);
      assert.equal(failed.data.action_required, "replan_conflict");
      assert.match(failed.data.error, /chosen value/);
      assert.equal(
        (await server.call("read", { memory_id: idA })).data.version,
        1,
        "a failed step writes nothing",
      );
      revision = failed.data.revision;

      const replanned = await server.call("replan_conflict", {
        conflict_id: conflictId,
        expected_revision: revision,
        apply_plan: [{ memory_id: idA, action: "append_superseded_context" }, {
          memory_id: idB,
          action: "use_as_resolution",
        }],
        authorized: true,
      }, "memory_govern");
      assert.equal(replanned.ok, true, JSON.stringify(replanned.data));
      revision = replanned.data.revision;
      for (const memoryId of [idA, idB]) {
        const step = await server.call("apply_conflict_action", {
          conflict_id: conflictId,
          expected_revision: revision,
          memory_id: memoryId,
          authorized: true,
        }, "memory_govern");
        assert.equal(step.data.applied, true, JSON.stringify(step.data));
        revision = step.data.revision;
      }
      view = await detail(server, conflictId);
      assert.equal(view.next.action, "resolve_conflict");
      const early = await server.call("resolve_conflict", {
        conflict_id: conflictId,
        expected_revision: revision - 1,
        authorized: true,
      }, "memory_govern");
      assert.equal(early.data.error, "version_conflict");
      const resolved = await server.call("resolve_conflict", {
        conflict_id: conflictId,
        expected_revision: revision,
        authorized: true,
      }, "memory_govern");
      assert.equal(resolved.data.status, "resolved");

      const old = await server.call("read", { memory_id: idA, include_history: true });
      assert.match(old.data.content, /current value is "Monday"/);
      assert.equal(
        old.data.history.length,
        1,
        "the superseded note is a new version; the old text is kept",
      );
      // The replaced claim stopped holding when the resolution took effect; the holder's holds on.
      assert.ok(old.data.valid_to, JSON.stringify(old.data));
      assert.equal(old.data.no_longer_valid, true);
      assert.equal((await server.call("read", { memory_id: idB })).data.valid_to, undefined);
      const closings = await server.callRaw(
        { view: "audit", data: { memory_id: idA } },
        "memory_review",
      );
      assert.ok(
        closings.data.entries.some((e: { action: string }) => e.action === "close_validity"),
        JSON.stringify(closings.data.entries),
      );
      const after = await server.call("find", { query: "release deadline" });
      assert.ok(
        after.data.results.every((r: { conflict_signal?: unknown }) =>
          r.conflict_signal === undefined
        ),
      );
      const list = await server.callRaw(
        { view: "conflicts", data: { status: "resolved" } },
        "memory_review",
      );
      assert.deepEqual(list.data.conflicts.map((c: { conflict_id: number }) => c.conflict_id), [
        conflictId,
      ]);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends(
  "e2e: a dismissed notice never returns, and not_a_conflict closes a group",
  async (home) => {
    // notice_sync_wait_ms set: the write waits for its verdict and carries the notice.
    const server = await startServer(home, { env: { MEMA_NOTICE_SYNC_WAIT_MS: "3000" } });
    try {
      await remember(server, "The staging database runs PostgreSQL 15.", "staging database");
      const second = await remember(
        server,
        "The staging database was upgraded to PostgreSQL 16.",
        "staging database",
      );
      const notice = second.notices?.[0] as { notice_id: number; conflict_id: number } | undefined;
      assert.ok(notice, JSON.stringify(second));
      const dismissed = await server.repair("notice", {
        action: "dismiss",
        notice_id: notice.notice_id,
      });
      assert.equal(dismissed.data.notice.status, "dismissed");

      // Editing the memory re-runs detection and finds the same pair of rows: no new group or notice.
      const edited = await server.call("update", {
        memory_id: second.data.memory_id,
        new_content: "The staging database was upgraded to PostgreSQL 16. Backups run nightly.",
      });
      assert.equal(edited.ok, true);
      assert.equal(edited.notices, undefined, JSON.stringify(edited.notices));
      const pending = await server.repair("notice", { action: "list" });
      assert.ok(
        !pending.data.notices.some((n: { notice_id: number }) => n.notice_id === notice.notice_id),
      );

      const view = await detail(server, notice.conflict_id);
      const closed = await server.call("judge", {
        conflict_id: notice.conflict_id,
        expected_revision: view.revision,
        verdict: "not_a_conflict",
        reason: "upgrade, both true at their time",
      });
      assert.equal(closed.data.status, "not_a_conflict");
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);
