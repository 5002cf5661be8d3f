/**
 * Loads mema's configuration: built-in defaults, then the JSON config file,
 * then environment variables, then command-line flags (each wins over the one
 * before). A bad value is a `config_invalid` error that names the key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "./mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const config = loadConfig({
 *   flags: {
 *     client: "cursor",
 *     agentId: "cursor-main",
 *     dbPath: `${dir}/mema.sqlite3`,
 *     configPath: `${dir}/config.json`,
 *   },
 * });
 * assert.equal(config.dbPath, `${dir}/mema.sqlite3`);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { envVar } from "../platform/env.ts";
import { readTextIfExists } from "../platform/files.ts";
import { dirName } from "../platform/paths.ts";
import { closestName } from "../text/closest_name.ts";
import { isTimeZone } from "../text/time_phrases.ts";
import { canonicalWorkspace, WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import { cacheDir, defaultConfigPath, defaultDbPath, expandHome } from "./paths.ts";
import { checkDbUrl } from "./db_url.ts";
import {
  type EmbeddingProviderConfig,
  embeddingProviderFileSchema,
  PROVIDER_ENV,
  resolveEmbeddingProvider,
} from "./embedding_provider.ts";

/** Client and agent names: what HTTP headers and stdio config both accept. */
export const IDENTITY_PATTERN = /^[A-Za-z0-9._:@-]+$/;
const CLIENT_MAX = 64;
const AGENT_ID_MAX = 128;
/** Where `mema serve --http` listens unless told otherwise (docs/SPEC.md §10). */
export const DEFAULT_HTTP_HOST = "127.0.0.1";
/** The HTTP port unless told otherwise (docs/SPEC.md §10). */
export const DEFAULT_HTTP_PORT = 8000;
/** The HTTP token file's name beside the database, unless `http_tokens_file` says where. */
export const HTTP_TOKENS_FILE = "http_tokens.json";

/** Upper bound of the HTTP time settings (10 minutes): beyond it a setting is a typo. */
const HTTP_MS_MAX = 600_000;

/** How writes reach the disk (see {@linkcode MemaConfig.durability}). */
export type Durability = "full" | "normal";

const identityName = (max: number) =>
  z.string().min(1).max(max).regex(IDENTITY_PATTERN, "use only letters, digits and . _ : @ -");

const configFileSchema = z.object({
  $schema: z.string().optional(),
  db_path: z.string().min(1).optional(),
  db_url: z.string().min(1).optional(),
  client: identityName(CLIENT_MAX).optional(),
  agent_id: identityName(AGENT_ID_MAX).optional(),
  workspace: z.string().min(1).max(WORKSPACE_MAX_CHARS).optional(),
  workspace_isolation: z.enum(["none", "weak", "strict"]).optional(),
  include_size: z.boolean().optional(),
  busy_timeout_ms: z.number().int().min(0).max(600_000).optional(),
  durability: z.enum(["full", "normal"]).optional(),
  embedding_model: z.string().min(1).nullable().optional(),
  embedding_provider: embeddingProviderFileSchema.optional(),
  models_dir: z.string().min(1).optional(),
  manifest_path: z.string().min(1).optional(),
  transport: z.enum(["stdio", "http"]).optional(),
  http_host: z.string().min(1).optional(),
  http_port: z.number().int().min(0).max(65_535).optional(),
  http_token: z.string().min(1).optional(),
  http_tokens_file: z.string().min(1).optional(),
  http_shutdown_grace_ms: z.number().int().min(0).max(HTTP_MS_MAX).optional(),
  http_body_timeout_ms: z.number().int().min(1).max(HTTP_MS_MAX).optional(),
  backup_jsonl: z.string().min(1).optional(),
  notice_sync_wait_ms: z.number().int().min(0).max(60_000).optional(),
  judge_model: z.string().min(1).nullable().optional(),
  time_zone: z.string().min(1).max(64).optional(),
  usage_ranking: z.object({
    enabled: z.boolean().optional(),
    half_life_days: z.number().min(1).max(3650).optional(),
    consolidation: z.number().min(0).max(10).optional(),
  }).strict().optional(),
  judge_thresholds: z.object({
    conflict: z.number().min(0).max(1),
    possible: z.number().min(0).max(1),
  }).strict().optional(),
}).strict();

/** The keys a config file may hold, for documentation and `did_you_mean`. */
export const CONFIG_KEYS: readonly string[] = Object.keys(configFileSchema.shape);

/** Where a setting's value came from. */
export type SettingSource = "default" | "file" | "env" | "flag";

/** How workspaces separate callers (docs/SPEC.md §9). */
export type WorkspaceIsolation = "none" | "weak" | "strict";

/** The resolved configuration every command works from. */
export interface MemaConfig {
  configPath: string;
  configFileFound: boolean;
  dbPath: string;
  /**
   * A `postgres://` URL: the library lives in that PostgreSQL database instead of the SQLite
   * file at `dbPath` (docs/SPEC.md §15). May hold a password: show it only through `redactDbUrl`.
   */
  dbUrl?: string;
  client?: string;
  agentId?: string;
  /** The caller's own workspace (canonical), when configured. */
  workspace?: string;
  workspaceIsolation: WorkspaceIsolation;
  includeSize: boolean;
  busyTimeoutMs: number;
  /**
   * `full`: every acknowledged write is synced to disk (survives power loss); `normal`: synced
   * at checkpoints (survives a killed process; a power cut can lose the last writes).
   */
  durability: Durability;
  cacheDir: string;
  /** Manifest id of the embedding model, or undefined for lexical recall only. */
  embeddingModel?: string;
  /**
   * The user's own OpenAI-compatible embedding server; when set it replaces `embeddingModel`
   * (src/config/embedding_provider.ts). Holds where the API key is, never the key.
   */
  embeddingProvider?: EmbeddingProviderConfig;
  modelsDir: string;
  /** A model manifest replacing the bundled one (air-gapped mirrors, tests). */
  manifestPath?: string;
  /** How `mema serve` talks to clients. */
  transport: "stdio" | "http";
  /**
   * The HTTP transport's address and bearer token (checked when the server
   * binds), and its time bounds (undefined: the transport's defaults).
   */
  http: {
    host: string;
    port: number;
    token?: string;
    /**
     * The per-caller token file (`mema token`): `http_tokens_file`, `MEMA_HTTP_TOKENS_FILE`,
     * else `http_tokens.json` beside the database, like the recall blacklist: tokens grant
     * access to one database, so they live with it.
     */
    tokensFile: string;
    shutdownGraceMs?: number;
    bodyTimeoutMs?: number;
  };
  /** Where writes go when the database cannot be written. */
  backupPath: string;
  /** How long a write response waits for conflict detection (0 = never). */
  noticeSyncWaitMs: number;
  /**
   * The IANA time zone `find` reads time phrases in ("yesterday", "last week"): `time_zone`,
   * `MEMA_TIME_ZONE`, else the system's.
   */
  timeZone: string;
  /**
   * How a memory's use nudges recall (`usage_ranking`; `MEMA_USAGE_RANKING=off` switches the
   * nudge off): src/recall/usage.ts.
   */
  usageRanking: { enabled: boolean; halfLifeDays?: number; consolidation?: number };
  /** Manifest id of the NLI judge, or undefined for rules only. */
  judgeModel?: string;
  judgeThresholds?: { conflict: number; possible: number };
  sources: Record<
    "dbPath" | "client" | "agentId" | "workspace" | "workspaceIsolation",
    SettingSource
  >;
  /** Where every setting's value came from (the console's settings page shows it). */
  settingSources: Record<SettingKey, SettingSource>;
}

/** Settings whose origin {@linkcode MemaConfig.settingSources} records. */
export type SettingKey =
  | keyof MemaConfig["sources"]
  | "includeSize"
  | "busyTimeoutMs"
  | "durability"
  | "embeddingModel"
  | "embeddingProvider"
  | "modelsDir"
  | "manifestPath"
  | "transport"
  | "httpHost"
  | "httpPort"
  | "httpToken"
  | "httpTokensFile"
  | "backupPath"
  | "noticeSyncWaitMs"
  | "judgeModel"
  | "judgeThresholds"
  | "timeZone"
  | "usageRanking"
  | "dbUrl";

/** Values given on the command line. */
export interface ConfigFlags {
  dbPath?: string;
  /** `--db-url`: a `postgres://` URL. */
  dbUrl?: string;
  client?: string;
  agentId?: string;
  workspace?: string;
  configPath?: string;
  transport?: "stdio" | "http";
  httpHost?: string;
  /** As typed on the command line; validated here. */
  httpPort?: string;
}

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  flags?: ConfigFlags;
}

/** Environment variables, each with the memory-arbiter name of the same meaning. */
const ENV_NAMES = {
  config: ["MEMA_CONFIG", "MEMORY_ARBITER_CONFIG"],
  dbPath: ["MEMA_DB_PATH", "MEMORY_ARBITER_DB_PATH"],
  dbUrl: ["MEMA_DB_URL"],
  client: ["MEMA_CLIENT", "MEMORY_ARBITER_CLIENT"],
  agentId: ["MEMA_AGENT_ID", "MEMORY_ARBITER_AGENT_ID"],
  workspace: ["MEMA_WORKSPACE", "MEMORY_ARBITER_WORKSPACE"],
  workspaceIsolation: ["MEMA_WORKSPACE_ISOLATION", "MEMORY_ARBITER_WORKSPACE_ISOLATION"],
  embeddingModel: ["MEMA_EMBEDDING_MODEL"],
  modelsDir: ["MEMA_MODELS_DIR"],
  manifestPath: ["MEMA_MANIFEST"],
  transport: ["MEMA_TRANSPORT"],
  httpToken: ["MEMA_HTTP_TOKEN"],
  httpTokensFile: ["MEMA_HTTP_TOKENS_FILE"],
  httpShutdownGraceMs: ["MEMA_HTTP_SHUTDOWN_GRACE_MS"],
  httpBodyTimeoutMs: ["MEMA_HTTP_BODY_TIMEOUT_MS"],
  backupPath: ["MEMA_BACKUP_JSONL", "MEMORY_ARBITER_BACKUP_JSONL"],
  judgeModel: ["MEMA_JUDGE_MODEL"],
  noticeSyncWaitMs: ["MEMA_NOTICE_SYNC_WAIT_MS"],
  durability: ["MEMA_DURABILITY"],
  timeZone: ["MEMA_TIME_ZONE"],
  usageRanking: ["MEMA_USAGE_RANKING"],
} as const;

function fromEnv(names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = envVar(name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

function parseConfigFile(path: string): z.infer<typeof configFileSchema> {
  const text = readTextIfExists(path);
  if (text === undefined) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new MemaError("config_invalid", `config file ${path} is not valid JSON: ${error}`, {
      hint: "fix the JSON syntax or delete the file to use defaults",
    });
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new MemaError("config_invalid", `config file ${path} must hold a JSON object`);
  }
  const result = configFileSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === "unrecognized_keys" && issue.path.length > 0) {
    // Inside a block (embedding_provider): name the block's key in full.
    const key = [...issue.path, issue.keys[0]].join(".");
    throw new MemaError("config_invalid", `config file ${path}: unknown key "${key}"`, {
      field: key,
    });
  }
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    const suggestion = closestName(key, CONFIG_KEYS);
    throw new MemaError(
      "config_invalid",
      `config file ${path}: unknown key "${key}"${
        suggestion ? ` (did you mean "${suggestion}"?)` : ""
      }`,
      { field: key, didYouMean: suggestion, hint: `known keys: ${CONFIG_KEYS.join(", ")}` },
    );
  }
  const key = issue.path.join(".");
  throw new MemaError("config_invalid", `config file ${path}: key "${key}": ${issue.message}`, {
    field: key,
  });
}

function checkIdentity(value: string, origin: string, max: number): string {
  if (value.length > max || !IDENTITY_PATTERN.test(value)) {
    throw new MemaError(
      "config_invalid",
      `${origin} must be 1-${max} characters of letters, digits and . _ : @ - (got "${value}")`,
      { field: origin },
    );
  }
  return value;
}

/** A caller workspace as configured: its canonical name, or a `config_invalid` naming `origin`. */
function checkCallerWorkspace(value: string, origin: string): string {
  const canonical = canonicalWorkspace(value);
  if (value.length > WORKSPACE_MAX_CHARS || canonical.length > WORKSPACE_MAX_CHARS) {
    throw new MemaError(
      "config_invalid",
      `${origin} must be at most ${WORKSPACE_MAX_CHARS} characters`,
      { field: origin },
    );
  }
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)) {
    throw new MemaError("config_invalid", `${origin} must not contain control characters`, {
      field: origin,
    });
  }
  return canonical;
}

function checkIsolation(value: string, origin: string): WorkspaceIsolation {
  if (value !== "none" && value !== "weak" && value !== "strict") {
    throw new MemaError(
      "config_invalid",
      `${origin} must be "none", "weak" or "strict" (got "${value}")`,
      { field: origin, didYouMean: closestName(value, ["none", "weak", "strict"]) },
    );
  }
  return value;
}

function checkDurability(value: string, origin: string): Durability {
  if (value !== "full" && value !== "normal") {
    throw new MemaError(
      "config_invalid",
      `${origin} must be "full" or "normal" (got "${value}")`,
      { field: origin },
    );
  }
  return value;
}

/**
 * The usage nudge: the file's `usage_ranking` (absent numbers take recall's defaults,
 * src/recall/usage_constants.ts), `MEMA_USAGE_RANKING` `on`/`off` above its `enabled`.
 */
function usageRankingSetting(
  env: { name: string; value: string } | undefined,
  file: { enabled?: boolean; half_life_days?: number; consolidation?: number } | undefined,
): MemaConfig["usageRanking"] {
  let enabled = file?.enabled ?? true;
  if (env !== undefined) {
    if (env.value !== "on" && env.value !== "off") {
      throw new MemaError(
        "config_invalid",
        `${env.name} must be "on" or "off" (got "${env.value}")`,
        {
          field: env.name,
        },
      );
    }
    enabled = env.value === "on";
  }
  return {
    enabled,
    ...(file?.half_life_days === undefined ? {} : { halfLifeDays: file.half_life_days }),
    ...(file?.consolidation === undefined ? {} : { consolidation: file.consolidation }),
  };
}

function checkTransport(value: string, origin: string): "stdio" | "http" {
  if (value !== "stdio" && value !== "http") {
    throw new MemaError("config_invalid", `${origin} must be "stdio" or "http" (got "${value}")`, {
      field: origin,
    });
  }
  return value;
}

function checkPort(value: string, origin: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new MemaError(
      "config_invalid",
      `${origin} must be a port number 0-65535 (got "${value}")`,
      {
        field: origin,
        hint: "0 picks a free port",
      },
    );
  }
  return port;
}

/**
 * A write does not wait for its conflict verdict by default (issue 11): the check's cost
 * grows with the library (p50 29 ms at 1k, 785 ms at 100k memories through MCP), so the
 * verdict rides on a later response as a notice. docs/SPEC.md §8's 3000 ms is one setting away.
 */
const NOTICE_SYNC_WAIT_DEFAULT_MS = 0;

function noticeWait(
  env: { name: string; value: string } | undefined,
  file: number | undefined,
): number {
  if (env === undefined) return file ?? NOTICE_SYNC_WAIT_DEFAULT_MS;
  const value = Number(env.value);
  if (!Number.isInteger(value) || value < 0 || value > 60_000) {
    throw new MemaError("config_invalid", `${env.name} must be an integer from 0 to 60000 (ms)`, {
      field: env.name,
    });
  }
  return value;
}

/**
 * The zone time phrases are read in: the environment's, else the file's, else the system's
 * (what `Intl` resolves for this process: the `TZ` variable or the machine's setting).
 */
function timeZoneSetting(
  env: { name: string; value: string } | undefined,
  file: string | undefined,
): string {
  const value = env?.value ?? file;
  if (value === undefined) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!isTimeZone(value)) {
    const field = env?.name ?? "time_zone";
    throw new MemaError("config_invalid", `${field} is not a time zone: "${value}"`, {
      field,
      hint: 'use an IANA name such as "Europe/Berlin", "Asia/Shanghai" or "UTC"',
    });
  }
  return value;
}

/** A millisecond setting from the environment, else the file's value. */
function msSetting(
  env: { name: string; value: string } | undefined,
  file: number | undefined,
  min: number,
): number | undefined {
  if (env === undefined) return file;
  const value = /^\d+$/.test(env.value) ? Number(env.value) : NaN;
  if (!(value >= min && value <= HTTP_MS_MAX)) {
    throw new MemaError(
      "config_invalid",
      `${env.name} must be an integer from ${min} to ${HTTP_MS_MAX} (ms) (got "${env.value}")`,
      { field: env.name },
    );
  }
  return value;
}

/** Resolves the configuration from defaults, the config file, the environment and flags. */
export function loadConfig(options: LoadConfigOptions = {}): MemaConfig {
  const flags = options.flags ?? {};
  const configPath = expandHome(
    flags.configPath ?? fromEnv(ENV_NAMES.config)?.value ?? defaultConfigPath(),
  );
  const configFileFound = readTextIfExists(configPath) !== undefined;
  const file = parseConfigFile(configPath);
  const sources: MemaConfig["sources"] = {
    dbPath: "default",
    client: "default",
    agentId: "default",
    workspace: "default",
    workspaceIsolation: "default",
  };

  let dbPath = defaultDbPath();
  if (file.db_path) [dbPath, sources.dbPath] = [expandHome(file.db_path), "file"];
  const envDb = fromEnv(ENV_NAMES.dbPath);
  if (envDb) [dbPath, sources.dbPath] = [expandHome(envDb.value), "env"];
  if (flags.dbPath) [dbPath, sources.dbPath] = [expandHome(flags.dbPath), "flag"];

  const envDbUrl = fromEnv(ENV_NAMES.dbUrl);
  const dbUrl = flags.dbUrl !== undefined
    ? checkDbUrl(flags.dbUrl, "--db-url")
    : envDbUrl !== undefined
    ? checkDbUrl(envDbUrl.value, envDbUrl.name)
    : file.db_url === undefined
    ? undefined
    : checkDbUrl(file.db_url, "db_url");

  let client = file.client;
  if (client) sources.client = "file";
  const envClient = fromEnv(ENV_NAMES.client);
  if (envClient) {
    [client, sources.client] = [checkIdentity(envClient.value, envClient.name, CLIENT_MAX), "env"];
  }
  if (flags.client) {
    [client, sources.client] = [checkIdentity(flags.client, "--client", CLIENT_MAX), "flag"];
  }

  let agentId = file.agent_id;
  if (agentId) sources.agentId = "file";
  const envAgent = fromEnv(ENV_NAMES.agentId);
  if (envAgent) {
    [agentId, sources.agentId] = [
      checkIdentity(envAgent.value, envAgent.name, AGENT_ID_MAX),
      "env",
    ];
  }
  if (flags.agentId) {
    [agentId, sources.agentId] = [checkIdentity(flags.agentId, "--agent-id", AGENT_ID_MAX), "flag"];
  }

  let workspace = file.workspace === undefined
    ? undefined
    : checkCallerWorkspace(file.workspace, "workspace");
  if (workspace !== undefined) sources.workspace = "file";
  const envWorkspace = fromEnv(ENV_NAMES.workspace);
  if (envWorkspace) {
    [workspace, sources.workspace] = [
      checkCallerWorkspace(envWorkspace.value, envWorkspace.name),
      "env",
    ];
  }
  if (flags.workspace !== undefined) {
    [workspace, sources.workspace] = [checkCallerWorkspace(flags.workspace, "--workspace"), "flag"];
  }

  let workspaceIsolation: WorkspaceIsolation = file.workspace_isolation ?? "none";
  if (file.workspace_isolation) sources.workspaceIsolation = "file";
  const envIsolation = fromEnv(ENV_NAMES.workspaceIsolation);
  if (envIsolation) {
    [workspaceIsolation, sources.workspaceIsolation] = [
      checkIsolation(envIsolation.value, envIsolation.name),
      "env",
    ];
  }

  const envModel = fromEnv(ENV_NAMES.embeddingModel)?.value;
  // "none" in the environment switches a configured model off for one process.
  const embeddingModel = envModel !== undefined
    ? (envModel === "none" ? undefined : envModel)
    : file.embedding_model ?? undefined;
  const modelsDir = expandHome(
    fromEnv(ENV_NAMES.modelsDir)?.value ?? file.models_dir ?? `${cacheDir()}/models`,
  );

  const manifestSetting = fromEnv(ENV_NAMES.manifestPath)?.value ?? file.manifest_path;
  const judgeModelSetting = fromEnv(ENV_NAMES.judgeModel)?.value ?? file.judge_model ?? undefined;
  const envDurability = fromEnv(ENV_NAMES.durability);
  const durability = envDurability
    ? checkDurability(envDurability.value, envDurability.name)
    : file.durability ?? "full";
  const envTransport = fromEnv(ENV_NAMES.transport);
  const transport = flags.transport ??
    (envTransport ? checkTransport(envTransport.value, envTransport.name) : undefined) ??
    file.transport ?? "stdio";
  const http: MemaConfig["http"] = {
    host: flags.httpHost ?? file.http_host ?? DEFAULT_HTTP_HOST,
    port: flags.httpPort !== undefined
      ? checkPort(flags.httpPort, "--port")
      : file.http_port ?? DEFAULT_HTTP_PORT,
    token: fromEnv(ENV_NAMES.httpToken)?.value ?? file.http_token,
    tokensFile: expandHome(
      fromEnv(ENV_NAMES.httpTokensFile)?.value ?? file.http_tokens_file ??
        `${dirName(dbPath)}/${HTTP_TOKENS_FILE}`,
    ),
  };
  const grace = msSetting(fromEnv(ENV_NAMES.httpShutdownGraceMs), file.http_shutdown_grace_ms, 0);
  if (grace !== undefined) http.shutdownGraceMs = grace;
  const bodyTimeout = msSetting(fromEnv(ENV_NAMES.httpBodyTimeoutMs), file.http_body_timeout_ms, 1);
  if (bodyTimeout !== undefined) http.bodyTimeoutMs = bodyTimeout;
  // Where the other settings came from, by the same precedence as their values above.
  const origin = (env: readonly string[] | undefined, inFile: unknown, flag?: unknown) =>
    flag !== undefined
      ? "flag" as const
      : env !== undefined && fromEnv(env) !== undefined
      ? "env" as const
      : inFile !== undefined
      ? "file" as const
      : "default" as const;
  const settingSources: MemaConfig["settingSources"] = {
    ...sources,
    includeSize: origin(undefined, file.include_size),
    busyTimeoutMs: origin(undefined, file.busy_timeout_ms),
    durability: origin(ENV_NAMES.durability, file.durability),
    embeddingModel: origin(ENV_NAMES.embeddingModel, file.embedding_model),
    embeddingProvider: origin([PROVIDER_ENV.url, PROVIDER_ENV.model], file.embedding_provider),
    modelsDir: origin(ENV_NAMES.modelsDir, file.models_dir),
    manifestPath: origin(ENV_NAMES.manifestPath, file.manifest_path),
    transport: origin(ENV_NAMES.transport, file.transport, flags.transport),
    httpHost: origin(undefined, file.http_host, flags.httpHost),
    httpPort: origin(undefined, file.http_port, flags.httpPort),
    httpToken: origin(ENV_NAMES.httpToken, file.http_token),
    httpTokensFile: origin(ENV_NAMES.httpTokensFile, file.http_tokens_file),
    backupPath: origin(ENV_NAMES.backupPath, file.backup_jsonl),
    noticeSyncWaitMs: origin(ENV_NAMES.noticeSyncWaitMs, file.notice_sync_wait_ms),
    judgeModel: origin(ENV_NAMES.judgeModel, file.judge_model),
    judgeThresholds: origin(undefined, file.judge_thresholds),
    timeZone: origin(ENV_NAMES.timeZone, file.time_zone),
    usageRanking: origin(ENV_NAMES.usageRanking, file.usage_ranking),
    dbUrl: origin(ENV_NAMES.dbUrl, file.db_url, flags.dbUrl),
  };
  return {
    configPath,
    configFileFound,
    embeddingModel,
    embeddingProvider: resolveEmbeddingProvider(file.embedding_provider, envVar),
    modelsDir,
    manifestPath: manifestSetting === undefined ? undefined : expandHome(manifestSetting),
    noticeSyncWaitMs: noticeWait(fromEnv(ENV_NAMES.noticeSyncWaitMs), file.notice_sync_wait_ms),
    judgeModel: judgeModelSetting === "none" ? undefined : judgeModelSetting,
    judgeThresholds: file.judge_thresholds,
    timeZone: timeZoneSetting(fromEnv(ENV_NAMES.timeZone), file.time_zone),
    usageRanking: usageRankingSetting(fromEnv(ENV_NAMES.usageRanking), file.usage_ranking),
    backupPath: expandHome(
      fromEnv(ENV_NAMES.backupPath)?.value ?? file.backup_jsonl ?? `${dbPath}.backup.jsonl`,
    ),
    dbPath,
    dbUrl,
    client,
    agentId,
    workspace,
    workspaceIsolation,
    includeSize: file.include_size ?? false,
    busyTimeoutMs: file.busy_timeout_ms ?? 5000,
    durability,
    cacheDir: cacheDir(),
    transport,
    http,
    sources,
    settingSources,
  };
}

/** The identity a server acts under. */
export interface Identity {
  client: string;
  agentId: string;
}

/** Returns the identity or explains exactly how to set it. */
export function requireIdentity(config: MemaConfig): Identity {
  const missing: string[] = [];
  if (!config.client) missing.push("client (MEMA_CLIENT)");
  if (!config.agentId) missing.push("agent id (MEMA_AGENT_ID)");
  if (missing.length > 0) {
    throw new MemaError(
      "identity_missing",
      `mema serve needs an identity: missing ${missing.join(" and ")}`,
      {
        hint:
          `set MEMA_CLIENT and MEMA_AGENT_ID in the MCP client's "env" block, or "client" and "agent_id" in ${config.configPath}, or pass --client and --agent-id`,
      },
    );
  }
  return { client: config.client!, agentId: config.agentId! };
}

/** Strict isolation needs the caller's own workspace; says exactly how to set it. */
export function requireStrictWorkspace(config: MemaConfig): void {
  if (config.workspaceIsolation !== "strict" || config.workspace !== undefined) return;
  throw new MemaError(
    "config_invalid",
    "workspace_isolation is strict but no workspace is set for this caller",
    {
      field: "workspace",
      hint:
        `strict isolation limits every call to the caller's own workspace: set MEMA_WORKSPACE in the MCP client's "env" block, "workspace" in ${config.configPath}, or pass --workspace (or choose workspace_isolation "none" or "weak")`,
    },
  );
}
