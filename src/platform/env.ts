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

/** Reads an environment variable; an empty string counts as unset. */
export function envVar(name: string): string | undefined {
  const value = Deno.env.get(name);
  return value === undefined || value === "" ? undefined : value;
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
