/**
 * The environment the process runs in: variables, the home directory and the user's name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envVar, homeDir } from "./env.ts";
 *
 * Deno.env.set("MEMA_EXAMPLE_EMPTY", "");
 * assert.equal(envVar("MEMA_EXAMPLE_EMPTY"), undefined); // empty counts as unset
 * assert.ok(homeDir().length > 0);
 * ```
 * @module
 */
import { userInfo } from "node:os";

/** Variables this isolate reads in place of the process's, while {@linkcode withEnvironment} runs. */
const overlays: Record<string, string | undefined>[] = [];

/** Reads an environment variable; an empty string counts as unset. */
export function envVar(name: string): string | undefined {
  const set = overlays.findLast((vars) => Object.hasOwn(vars, name));
  const value = set === undefined ? Deno.env.get(name) : set[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * Runs the synchronous `body` reading `vars` in place of the process's variables of those names
 * (undefined: unset), in this isolate only; `vars` is read as it is at each read, so the body may
 * change it. The process's environment is one for every module
 * `deno test --parallel` runs (they share the process), so a test that set it would change what
 * the others read and what the servers they start inherit; tests set variables through this.
 */
export function withEnvironment<T>(vars: Record<string, string | undefined>, body: () => T): T {
  overlays.push(vars);
  try {
    const result = body();
    if (result instanceof Promise) throw new Error("withEnvironment runs synchronous bodies only");
    return result;
  } finally {
    overlays.pop();
  }
}

/** The user's home directory, or the current directory when HOME is unset. */
export function homeDir(): string {
  return envVar("HOME") ?? envVar("USERPROFILE") ?? Deno.cwd();
}

/** The name of the operating-system user running this process ("user" when none is known). */
export function osUserName(): string {
  const fromEnv = envVar("USER") ?? envVar("LOGNAME") ?? envVar("USERNAME");
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username || "user";
  } catch {
    return "user";
  }
}
