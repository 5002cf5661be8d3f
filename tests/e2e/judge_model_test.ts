/**
 * The NLI judge end to end: the tiny random-weight classifier fixture is
 * installed through `mema setup --install` from a local HTTP server, selected
 * as judge_model, and its verdicts (forced by thresholds, since its weights are
 * random) decide the severity of write-time conflict notices.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { createHash } from "node:crypto";
import { makeTempHome, ROOT, runCli, startServer } from "../helpers/server.ts";

const FIXTURE = `${ROOT}/tests/fixtures/models/tiny-nli`;
const FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];

onBothBackends(
  "an installed NLI judge decides conflict notices and is recorded with the verdict",
  async (home) => {
    const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      const path = new URL(request.url).pathname.slice(1);
      return FILES.includes(path)
        ? new Response(Deno.readFileSync(`${FIXTURE}/${path}`))
        : new Response("missing", { status: 404 });
    });
    try {
      const bundled = JSON.parse(Deno.readTextFileSync(`${ROOT}/models.manifest.json`));
      const manifest = `${home.dir}/manifest.json`;
      Deno.writeTextFileSync(
        manifest,
        JSON.stringify({
          schema_version: 1,
          models: [...bundled.models, {
            id: "tiny-nli",
            task: "nli",
            description: "random-weight NLI fixture",
            license: "MIT",
            labels: [
              { name: "contradiction", verdict: "conflict" },
              { name: "entailment", verdict: "no_conflict" },
              { name: "neutral", verdict: "possible_conflict" },
            ],
            files: FILES.map((path) => {
              const bytes = Deno.readFileSync(`${FIXTURE}/${path}`);
              return {
                path,
                url: `http://127.0.0.1:${http.addr.port}/${path}`,
                size: bytes.length,
                sha256: createHash("sha256").update(bytes).digest("hex"),
              };
            }),
          }],
        }),
      );
      const env = { MEMA_MANIFEST: manifest };
      const setup = await runCli(home, ["setup", "--install", "--model", "tiny-nli"], env);
      assert.equal(setup.code, 0, setup.stdout + setup.stderr);
      const configPath = `${home.dir}/config/mema/config.json`;
      const config = JSON.parse(Deno.readTextFileSync(configPath));
      assert.equal(config.judge_model, "tiny-nli");
      // Random weights: thresholds of 0 make every surviving pair a confident conflict.
      Deno.writeTextFileSync(
        configPath,
        JSON.stringify({ ...config, judge_thresholds: { conflict: 0, possible: 0 } }),
      );

      // The write waits for its verdict (notice_sync_wait_ms), so the notice is on its answer.
      const server = await startServer(home, { env: { ...env, MEMA_NOTICE_SYNC_WAIT_MS: "5000" } });
      try {
        const status = await server.call("status", {});
        assert.deepEqual(status.data.capabilities.judge, { state: "ready", model: "tiny-nli" });
        const doctor = await runCli(home, ["doctor", "--json"], env);
        const finding = JSON.parse(doctor.stdout).findings
          .find((f: { check_id: string }) => f.check_id === "judge.model");
        assert.deepEqual([finding.severity, finding.title], ["info", "conflict judge tiny-nli"]);
        await server.call("remember", {
          content: "The v2 release deadline is Friday, March 14.",
          subject: "deadline",
          workspace: "w",
        });
        const second = await server.call("remember", {
          content: "The v2 release deadline moved to Monday, March 17.",
          subject: "deadline",
          workspace: "w",
        });
        const notice = second.notices?.[0] as {
          severity: string;
          kind: string;
          conflict_id: number;
        };
        assert.ok(notice, JSON.stringify(second));
        assert.deepEqual([notice.kind, notice.severity], ["conflict", "normal"]);
        const detail = await server.callRaw({
          view: "conflict_detail",
          data: { conflict_id: notice.conflict_id },
        }, "memory_review");
        const judge = detail.data.detection.judge;
        assert.equal(judge.model_id, "tiny-nli");
        assert.equal(judge.verdict, "conflict");
        assert.deepEqual(judge.thresholds, { conflict: 0, possible: 0 });
        const total = Object.values(judge.probabilities as Record<string, number>).reduce(
          (a, b) => a + b,
          0,
        );
        assert.ok(Math.abs(total - 1) < 1e-4);
      } finally {
        await server.close();
      }
    } finally {
      await http.shutdown();
    }
  },
);

Deno.test("e2e: a judge that is configured but not installed is a warning on every answer, in status and doctor", async () => {
  const home = makeTempHome();
  try {
    const env = { MEMA_JUDGE_MODEL: "mdeberta-v3-base-xnli" };
    const server = await startServer(home, { env });
    try {
      const status = await server.call("status", {});
      const judge = status.data.capabilities.judge;
      assert.equal(judge.state, "unavailable");
      assert.equal(judge.model, "mdeberta-v3-base-xnli");
      assert.match(judge.warning, /not installed/);
      assert.match(judge.fix, /mema setup --install --model mdeberta-v3-base-xnli/);
      // Any answer carries it, not only status and stderr.
      const remembered = await server.call("remember", {
        content: "The office opens at 9am.",
        subject: "office",
        workspace: "w",
      });
      assert.ok(
        remembered.warnings.some((w) => w.includes("conflict judge mdeberta-v3-base-xnli")),
        JSON.stringify(remembered.warnings),
      );
      // Detection still runs on the rule stage alone.
      const second = await server.call("remember", {
        content: "The office opens at 10am.",
        subject: "office",
        workspace: "w",
      });
      assert.equal(second.ok, true);
    } finally {
      await server.close();
    }
    const doctor = await runCli(home, ["doctor", "--json"], env);
    assert.equal(doctor.code, 1, doctor.stdout);
    const finding = JSON.parse(doctor.stdout).findings
      .find((f: { check_id: string }) => f.check_id === "judge.model");
    assert.equal(finding.severity, "warning");
    assert.match(finding.fix_hint, /mema setup --install --model mdeberta-v3-base-xnli/);
  } finally {
    home.cleanup();
  }
});
