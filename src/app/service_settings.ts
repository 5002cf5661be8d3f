/**
 * The settings services run with, from the resolved configuration: shared by every command
 * that serves callers (`serve` over stdio or HTTP, `console`), so they read the same files.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "../config/mod.ts";
 * import { serviceSettings } from "./service_settings.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const config = loadConfig({
 *   flags: { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/config.json` },
 * });
 * assert.equal(serviceSettings(config).recallBlacklistPath, `${dir}/recall_blacklist.jsonl`);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { MemaConfig } from "../config/mod.ts";
import type { ServiceSettings } from "../core/context.ts";
import { dirName } from "../platform/paths.ts";
import { RECALL_BLACKLIST_FILE } from "../workspaces/blacklist.ts";
import { USAGE_RANKING_DEFAULT } from "../recall/usage.ts";

/**
 * Isolation, size block, backup file, time zone, the usage nudge and the recall blacklist beside
 * the database.
 */
export function serviceSettings(config: MemaConfig): ServiceSettings {
  return {
    workspaceIsolation: config.workspaceIsolation,
    includeSize: config.includeSize,
    backupPath: config.backupPath,
    timeZone: config.timeZone,
    usageRanking: { ...USAGE_RANKING_DEFAULT, ...config.usageRanking },
    recallBlacklistPath: `${dirName(config.dbPath)}/${RECALL_BLACKLIST_FILE}`,
  };
}
