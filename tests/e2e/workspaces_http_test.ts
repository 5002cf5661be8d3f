/**
 * Workspaces over streamable HTTP: each request names its workspace in
 * `X-Mema-Workspace`; under strict isolation two callers on one server and one
 * database stay apart (issue 13).
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import {
  connectHttp,
  type HttpSession,
  identityHeaders,
  postRaw,
  startHttpServer,
  toolCallFrame,
} from "../helpers/http_server.ts";
import {} from "../helpers/server.ts";
import { rememberConfirmed } from "../helpers/workspaces.ts";

function headers(agent: string, workspace: string): Record<string, string> {
  return { ...identityHeaders("http-ws", agent), "X-Mema-Workspace": workspace };
}

onBothBackends(
  "http strict: two callers in different workspaces on one server stay apart",
  async (home) => {
    const server = await startHttpServer(home, { env: { MEMA_WORKSPACE_ISOLATION: "strict" } });
    const alpha = await connectHttp(server.url, headers("alpha-agent", "Alpha"));
    const beta = await connectHttp(server.url, headers("beta-agent", "beta"));
    try {
      const alphaId = await rememberConfirmed(alpha, {
        content: "Alpha's payment provider is Stripe.",
        subject: "payments",
      });
      const betaId = await rememberConfirmed(beta, {
        content: "Beta's payment provider is Adyen.",
        subject: "payments",
      });
      const alphaFind = await alpha.call("find", { query: "payment provider" });
      assert.deepEqual(
        (alphaFind.data.results as { memory_id: number }[]).map((r) => r.memory_id),
        [alphaId],
      );
      const betaFind = await beta.call("find", { query: "payment provider" });
      assert.deepEqual(
        (betaFind.data.results as { memory_id: number }[]).map((r) => r.memory_id),
        [betaId],
      );
      assert.equal((await alpha.call("read", { memory_id: betaId })).data.error, "not_found");
      assert.equal((await beta.call("read", { memory_id: alphaId })).data.error, "not_found");
      const foreign = await alpha.call("remember", {
        content: "Alpha writes into beta.",
        subject: "intrusion",
        workspace: "beta",
      });
      assert.equal(foreign.data.error, "invalid_input");
      const status = await beta.call("status", {});
      assert.equal(status.data.workspace, "beta");
      const digest = await alpha.client.readResource({ uri: "memory://current-context" });
      const text = (digest.contents[0] as { text: string }).text;
      assert.match(text, /Stripe/);
      assert.doesNotMatch(text, /Adyen/);
      await assert.rejects(() => alpha.client.readResource({ uri: "memory://workspace/beta" }));
    } finally {
      await alpha.close();
      await beta.close();
      await server.stop();
    }
  },
);

onBothBackends(
  "http: X-Mema-Workspace follows the identity header rules; strict without one is refused",
  async (home) => {
    const strict = await startHttpServer(home, { env: { MEMA_WORKSPACE_ISOLATION: "strict" } });
    try {
      const frame = toolCallFrame(1, { action: "status", data: {} });
      const missing = await postRaw(strict.url, frame, identityHeaders("c", "a"));
      assert.equal(missing.status, 400);
      assert.match(missing.text, /X-Mema-Workspace/);
      const bad = await postRaw(strict.url, frame, {
        ...identityHeaders("c", "a"),
        "X-Mema-Workspace": "no spaces allowed",
      });
      assert.equal(bad.status, 400);
      const good = await postRaw(strict.url, frame, {
        ...identityHeaders("c", "a"),
        "X-Mema-Workspace": "alpha",
      });
      assert.equal(good.status, 200, good.text);
    } finally {
      await strict.stop();
    }
    // A server with a configured workspace gives it to callers that send none.
    const configured = await startHttpServer(home, {
      env: { MEMA_WORKSPACE_ISOLATION: "strict", MEMA_WORKSPACE: "gamma" },
    });
    const session = await connectHttp(configured.url, identityHeaders("c", "a"));
    try {
      const status = await session.call("status", {});
      assert.equal(status.data.workspace, "gamma");
    } finally {
      await session.close();
      await configured.stop();
    }
  },
);

onBothBackends(
  "http none and weak: the same two callers see every workspace; weak orders their own first",
  async (home) => {
    for (const mode of ["none", "weak"] as const) {
      const server = await startHttpServer(home, { env: { MEMA_WORKSPACE_ISOLATION: mode } });
      const alpha = await connectHttp(server.url, headers("alpha-agent", "alpha"));
      const beta = await connectHttp(server.url, headers("beta-agent", "beta"));
      try {
        const stored = [];
        for (const session of [alpha, beta]) {
          // remember without a workspace lands in the caller's own; the same text may live in both.
          const result = await session.call("remember", {
            content: "Code freeze starts on the 20th.",
            subject: "code freeze",
          });
          assert.equal(result.ok, true, JSON.stringify(result.data));
          stored.push(result.data.memory_id as number);
        }
        const [alphaId, betaId] = stored;
        const order = async (session: HttpSession) =>
          ((await session.call("find", { query: "when does the code freeze start" })).data
            .results as { memory_id: number }[]).map((r) => r.memory_id);
        const seenByAlpha = await order(alpha);
        const seenByBeta = await order(beta);
        assert.deepEqual([...seenByAlpha].sort(), [alphaId, betaId].sort(), mode);
        if (mode === "weak") {
          assert.equal(seenByAlpha[0], alphaId);
          assert.equal(seenByBeta[0], betaId);
        } else {
          assert.deepEqual(seenByAlpha, seenByBeta, "no nudge without weak isolation");
        }
        // Either caller may read the other's fact: no access control below strict.
        assert.equal((await alpha.call("read", { memory_id: betaId })).ok, true);
        await alpha.call("retire", {
          memory_id: alphaId,
          reason: "reset for the next mode",
          authorized: true,
        }, "memory_govern");
        await beta.call("retire", {
          memory_id: betaId,
          reason: "reset for the next mode",
          authorized: true,
        }, "memory_govern");
      } finally {
        await alpha.close();
        await beta.close();
        await server.stop();
      }
    }
  },
);
