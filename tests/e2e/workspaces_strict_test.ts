/**
 * Strict workspace isolation over stdio: two callers in different workspaces
 * on one database see and change only their own workspace (issue 13).
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { runCli, type ServerSession, startServer, type TempHome } from "../helpers/server.ts";
import { rememberConfirmed } from "../helpers/workspaces.ts";

function review(session: ServerSession, view: string, data: Record<string, unknown> = {}) {
  return session.callRaw({ view, data }, "memory_review");
}

function strictServer(home: TempHome, workspace: string): Promise<ServerSession> {
  return startServer(home, {
    env: { MEMA_WORKSPACE_ISOLATION: "strict", MEMA_WORKSPACE: workspace },
  });
}

onBothBackends(
  "strict isolation: a new workspace waits for confirmation and nothing is stored until then",
  async (home) => {
    const alpha = await strictServer(home, "Alpha");
    try {
      const first = await alpha.call("remember", {
        content: "Deploys to alpha run on Tuesdays.",
        subject: "deploy day",
      });
      assert.equal(first.ok, true);
      assert.equal(first.data.action_required, "confirm_new_workspace");
      assert.equal(first.data.stored, false);
      assert.equal(first.data.workspace, "alpha");
      // Nothing was stored, and the pending workspace shows in the workspaces view.
      const found = await alpha.call("find", { query: "deploys tuesdays" });
      assert.equal((found.data.results as unknown[]).length, 0);
      const view = await review(alpha, "workspaces", {});
      assert.deepEqual(view.data.pending, ["alpha"]);

      // Confirming needs the user's approval.
      const unapproved = await alpha.call("confirm_pending_workspace", {
        workspace: "alpha",
      }, "memory_govern");
      assert.equal(unapproved.data.action_required, "ask_user_for_authorization");
      const again = await alpha.call("remember", {
        content: "Deploys to alpha run on Tuesdays.",
        subject: "deploy day",
      });
      assert.equal(again.data.action_required, "confirm_new_workspace");

      const id = await rememberConfirmed(alpha, {
        content: "Deploys to alpha run on Tuesdays.",
        subject: "deploy day",
      });
      const read = await alpha.call("read", { memory_id: id });
      assert.equal(read.data.content, "Deploys to alpha run on Tuesdays.");
      const audit = await review(alpha, "audit", { action: "confirm_pending_workspace" });
      // The confirmation is audited (rows about workspaces carry no memory id).
      assert.ok(audit.ok);
    } finally {
      await alpha.close();
    }
  },
);

onBothBackends(
  "strict isolation: two callers on one database never see or change each other's facts",
  async (home) => {
    // A caller without isolation puts a fact in the default pool and two facts in beta first.
    const open = await startServer(home);
    let betaIds: number[] = [];
    let defaultId = 0;
    try {
      defaultId = (await open.call("remember", {
        content: "The company wiki lives at wiki.example.com.",
        subject: "wiki",
        workspace: "default",
      })).data.memory_id as number;
    } finally {
      await open.close();
    }
    const alpha = await strictServer(home, "alpha");
    const beta = await strictServer(home, "beta");
    try {
      const alphaId = await rememberConfirmed(alpha, {
        content: "The alpha database is PostgreSQL 16.",
        subject: "alpha database",
        tags: ["db"],
      });
      betaIds = [
        await rememberConfirmed(beta, {
          content: "The beta database is MySQL 8.",
          subject: "beta database",
          tags: ["db"],
        }),
        await rememberConfirmed(beta, {
          content: "The beta database is MariaDB 11.",
          subject: "beta database",
          tags: ["db"],
        }),
      ];
      const betaId = betaIds[0];

      // find: only the caller's own workspace, and not the default pool either.
      const alphaFind = await alpha.call("find", { query: "database wiki" });
      const alphaHits = (alphaFind.data.results as { memory_id: number }[]).map((r) => r.memory_id);
      assert.deepEqual(alphaHits, [alphaId]);
      const betaFind = await beta.call("find", { query: "database" });
      const betaHits = (betaFind.data.results as { memory_id: number }[]).map((r) => r.memory_id);
      assert.deepEqual(betaHits.sort(), [...betaIds].sort());
      const browse = await alpha.call("find", {});
      assert.deepEqual(
        (browse.data.results as { memory_id: number }[]).map((r) => r.memory_id),
        [alphaId],
      );
      const batch = await alpha.call("batch_find", {
        queries: [{ id: "q", query: "MySQL beta database" }],
      });
      assert.ok(
        (batch.data.results as { memory_id: number }[]).every((r) => r.memory_id === alphaId),
      );

      // Naming another workspace is refused; reading, updating or reviewing its facts is not_found.
      const scoped = await alpha.call("find", { query: "database", workspace: "beta" });
      assert.equal(scoped.ok, false);
      assert.equal(scoped.data.error, "invalid_input");
      for (const id of [betaId, defaultId]) {
        const read = await alpha.call("read", { memory_id: id });
        assert.equal(read.data.error, "not_found", `read ${id}`);
        const history = await review(alpha, "history", { memory_id: id });
        assert.equal(history.data.error, "not_found");
        const update = await alpha.call("update", {
          memory_id: id,
          new_content: "overwritten by alpha",
          reason: "test",
        });
        assert.equal(update.data.error, "not_found");
        const retire = await alpha.call("retire", {
          memory_id: id,
          reason: "test",
          authorized: true,
        }, "memory_govern");
        assert.equal(retire.data.error, "not_found");
      }
      const batchRead = await alpha.call("batch_read", { memory_ids: [alphaId, betaId] });
      const entries = batchRead.data.memories as {
        memory_id: number;
        ok?: boolean;
        error?: string;
      }[];
      assert.equal(entries.find((e) => e.memory_id === betaId)?.error, "not_found");
      assert.equal(entries.find((e) => e.memory_id === alphaId)?.error, undefined);

      // Writing into another workspace is invalid_input and stores nothing.
      const foreign = await alpha.call("remember", {
        content: "Alpha writes into beta.",
        subject: "intrusion",
        workspace: "beta",
      });
      assert.equal(foreign.data.error, "invalid_input");
      assert.equal(foreign.data.field, "workspace");
      const betaAfter = await beta.call("find", { query: "intrusion alpha writes" });
      assert.equal((betaAfter.data.results as unknown[]).length, 0);

      // A conflict inside beta is beta's alone.
      const recorded = await beta.repair("record_conflict", {
        memory_ids: betaIds,
        reason: "two database engines",
      });
      assert.equal(recorded.ok, true, JSON.stringify(recorded));
      const conflictId = recorded.data.conflict_id as number;
      // (The background check may have opened its own conflict over the same pair.)
      const betaConflicts = await review(beta, "conflicts", {});
      const betaConflictIds = (betaConflicts.data.conflicts as { conflict_id: number }[]).map((c) =>
        c.conflict_id
      );
      assert.ok(betaConflictIds.includes(conflictId), JSON.stringify(betaConflicts.data));
      const alphaConflicts = await review(alpha, "conflicts", {});
      assert.equal((alphaConflicts.data.conflicts as unknown[]).length, 0);
      const detail = await review(alpha, "conflict_detail", { conflict_id: conflictId });
      assert.equal(detail.data.error, "not_found");
      const judge = await alpha.call("judge", { conflict_id: conflictId, expected_revision: 1 });
      assert.equal(judge.data.error, "not_found");

      // Views count the caller's own workspace only.
      const overview = await review(alpha, "overview", {});
      const byWorkspace = (overview.data.memories as { by_workspace: Record<string, number> })
        .by_workspace;
      assert.deepEqual(byWorkspace, { alpha: 1 });
      const workspaces = await review(alpha, "workspaces", {});
      assert.deepEqual(
        (workspaces.data.workspaces as { workspace: string }[]).map((w) => w.workspace),
        ["alpha"],
      );
      const status = await alpha.call("status", {});
      assert.equal(status.data.workspace, "alpha");
      assert.equal(status.data.workspace_isolation, "strict");
      assert.equal((status.data.memories as Record<string, number>).active, 1);
    } finally {
      await alpha.close();
      await beta.close();
    }
  },
);

onBothBackends(
  "strict isolation without a caller workspace refuses to start and says how to fix it",
  async (home) => {
    const result = await runCli(home, ["serve", "--client", "c", "--agent-id", "a"], {
      MEMA_WORKSPACE_ISOLATION: "strict",
    });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /strict/);
    assert.match(result.stderr, /MEMA_WORKSPACE|--workspace/);
  },
);
