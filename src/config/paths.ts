/**
 * Default file locations, following the XDG base-directory conventions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultDbPath } from "./paths.ts";
 *
 * assert.ok(defaultDbPath().endsWith("/mema/mema.sqlite3")); // ~/.local/share/mema/mema.sqlite3
 * ```
 * @module
 */
import { envVar, homeDir } from "../platform/env.ts";

/** `$XDG_CONFIG_HOME/mema` or `~/.config/mema`. */
export function configDir(): string {
  return `${envVar("XDG_CONFIG_HOME") ?? `${homeDir()}/.config`}/mema`;
}

/** `$XDG_DATA_HOME/mema` or `~/.local/share/mema`. */
export function dataDir(): string {
  return `${envVar("XDG_DATA_HOME") ?? `${homeDir()}/.local/share`}/mema`;
}

/** `$XDG_CACHE_HOME/mema` or `~/.cache/mema`: extracted native files and models. */
export function cacheDir(): string {
  return `${envVar("XDG_CACHE_HOME") ?? `${homeDir()}/.cache`}/mema`;
}

/** The default config file path. */
export function defaultConfigPath(): string {
  return `${configDir()}/config.json`;
}

/** The default database path. */
export function defaultDbPath(): string {
  return `${dataDir()}/mema.sqlite3`;
}

/** Expands a leading `~/` to the home directory. */
export function expandHome(path: string): string {
  if (path === "~") return homeDir();
  if (path.startsWith("~/")) return `${homeDir()}${path.slice(1)}`;
  return path;
}
