/**
 * The settings view: the resolved configuration, each value with where it came from (built-in
 * default, config file, environment, command-line flag). Secrets are never shown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "../config/mod.ts";
 * import { settingsView } from "./settings.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const config = loadConfig({
 *   flags: { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/config.json` },
 * });
 * assert.ok(settingsView(ctx, config).groups[0].settings.length > 0);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { redactDbUrl } from "../config/db_url.ts";
import type { MemaConfig, SettingKey, SettingSource } from "../config/mod.ts";
import type { ServiceContext } from "../core/context.ts";

/** One setting as shown. */
export interface SettingView {
  /** The config-file key (or what sets it). */
  key: string;
  value: string;
  source: SettingSource;
  note?: string;
}

/** Settings grouped by what they govern. */
export interface SettingsView {
  configPath: string;
  configFileFound: boolean;
  groups: { title: string; settings: SettingView[] }[];
}

function show(value: unknown): string {
  if (value === undefined || value === null) return "(not set)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The configuration the process runs with and where each value came from. */
export function settingsView(ctx: ServiceContext, config: MemaConfig): SettingsView {
  const s = config.settingSources;
  const row = (key: string, from: SettingKey, value: unknown, note?: string): SettingView => ({
    key,
    value: show(value),
    source: s[from],
    ...(note ? { note } : {}),
  });
  return {
    configPath: config.configPath,
    configFileFound: config.configFileFound,
    groups: [
      {
        title: "Storage",
        settings: [
          row("db_path", "dbPath", config.dbPath),
          // A team database is shown without its password (config/db_url.ts), and only when set.
          ...(config.dbUrl === undefined
            ? []
            : [row("db_url", "dbUrl", redactDbUrl(config.dbUrl), "used instead of db_path")]),
          row("backup_jsonl", "backupPath", config.backupPath),
          row("busy_timeout_ms", "busyTimeoutMs", config.busyTimeoutMs),
          row("durability", "durability", config.durability),
        ],
      },
      {
        title: "Recall",
        settings: [
          row(
            "embedding_model",
            "embeddingModel",
            config.embeddingModel,
            config.embeddingModel ? undefined : "lexical recall only",
          ),
          // The model server: where and which model, and where the key is read (never the key
          // nor the extra headers, which may carry secrets too).
          ...(config.embeddingProvider === undefined ? [] : [
            row(
              "embedding_provider",
              "embeddingProvider",
              `${config.embeddingProvider.model} at ${config.embeddingProvider.url}${
                config.embeddingProvider.apiKeyEnv
                  ? `, key from $${config.embeddingProvider.apiKeyEnv}`
                  : config.embeddingProvider.apiKeyFile
                  ? `, key from ${config.embeddingProvider.apiKeyFile}`
                  : ""
              }`,
              "used instead of embedding_model",
            ),
          ]),
          row("models_dir", "modelsDir", config.modelsDir),
          row("manifest_path", "manifestPath", config.manifestPath),
          row("include_size", "includeSize", config.includeSize),
          row("time_zone", "timeZone", config.timeZone, "the zone find reads time phrases in"),
          row(
            "usage_ranking",
            "usageRanking",
            ctx.settings.usageRanking ?? config.usageRanking,
            "memories agents use resist fading in recall",
          ),
        ],
      },
      {
        title: "Conflicts",
        settings: [
          row(
            "judge_model",
            "judgeModel",
            config.judgeModel,
            config.judgeModel ? undefined : "rules only",
          ),
          row("judge_thresholds", "judgeThresholds", config.judgeThresholds),
          row("notice_sync_wait_ms", "noticeSyncWaitMs", config.noticeSyncWaitMs),
        ],
      },
      {
        title: "Identity and isolation",
        settings: [
          row("workspace_isolation", "workspaceIsolation", ctx.settings.workspaceIsolation),
          row("workspace", "workspace", config.workspace, "the caller's own workspace"),
          row("client", "client", config.client, 'the console writes as client "console"'),
          row("agent_id", "agentId", config.agentId),
        ],
      },
      {
        title: "HTTP transport",
        settings: [
          row("transport", "transport", config.transport),
          row("http_host", "httpHost", config.http.host),
          row("http_port", "httpPort", config.http.port),
          row(
            "http_token",
            "httpToken",
            config.http.token === undefined ? undefined : "(set, hidden)",
          ),
          row(
            "http_tokens_file",
            "httpTokensFile",
            config.http.tokensFile,
            "per-caller tokens (`mema token`); only their hashes are kept",
          ),
        ],
      },
    ],
  };
}
