/**
 * Workspace isolation `none` and `weak`, the recall blacklist, governance
 * (rename, merge, move) and the context resources, over stdio (issue 13).
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { type ServerSession, startServer } from "../helpers/server.ts";

function review(session: ServerSession, view: string, data: Record<string, unknown> = {}) {
  return session.callRaw({ view, data }, "memory_review");
}

function ids(envelope: { data: Record<string, unknown> }): number[] {
  return (envelope.data.results as { memory_id: number }[]).map((r) => r.memory_id);
}

async function remember(session: ServerSession, data: Record<string, unknown>) {
  const stored = await session.call("remember", data);
  assert.equal(stored.ok, true, JSON.stringify(stored.data));
  return stored;
}

onBothBackends(
  "none: unscoped find spans workspaces, a workspace scopes it, a near-miss name gets did_you_mean",
  async (home) => {
    const server = await startServer(home);
    try {
      const alpha = await remember(server, {
        content: "The build cache lives in S3 bucket alpha-cache.",
        subject: "build cache",
        workspace: "alpha",
      });
      assert.equal(alpha.data.write_hints, undefined, "no hints under none for a plain new name");
      const beta = await remember(server, {
        content: "The build cache lives in S3 bucket beta-cache.",
        subject: "build cache",
        workspace: "beta",
      });
      const all = await server.call("find", { query: "build cache bucket" });
      assert.deepEqual(ids(all).sort(), [alpha.data.memory_id, beta.data.memory_id].sort());
      const scoped = await server.call("find", { query: "build cache bucket", workspace: "Alpha" });
      assert.deepEqual(ids(scoped), [alpha.data.memory_id]);

      const typo = await remember(server, {
        content: "Alpha's on-call rotation changes on Mondays.",
        subject: "on-call",
        workspace: "alpah",
      });
      assert.deepEqual(typo.data.write_hints, {
        did_you_mean: { workspace: "alpah", existing: "alpha" },
      });
      // Without a caller workspace, remember must name one.
      const unnamed = await server.call("remember", { content: "x fact", subject: "x" });
      assert.equal(unnamed.data.error, "invalid_input");
      assert.equal(unnamed.data.field, "workspace");
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "recall_blacklist.jsonl leaves a workspace out of unscoped find only",
  async (home) => {
    const server = await startServer(home);
    try {
      const kept = await remember(server, {
        content: "Release notes are drafted in Notion.",
        subject: "release notes",
        workspace: "docs",
      });
      const hidden = await remember(server, {
        content: "Release notes experiment: drafted by a bot.",
        subject: "release notes",
        workspace: "scratch",
      });
      const before = await server.call("find", { query: "release notes drafted" });
      assert.equal(ids(before).length, 2);
      // Beside the database file, which a PostgreSQL library never makes: each server reads its own.
      const dbDir = home.dbPath.replace(/\/[^/]+$/, "");
      Deno.mkdirSync(dbDir, { recursive: true });
      Deno.writeTextFileSync(
        `${dbDir}/recall_blacklist.jsonl`,
        '# left out of unscoped recall\n"Scratch"\n',
      );
      const after = await server.call("find", { query: "release notes drafted" });
      assert.deepEqual(ids(after), [kept.data.memory_id]);
      // Naming the workspace still finds it; reading by id still works.
      const named = await server.call("find", {
        query: "release notes drafted",
        workspace: "scratch",
      });
      assert.ok(ids(named).includes(hidden.data.memory_id as number));
      const read = await server.call("read", { memory_id: hidden.data.memory_id });
      assert.equal(read.ok, true);
      const status = await server.call("status", {});
      assert.deepEqual(status.data.recall_blacklist, ["scratch"]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "weak: the caller's own workspace ranks first among equal matches; a new workspace is flagged",
  async (home) => {
    const setup = await startServer(home);
    let alphaId = 0;
    let betaId = 0;
    try {
      alphaId = (await remember(setup, {
        content: "Standup is at 9:30 in the small room.",
        subject: "standup",
        workspace: "alpha",
      })).data.memory_id as number;
      betaId = (await remember(setup, {
        content: "Standup is at 9:30 in the small room.",
        subject: "standup",
        workspace: "beta",
      })).data.memory_id as number;
    } finally {
      await setup.close();
    }
    for (const [workspace, first] of [["alpha", alphaId], ["beta", betaId]] as const) {
      const server = await startServer(home, {
        env: { MEMA_WORKSPACE_ISOLATION: "weak", MEMA_WORKSPACE: workspace },
      });
      try {
        const found = await server.call("find", { query: "when is standup" });
        assert.deepEqual(ids(found), [first, first === alphaId ? betaId : alphaId], workspace);
      } finally {
        await server.close();
      }
    }
    const weak = await startServer(home, {
      env: { MEMA_WORKSPACE_ISOLATION: "weak", MEMA_WORKSPACE: "alpha" },
    });
    try {
      // remember without a workspace lands in the caller's own.
      const own = await remember(weak, {
        content: "Alpha ships on Thursdays.",
        subject: "ship day",
      });
      assert.equal(own.data.workspace, "alpha");
      assert.equal(own.data.write_hints, undefined);
      const fresh = await remember(weak, {
        content: "Gamma uses Terraform 1.9.",
        subject: "iac",
        workspace: "gamma",
      });
      assert.equal(
        (fresh.data.write_hints as Record<string, unknown>).new_workspace_detected,
        "gamma",
      );
      const notice = (fresh.notices as { kind: string }[] | undefined)?.find((n) =>
        n.kind === "workspace_review"
      );
      assert.ok(notice, JSON.stringify(fresh.notices));
      const second = await remember(weak, {
        content: "Gamma state lives in S3.",
        subject: "iac state",
        workspace: "gamma",
      });
      assert.equal(second.data.write_hints, undefined, "only the first write is flagged");
    } finally {
      await weak.close();
    }
  },
);

onBothBackends(
  "governance: rename redirects old writes, merge folds duplicates, move has a dry run",
  async (home) => {
    const server = await startServer(home);
    try {
      const typo = await remember(server, {
        content: "Alpha uses pnpm.",
        subject: "package manager",
        workspace: "alpah",
      });
      const unapproved = await server.call("rename_workspace", {
        from: "alpah",
        to: "alpha",
        reason: "typo",
      }, "memory_govern");
      assert.equal(unapproved.data.action_required, "ask_user_for_authorization");
      const renamed = await server.call("rename_workspace", {
        from: "alpah",
        to: "alpha",
        reason: "typo",
        authorized: true,
      }, "memory_govern");
      assert.equal(renamed.data.applied, true, JSON.stringify(renamed.data));
      assert.deepEqual(renamed.data.memory_ids, [typo.data.memory_id]);
      const read = await server.call("read", { memory_id: typo.data.memory_id });
      assert.equal(read.data.workspace, "alpha");
      assert.deepEqual(
        ids(await server.call("find", { query: "pnpm", workspace: "alpha", workspace_only: true })),
        [typo.data.memory_id],
      );
      // A client still configured with the old name writes into the new one.
      const late = await remember(server, {
        content: "Alpha lints with Biome.",
        subject: "linter",
        workspace: "alpah",
      });
      assert.equal(late.data.workspace, "alpha");
      assert.deepEqual((late.data.write_hints as Record<string, unknown>).redirected, {
        from: "alpah",
        to: "alpha",
      });

      // Merge: the same fact in both workspaces ends as one active memory.
      const twin = await remember(server, {
        content: "Alpha uses pnpm.",
        subject: "package manager",
        workspace: "alpha-web",
      });
      const other = await remember(server, {
        content: "Alpha web deploys with Vercel.",
        subject: "deploys",
        workspace: "alpha-web",
      });
      const merged = await server.call("merge_workspaces", {
        from: "alpha-web",
        into: "alpha",
        reason: "one project",
        authorized: true,
      }, "memory_govern");
      assert.equal(merged.data.moved, 2);
      assert.deepEqual(merged.data.superseded_by_twin, [{
        memory_id: twin.data.memory_id,
        twin_id: typo.data.memory_id,
      }]);
      const pnpm = await server.call("find", { query: "pnpm" });
      assert.deepEqual(ids(pnpm), [typo.data.memory_id]);

      // Move: a dry run lists and changes nothing; the real move is audited.
      const dry = await server.call("move_memories", {
        memory_ids: [other.data.memory_id],
        to: "web",
        dry_run: true,
      }, "memory_govern");
      assert.equal(dry.data.applied, false);
      assert.deepEqual(
        (dry.data.would_move as { memory_id: number }[]).map((m) => m.memory_id),
        [other.data.memory_id],
      );
      assert.equal(
        (await server.call("read", { memory_id: other.data.memory_id })).data.workspace,
        "alpha",
      );
      const moved = await server.call("move_memories", {
        memory_ids: [other.data.memory_id],
        to: "web",
        reason: "belongs to the web team",
        authorized: true,
      }, "memory_govern");
      assert.deepEqual(moved.data.moved, [other.data.memory_id]);
      assert.equal(
        (await server.call("read", { memory_id: other.data.memory_id })).data.workspace,
        "web",
      );
      const audit = await review(server, "audit", { memory_id: other.data.memory_id });
      const actions = (audit.data.entries as { action: string }[]).map((e) => e.action);
      assert.ok(actions.includes("move_memories"), JSON.stringify(actions));

      const view = await review(server, "workspaces");
      const states = Object.fromEntries(
        (view.data.workspaces as { workspace: string; state: string }[]).map((
          w,
        ) => [w.workspace, w.state]),
      );
      assert.equal(states.alpah, "redirect");
      assert.equal(states["alpha-web"], "redirect");
      assert.equal(states.alpha, "active");
      assert.equal(states.web, "active");
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "resources: current-context is a budgeted digest of the caller's workspace",
  async (home) => {
    const server = await startServer(home, { env: { MEMA_WORKSPACE: "alpha" } });
    try {
      const locked = await remember(server, {
        content: "Never deploy on Fridays.",
        subject: "deploy rule",
        protection_level: "locked",
      });
      const todo = await remember(server, {
        content: "Rotate the staging API keys.",
        subject: "rotate keys",
        tags: ["todo"],
      });
      for (let i = 0; i < 120; i++) {
        await remember(server, {
          content: `Meeting note ${i}: ${
            "the team discussed the roadmap and the hiring plan. ".repeat(3)
          }`,
          subject: `note ${i}`,
        });
      }
      const elsewhere = await remember(server, {
        content: "Beta's secret plan.",
        subject: "beta",
        workspace: "beta",
      });
      const listed = await server.client.listResources();
      const uris = listed.resources.map((r) => r.uri);
      assert.ok(uris.includes("memory://current-context"), JSON.stringify(uris));
      assert.ok(uris.includes("memory://workspace/beta"));
      const templates = await server.client.listResourceTemplates();
      assert.equal(templates.resourceTemplates[0].uriTemplate, "memory://workspace/{name}");

      const read = await server.client.readResource({ uri: "memory://current-context" });
      const content = read.contents[0] as { text: string; _meta: Record<string, unknown> };
      const text = content.text;
      assert.match(text, /workspace "alpha"/);
      assert.ok(
        text.indexOf(`[${locked.data.memory_id}]`) < text.indexOf(`[${todo.data.memory_id}]`),
      );
      assert.ok(text.includes(`[${todo.data.memory_id}]`));
      assert.ok(!text.includes(`[${elsewhere.data.memory_id}]`), "another workspace stays out");
      assert.ok((content._meta.tokens_estimate as number) <= 2000);
      assert.ok((content._meta.omitted as number) > 0, "the budget left notes out");
      assert.match(text, /left out for the 2000-token budget/);

      const small = await server.client.readResource({
        uri: "memory://current-context?tokens=300",
      });
      const smallMeta = (small.contents[0] as { _meta: Record<string, number> })._meta;
      assert.ok(smallMeta.tokens_estimate <= 300);
      const beta = await server.client.readResource({ uri: "memory://workspace/beta" });
      assert.match((beta.contents[0] as { text: string }).text, /Beta's secret plan/);
      await assert.rejects(() => server.client.readResource({ uri: "memory://nothing" }));
    } finally {
      await server.close();
    }
  },
);
