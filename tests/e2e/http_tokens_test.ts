/**
 * Per-caller HTTP tokens through the real server and the MCP SDK client: a token is bound to an
 * identity and its workspaces, identity headers cannot widen it, the token file is re-read
 * without a restart, and refusals land in the audit view without the token.
 */
import assert from "node:assert/strict";
import { libraryHolds, onBothBackends } from "../helpers/e2e_backends.ts";
import { sha256Hex } from "../../src/http/access_tokens.ts";
import {
  connectHttp,
  envelopeOf,
  type HttpSession,
  postRaw,
  startHttpServer,
  toolCallFrame,
} from "../helpers/http_server.ts";
import { makeTempHome, runCli, type TempHome } from "../helpers/server.ts";
import { rememberConfirmed } from "../helpers/workspaces.ts";

/** A token as a test writes it into the file by hand (the CLI is tested on its own below). */
interface TestToken {
  name: string;
  secret: string;
  client: string;
  agentId: string;
  workspaces: string[] | "*";
}

function tokensPath(home: TempHome): string {
  return `${home.dir}/data/mema/http_tokens.json`;
}

async function writeTokens(home: TempHome, tokens: TestToken[]): Promise<void> {
  Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
  const records = await Promise.all(tokens.map(async (token) => ({
    name: token.name,
    sha256: await sha256Hex(token.secret),
    client: token.client,
    agent_id: token.agentId,
    workspaces: token.workspaces,
    created_at: "2026-12-04T00:00:00.000Z",
  })));
  Deno.writeTextFileSync(
    tokensPath(home),
    JSON.stringify({ format: "mema-http-tokens/1", tokens: records }),
  );
}

const ALPHA: TestToken = {
  name: "alpha-bot",
  secret: `mema_alpha_${"a".repeat(40)}`,
  client: "team",
  agentId: "alpha-agent",
  workspaces: ["alpha"],
};
const BETA: TestToken = {
  name: "beta-bot",
  secret: `mema_beta_${"b".repeat(40)}`,
  client: "team",
  agentId: "beta-agent",
  workspaces: ["beta"],
};
const ADMIN: TestToken = {
  name: "admin",
  secret: `mema_admin_${"c".repeat(40)}`,
  client: "ops",
  agentId: "ops-admin",
  workspaces: "*",
};

function bearer(token: TestToken, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token.secret}`, ...extra };
}

function resultIds(envelope: { data: { results?: { memory_id: number }[] } }): number[] {
  return (envelope.data.results ?? []).map((result) => result.memory_id).sort();
}

async function auditRefusals(session: HttpSession) {
  const result = await session.client.callTool({
    name: "memory_review",
    arguments: { view: "audit", data: { action: "http_access_refused" } },
  });
  const envelope = envelopeOf(result as Record<string, unknown>);
  assert.equal(envelope.ok, true, JSON.stringify(envelope.data));
  return envelope.data.entries as {
    agent_id: string;
    client: string;
    reason: string;
    memory_id: number | null;
    detail: Record<string, unknown>;
  }[];
}

onBothBackends(
  "http tokens: the reproduction, strict + X-Mema-Workspace: beta, no longer reads beta",
  async (home) => {
    await writeTokens(home, [ALPHA, BETA]);
    const server = await startHttpServer(home, { env: { MEMA_WORKSPACE_ISOLATION: "strict" } });
    // Every header a header-trusting server wants, so the only thing that can stop it is the token.
    const full = (token: TestToken, workspace: string) =>
      bearer(token, {
        "X-Mema-Client": token.client,
        "X-Mema-Agent-Id": token.agentId,
        "X-Mema-Workspace": workspace,
      });
    const beta = await connectHttp(server.url, full(BETA, "beta"));
    try {
      await rememberConfirmed(beta, {
        content: "Beta's payment provider is Adyen.",
        subject: "payments",
      });
      const intrusion = await postRaw(
        server.url,
        toolCallFrame(1, { action: "find", data: { query: "payment provider" } }),
        full(ALPHA, "beta"),
      );
      assert.doesNotMatch(intrusion.text, /Adyen/);
      assert.equal(intrusion.status, 403, intrusion.text);
    } finally {
      await beta.close();
      await server.stop();
    }
  },
);

for (const isolation of ["strict", "none"] as const) {
  onBothBackends(
    `http tokens (${isolation} server): a token for alpha cannot read or write beta, whatever its headers say`,
    async (home) => {
      await writeTokens(home, [ALPHA, BETA]);
      const server = await startHttpServer(home, { env: { MEMA_WORKSPACE_ISOLATION: isolation } });
      const alpha = await connectHttp(server.url, bearer(ALPHA));
      const beta = await connectHttp(server.url, bearer(BETA));
      // The reproduction: the alpha token sending the workspace header of beta.
      const intruder = bearer(ALPHA, { "X-Mema-Workspace": "beta" });
      try {
        const alphaId = await rememberConfirmed(alpha, {
          content: "Alpha's payment provider is Stripe.",
          subject: "payments",
        });
        const betaId = await rememberConfirmed(beta, {
          content: "Beta's payment provider is Adyen.",
          subject: "payments",
        });

        const refused = await postRaw(
          server.url,
          toolCallFrame(1, { action: "find", data: { query: "payment provider" } }),
          intruder,
        );
        assert.equal(refused.status, 403, refused.text);
        assert.match(JSON.parse(refused.text).error.message, /may not use workspace "beta"/);
        assert.doesNotMatch(refused.text, /Adyen/);
        await assert.rejects(() => connectHttp(server.url, intruder));

        // Unscoped find, a find naming beta, a read of beta's id, beta's resource: all closed.
        assert.deepEqual(resultIds(await alpha.call("find", { query: "payment provider" })), [
          alphaId,
        ]);
        const named = await alpha.call("find", { query: "payment provider", workspace: "beta" });
        assert.equal(named.data.error, "invalid_input");
        assert.equal((await alpha.call("read", { memory_id: betaId })).data.error, "not_found");
        await assert.rejects(() => alpha.client.readResource({ uri: "memory://workspace/beta" }));
        const digest = await alpha.client.readResource({ uri: "memory://current-context" });
        assert.doesNotMatch((digest.contents[0] as { text: string }).text, /Adyen/);
        const listed = await alpha.client.listResources();
        assert.doesNotMatch(JSON.stringify(listed), /beta/, "beta's name is not even listed");
        const workspaces = envelopeOf(
          await alpha.client.callTool({
            name: "memory_review",
            arguments: { view: "workspaces", data: {} },
          }) as Record<string, unknown>,
        );
        assert.equal(workspaces.ok, true, JSON.stringify(workspaces.data));
        assert.doesNotMatch(JSON.stringify(workspaces.data), /beta/);
        const foreign = await alpha.call("remember", {
          content: "Alpha writes into beta.",
          subject: "intrusion",
          workspace: "beta",
        });
        assert.equal(foreign.data.error, "invalid_input");

        // Identity comes from the token: no identity headers needed, and the writes carry it.
        const read = await alpha.call("read", { memory_id: alphaId });
        assert.equal(read.data.agent_id, "alpha-agent");
        const status = await alpha.call("status", {});
        assert.deepEqual(status.data.identity, { client: "team", agent_id: "alpha-agent" });
        assert.equal(status.data.workspace, "alpha");

        // Headers naming the token's own identity and workspace are fine; any other is refused.
        const agreeing = await connectHttp(
          server.url,
          bearer(ALPHA, {
            "X-Mema-Client": "team",
            "X-Mema-Agent-Id": "alpha-agent",
            "X-Mema-Workspace": "Alpha",
          }),
        );
        assert.deepEqual(resultIds(await agreeing.call("find", { query: "payment provider" })), [
          alphaId,
        ]);
        await agreeing.close();
        const claims: Record<string, string>[] = [
          { "X-Mema-Agent-Id": "beta-agent" },
          { "X-Mema-Client": "ops" },
        ];
        for (const claim of claims) {
          const mismatch = await postRaw(
            server.url,
            toolCallFrame(2, { action: "status", data: {} }),
            bearer(ALPHA, claim),
          );
          assert.equal(mismatch.status, 403, JSON.stringify(claim));
          assert.match(mismatch.text, /acts as team\/alpha-agent/);
        }
        const noToken = await postRaw(
          server.url,
          toolCallFrame(3, { action: "find", data: { query: "payment provider" } }),
          { "X-Mema-Client": "team", "X-Mema-Agent-Id": "beta-agent", "X-Mema-Workspace": "beta" },
        );
        assert.equal(noToken.status, 401);
        assert.equal(noToken.headers.get("www-authenticate"), 'Bearer realm="mema"');
      } finally {
        await alpha.close();
        await beta.close();
        await server.stop();
      }
    },
  );
}

Deno.test("http tokens: a token for several workspaces needs the header, and gets only those", async () => {
  const home = makeTempHome();
  const both: TestToken = { ...ALPHA, name: "both", workspaces: ["alpha", "gamma"] };
  await writeTokens(home, [both]);
  const server = await startHttpServer(home);
  try {
    const bare = await postRaw(server.url, toolCallFrame(1, { action: "status", data: {} }), {
      ...bearer(both),
    });
    assert.equal(bare.status, 400);
    assert.match(bare.text, /X-Mema-Workspace header is required.*alpha, gamma/);
    const gamma = await connectHttp(server.url, bearer(both, { "X-Mema-Workspace": "gamma" }));
    assert.equal((await gamma.call("status", {})).data.workspace, "gamma");
    await gamma.close();
    const other = await postRaw(server.url, toolCallFrame(2, { action: "status", data: {} }), {
      ...bearer(both, { "X-Mema-Workspace": "delta" }),
    });
    assert.equal(other.status, 403);
  } finally {
    await server.stop();
    home.cleanup();
  }
});

Deno.test("http tokens: added and revoked with `mema token` while the server runs, no restart", async () => {
  const home = makeTempHome();
  const server = await startHttpServer(home);
  const statusFrame = toolCallFrame(1, { action: "status", data: {} });
  try {
    // No token file: today's loopback behaviour, identity from the headers.
    const open = await postRaw(server.url, statusFrame, {
      "X-Mema-Client": "local",
      "X-Mema-Agent-Id": "local-agent",
    });
    assert.equal(open.status, 200, open.text);

    const added = await runCli(home, [
      "token",
      "add",
      "--client",
      "ci",
      "--agent-id",
      "ci-bot",
      "--workspace",
      "alpha",
      "--name",
      "ci",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const secret = added.stdout.trim();
    assert.match(secret, /^mema_[A-Za-z0-9_-]{43}$/);
    const stored = Deno.readTextFileSync(tokensPath(home));
    assert.ok(!stored.includes(secret), "the file keeps only the hash");
    assert.ok(stored.includes(await sha256Hex(secret)));

    // The added token works at once; headers alone no longer do.
    const ci = await connectHttp(server.url, { authorization: `Bearer ${secret}` });
    const status = await ci.call("status", {});
    assert.deepEqual(status.data.identity, { client: "ci", agent_id: "ci-bot" });
    await ci.close();
    const headersOnly = await postRaw(server.url, statusFrame, {
      "X-Mema-Client": "local",
      "X-Mema-Agent-Id": "local-agent",
    });
    assert.equal(headersOnly.status, 401);

    const list = await runCli(home, ["token", "list", "--json"]);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(!list.stdout.includes(secret));
    assert.deepEqual(JSON.parse(list.stdout).tokens.map((t: { name: string }) => t.name), ["ci"]);

    const second = await runCli(home, [
      "token",
      "add",
      "--client",
      "ci",
      "--agent-id",
      "ci-bot-2",
      "--workspace",
      "alpha",
    ]);
    assert.equal(second.code, 0, second.stderr);
    const revoked = await runCli(home, ["token", "revoke", "ci"]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const gone = await postRaw(server.url, statusFrame, { authorization: `Bearer ${secret}` });
    assert.equal(gone.status, 401, "a revoked token stops working on the next request");
    const kept = await postRaw(server.url, statusFrame, {
      authorization: `Bearer ${second.stdout.trim()}`,
    });
    assert.equal(kept.status, 200, kept.text);

    // Deleting the file while the server runs does not fall back to trusting headers.
    Deno.removeSync(tokensPath(home));
    const afterDelete = await postRaw(server.url, statusFrame, {
      "X-Mema-Client": "local",
      "X-Mema-Agent-Id": "local-agent",
    });
    assert.equal(afterDelete.status, 401);

    assert.equal((await runCli(home, ["token", "revoke", "ci"])).code, 1);
    assert.equal((await runCli(home, ["token", "add", "--client", "ci"])).code, 2);
    assert.equal(
      (await runCli(home, [
        "token",
        "add",
        "--client",
        "ci",
        "--agent-id",
        "x",
        "--workspace",
        "a",
        "--any-workspace",
      ])).code,
      2,
    );
  } finally {
    await server.stop();
    home.cleanup();
  }
});

onBothBackends(
  "http tokens: refused requests appear in the audit view, coalesced, never with the token",
  async (home, backend) => {
    await writeTokens(home, [ALPHA, ADMIN]);
    const server = await startHttpServer(home);
    const frame = toolCallFrame(1, { action: "status", data: {} });
    const guessed = `mema_guess_${"z".repeat(40)}`;
    try {
      for (let i = 0; i < 5; i++) {
        const unknown = await postRaw(server.url, frame, { authorization: `Bearer ${guessed}` });
        assert.equal(unknown.status, 401);
      }
      const wrongWorkspace = await postRaw(server.url, frame, {
        ...bearer(ALPHA, { "X-Mema-Workspace": "beta" }),
      });
      assert.equal(wrongWorkspace.status, 403);
      const wrongAgent = await postRaw(server.url, frame, {
        ...bearer(ALPHA, { "X-Mema-Agent-Id": "ops-admin" }),
      });
      assert.equal(wrongAgent.status, 403);

      const admin = await connectHttp(server.url, bearer(ADMIN));
      const entries = await auditRefusals(admin);
      await admin.close();
      const byKind = new Map(entries.map((entry) => [entry.detail.kind, entry]));
      assert.equal(entries.length, 3, JSON.stringify(entries));
      const unknown = byKind.get("unknown_token")!;
      assert.equal(unknown.detail.count, 5, "five repeats in a minute are one row");
      assert.equal(unknown.agent_id, "unknown");
      const workspace = byKind.get("workspace_not_allowed")!;
      assert.equal(workspace.agent_id, "alpha-agent");
      assert.equal(workspace.detail.token, "alpha-bot");
      assert.equal(workspace.detail.workspace, "beta");
      assert.match(workspace.reason, /may not use workspace "beta"/);
      const identity = byKind.get("identity_mismatch")!;
      assert.equal(identity.detail.claimed_agent_id, "ops-admin");
      for (const entry of entries) {
        assert.equal(entry.memory_id, null);
        assert.equal(entry.detail.peer, "127.0.0.1");
      }
      const everything = JSON.stringify(entries);
      for (const secret of [guessed, ALPHA.secret, ADMIN.secret]) {
        assert.ok(!everything.includes(secret), "no token in the audit trail");
      }

      // A caller limited to a workspace does not see the server's refusal log.
      const alpha = await connectHttp(server.url, bearer(ALPHA));
      assert.deepEqual(await auditRefusals(alpha), []);
      await alpha.close();
    } finally {
      await server.stop();
    }
    assert.ok(!await libraryHolds(home, backend, guessed), "no token in the database");
  },
);
