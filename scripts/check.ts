/**
 * The project's checks that are not tests, as one command (`deno task check`; `.ci/run` runs it
 * after the tests): formatting, lint, type-checking of everything (entry point, tests, benchmarks,
 * scripts) and the single-binary build with `--check-only` (module graph, embedded native files,
 * payload size; the output goes to a temporary folder and is removed). The steps run two at a time
 * (the build and the type-check are the slow ones, ~55 s and ~30 s on 2 cores). Each step prints
 * `check: ok STEP` or `check: FAILED STEP` with its output, and the last line is
 * `check: N passed, N failed`, which `.ci/run` adds to its own count.
 *
 * ```sh
 * deno run -A scripts/check.ts [STEP...]   # default: every step (compile, types, fmt, lint)
 * ```
 * @module
 */
import { installDevTool } from "./dev_tools.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** How many steps run at once: the slow two (types, compile) overlap on a 2-core machine. */
const PARALLEL_STEPS = 2;

/** One check: the deno arguments it runs. */
const STEPS: Record<string, (tmp: string) => string[]> = {
  // The slow two first, so they overlap; fmt and lint follow in the time left.
  compile: (tmp) => [
    "run",
    "--allow-all",
    "scripts/compile.ts",
    "--check-only",
    "--no-check",
    "--output",
    `${tmp}/mema`,
  ],
  types: () => ["check", "main.ts", "tests/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
  fmt: () => ["fmt", "--check"],
  lint: () => ["lint"],
};

async function runStep(name: string): Promise<boolean> {
  const tmp = Deno.makeTempDirSync({ prefix: `mema-check-${name}-` });
  try {
    const started = performance.now();
    const output = await new Deno.Command(Deno.execPath(), {
      args: STEPS[name](tmp),
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (output.success) {
      console.log(`check: ok ${name} (${seconds} s)`);
      return true;
    }
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    console.log(`check: FAILED ${name} (${seconds} s)\n${text.trimEnd()}`);
    return false;
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((name) => !(name in STEPS));
  if (unknown.length > 0) {
    console.error(
      `check: unknown step ${unknown.join(", ")}; one of ${Object.keys(STEPS).join(", ")}`,
    );
    return 2;
  }
  // The type-check reads the console tests, whose browser driver's types come from its files,
  // and every test and benchmark that drives mema through the MCP SDK's client.
  await installDevTool("playwright");
  await installDevTool("mcp_sdk");
  const queue = args.length > 0 ? [...args] : Object.keys(STEPS);
  let passed = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: PARALLEL_STEPS }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        if (await runStep(name)) passed++;
        else failed++;
      }
    }),
  );
  console.log(`check: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
