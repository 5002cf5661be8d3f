/**
 * The project's own checks, as tests, so the one test command enforces them:
 * formatting, lint and type-checking of everything that ships.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

async function deno(args: string[]): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: result.code, output: decode(result.stdout) + decode(result.stderr) };
}

Deno.test("deno fmt --check is clean", async () => {
  const { code, output } = await deno(["fmt", "--check"]);
  assert.equal(code, 0, output);
});

Deno.test("deno lint is clean", async () => {
  const { code, output } = await deno(["lint"]);
  assert.equal(code, 0, output);
});

Deno.test("deno check passes for the entry point, scripts and benchmarks", async () => {
  const targets = ["main.ts"];
  for (const dir of ["scripts", "bench"]) {
    try {
      for (const entry of Deno.readDirSync(`${ROOT}/${dir}`)) {
        if (entry.isFile && entry.name.endsWith(".ts")) targets.push(`${dir}/${entry.name}`);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const { code, output } = await deno(["check", ...targets]);
  assert.equal(code, 0, output);
});
