/**
 * The settings services run with, from the resolved configuration: shared by every command
 * that serves callers (`serve` over stdio or HTTP, `console`), so they read the same files.
 *
 * @example
 * ```ts
 * import { serviceSettings } from "./src/cli/service_settings.ts";
 * // serviceSettings(loadConfig()).recallBlacklistPath // "~/.local/share/mema/recall_blacklist.jsonl"
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import type { ServiceSettings } from "../memory/context.ts";
import { dirName } from "../platform/paths.ts";
import { RECALL_BLACKLIST_FILE } from "../workspaces/blacklist.ts";

/** Isolation, size block, backup file and the recall blacklist beside the database. */
export function serviceSettings(config: MemaConfig): ServiceSettings {
  return {
    workspaceIsolation: config.workspaceIsolation,
    includeSize: config.includeSize,
    backupPath: config.backupPath,
    recallBlacklistPath: `${dirName(config.dbPath)}/${RECALL_BLACKLIST_FILE}`,
  };
}
