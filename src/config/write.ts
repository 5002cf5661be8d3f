/**
 * Changes keys of the config file without touching the others. The file is
 * written atomically (temporary sibling, then rename), and the result is
 * validated before it replaces the old one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { updateConfigFile } from "./write.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/config.json`;
 * updateConfigFile(path, { embedding_model: "static-wink-100d" });
 * assert.equal(JSON.parse(Deno.readTextFileSync(path)).embedding_model, "static-wink-100d");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { ensureDir } from "../platform/directories.ts";
import { readTextIfExists, writeBytesAtomic } from "../platform/files.ts";
import { dirName } from "../platform/paths.ts";
import { CONFIG_KEYS } from "./mod.ts";

/** Sets (or, with `null` for a removable key, clears) config keys; returns the new object. */
export function updateConfigFile(
  path: string,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  for (const key of Object.keys(changes)) {
    if (!CONFIG_KEYS.includes(key)) {
      throw new MemaError("config_invalid", `unknown config key "${key}"`, { field: key });
    }
  }
  const text = readTextIfExists(path);
  let current: Record<string, unknown> = {};
  if (text !== undefined) {
    try {
      const parsed = JSON.parse(text);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
      current = parsed;
    } catch {
      throw new MemaError("config_invalid", `config file ${path} is not a JSON object`, {
        hint: "fix or delete it, then run the command again",
      });
    }
  }
  const next = { ...current, ...changes };
  ensureDir(dirName(path));
  writeBytesAtomic(path, new TextEncoder().encode(`${JSON.stringify(next, null, 2)}\n`));
  return next;
}
