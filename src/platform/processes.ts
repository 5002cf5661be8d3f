/**
 * This process and the programs it starts: its id, executable and runtime version, whether it
 * is a compiled binary, native libraries it preloads, and child programs run to completion.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processId, runProcess, runtimeVersion } from "./processes.ts";
 *
 * assert.ok(processId() > 0);
 * assert.match(runtimeVersion(), /^\d+\.\d+\.\d+/);
 * const outcome = await runProcess(Deno.execPath(), ["--version"]);
 * assert.ok(outcome.success);
 * assert.match(outcome.output, /deno/);
 * ```
 * @module
 */
import { envVar } from "./env.ts";

/** The process id, for lease owners and temporary names. */
export function processId(): number {
  return Deno.pid;
}

/** The executable running this process (the compiled `mema`, or `deno`). */
export function executablePath(): string {
  return Deno.execPath();
}

/** The Deno version running this process, e.g. "2.9.6". */
export function runtimeVersion(): string {
  return Deno.version.deno;
}

/** True inside a `deno compile` binary (files under node_modules are then virtual). */
export function isCompiledBinary(): boolean {
  return Deno.build.standalone === true;
}

/** The first executable file called `name` in a PATH directory (or in `extraDirs`), if any. */
export function findExecutable(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(envVar("PATH") ?? "").split(":").filter(Boolean), ...extraDirs];
  for (const dir of dirs) {
    const path = `${dir.replace(/\/$/, "")}/${name}`;
    try {
      const info = Deno.statSync(path);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** What `runProcess` saw: exit status and the captured output. */
export interface ProcessOutcome {
  success: boolean;
  code: number;
  output: string;
}

/** Runs a program to completion with stdin closed, capturing stdout and stderr together. */
export async function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ProcessOutcome> {
  const result = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    success: result.success,
    code: result.code,
    output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
  };
}

const preloaded: Deno.DynamicLibrary<Record<string, never>>[] = [];

/**
 * Loads a shared library into the process without binding symbols, and keeps it loaded, so
 * that a later dlopen of a library that needs it (by soname) finds it already in memory.
 */
export function preloadSharedLibrary(path: string): void {
  preloaded.push(Deno.dlopen(path, {}));
}
