/**
 * `mema setup [--install] [--model ID] [--allow-unverified]`, and
 * `mema setup --provider URL --model NAME [--api-key-env VAR]` for the user's own model server.
 *
 * Without `--install` nothing touches the network: the command checks the
 * environment, writes the config file, and for the built-in static model
 * builds it locally. With `--install` it downloads the chosen model (default
 * multilingual-e5-small) with resume, mirror fallback and sha256 checks, then
 * selects it in the config.
 * @module
 */
import process from "node:process";
import { loadConfig, type MemaConfig } from "../config/mod.ts";
import { updateConfigFile } from "../config/write.ts";
import { MemaError } from "../errors/mod.ts";
import { installModel } from "../models/install.ts";
import { ensureModelStackPart } from "../models/model_stack.ts";
import { findModel, loadManifest, type ModelEntry } from "../models/manifest.ts";
import { createProgressReporter } from "../models/progress.ts";
import {
  checkProviderUrl,
  embeddingProviderFileSchema,
  resolveEmbeddingProvider,
} from "../config/embedding_provider.ts";
import { createProviderEmbedder } from "../models/provider_embedder.ts";
import { buildStaticModel } from "../models/static_model.ts";
import { isDirWritable } from "../platform/directories.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import { readTextIfExists } from "../platform/files.ts";
import { probeFts5, probeVecExtension } from "../store/mod.ts";
import { type CommandSpec, parseCommandArgs, type ParsedArgs } from "./command.ts";
import { reportFailure } from "./output.ts";

/** The model `--install` fetches when none is named. */
export const DEFAULT_INSTALL_MODEL = "multilingual-e5-small";

interface Check {
  ok: boolean;
  label: string;
  detail: string;
}

async function environmentChecks(config: MemaConfig): Promise<Check[]> {
  const checks: Check[] = [];
  const dbDir = dirName(config.dbPath);
  const dbDirOk = pathExists(dbDir) ? isDirWritable(dbDir) : true;
  checks.push({ ok: dbDirOk, label: "database location", detail: config.dbPath });
  const fts = probeFts5();
  checks.push({
    ok: fts,
    label: "SQLite FTS5 (word index)",
    detail: fts ? "available" : "missing",
  });
  try {
    await probeVecExtension(config.cacheDir);
    checks.push({ ok: true, label: "sqlite-vec", detail: "loads" });
  } catch (error) {
    checks.push({ ok: false, label: "sqlite-vec", detail: String(error) });
  }
  checks.push({
    ok: Boolean(config.client && config.agentId),
    label: "identity",
    detail: config.client && config.agentId
      ? `${config.client}/${config.agentId}`
      : "not set here; each MCP client entry sets MEMA_CLIENT and MEMA_AGENT_ID",
  });
  return checks;
}

async function provideModel(
  entry: ModelEntry,
  config: MemaConfig,
  options: { install: boolean; allowUnverified: boolean },
): Promise<string> {
  const dir = `${config.modelsDir}/${entry.id}`;
  // The model runtime is installed only now that a model is chosen (src/models/model_stack.ts).
  const say = (line: string) => console.log(`  ${line}`);
  if (entry.builtin) {
    await ensureModelStackPart("transformers", { say });
    await ensureModelStackPart("wink_vectors", { say });
    const info = await buildStaticModel(dir);
    return `built ${entry.id} locally in ${info.dir} (${info.vocabSize} words, ${info.dim} dimensions)`;
  }
  if (!options.install) {
    throw new MemaError("invalid_input", `${entry.id} must be downloaded`, {
      hint: `run \`mema setup --install --model ${entry.id}\``,
    });
  }
  await ensureModelStackPart("transformers", { say });
  const progress = createProgressReporter({ isTty: process.stderr.isTTY === true });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  try {
    const result = await installModel(entry, {
      modelsDir: config.modelsDir,
      onProgress: (p) => progress.update(p),
      signal: controller.signal,
      allowUnverified: options.allowUnverified,
    });
    progress.finish();
    const note = result.matchesManifest
      ? ""
      : " (installed from an older manifest entry; reinstall to update)";
    return result.status === "already_installed"
      ? `${entry.id} is already installed in ${result.dir}${note}`
      : `installed ${entry.id} in ${result.dir} (${result.downloadedBytes} bytes downloaded)`;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/** `mema setup`: its help and flags. */
export const setupSpec: CommandSpec = {
  name: "setup",
  summary: "check the environment, write the config file, choose a model",
  usage: [
    "setup [--model ID] [--install] [--allow-unverified] [--config PATH]",
    "setup --provider URL --model NAME [--api-key-env VAR] [--config PATH]",
  ],
  description: [
    "Without --install nothing touches the network. --model static-wink-100d builds the",
    "offline English model locally; --install downloads a model (default",
    `${DEFAULT_INSTALL_MODEL}) with resume, mirrors and sha256 checks.`,
    "--provider uses your own OpenAI-compatible server instead (POST URL/embeddings, e.g.",
    "http://localhost:11434/v1 for Ollama): --model names its model; the API key stays in the",
    "variable --api-key-env names. The endpoint is checked once.",
  ].join("\n"),
  flags: {
    model: {
      type: "string",
      value: "ID",
      help: "the model to use (models.manifest.json, or the server's with --provider)",
    },
    provider: { type: "string", value: "URL", help: "base URL of an OpenAI-compatible API" },
    "api-key-env": { type: "string", value: "VAR", help: "variable holding the API key" },
    install: { type: "boolean", help: "download the model (network)" },
    "allow-unverified": { type: "boolean", help: "accept files the manifest has no sha256 for" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: { 0: "done", 1: "a check or the model failed", 2: "bad command line" },
  run: setupCommand,
};

/** Runs `mema setup`; returns the exit code. */
export async function setupCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(setupSpec, args);
  try {
    const config = loadConfig({ flags: { configPath: flags.string("config") } });
    let failed = false;
    console.log(`mema setup (config ${config.configPath})`);
    for (const check of await environmentChecks(config)) {
      console.log(`  ${check.ok ? "ok  " : "WARN"} ${check.label}: ${check.detail}`);
    }
    const providerUrl = flags.string("provider");
    if (providerUrl !== undefined) return await setupProvider(config, providerUrl, flags);
    const modelId = flags.string("model") ??
      (flags.boolean("install") ? DEFAULT_INSTALL_MODEL : undefined);
    const changes: Record<string, unknown> = {};
    if (!config.configFileFound) changes.db_path = config.dbPath;
    if (modelId !== undefined) {
      const entry = findModel(loadManifest(config.manifestPath), modelId);
      try {
        console.log(`  ${await provideModel(entry, config, {
          install: flags.boolean("install"),
          allowUnverified: flags.boolean("allow-unverified"),
        })}`);
        // An NLI model becomes the conflict judge; an embedding model the recall model.
        changes[entry.task === "nli" ? "judge_model" : "embedding_model"] = entry.id;
      } catch (error) {
        failed = true;
        reportFailure(error);
      }
    }
    if (Object.keys(changes).length > 0) {
      updateConfigFile(config.configPath, changes);
      console.log(`  wrote ${Object.keys(changes).join(", ")} to ${config.configPath}`);
    }
    if (changes.embedding_model || changes.judge_model) {
      console.log(
        "  running servers pick up the model when restarted; existing memories are embedded in the background",
      );
    } else if (modelId === undefined && !config.embeddingModel && !config.embeddingProvider) {
      console.log(
        "  no embedding model: recall is lexical. `mema setup --model static-wink-100d` (offline) or `mema setup --install` enables semantic recall",
      );
    }
    return failed ? 1 : 0;
  } catch (error) {
    return reportFailure(error);
  }
}

/**
 * `mema setup --provider URL --model NAME`: writes `embedding_provider` (keeping the block's
 * other keys) with the dimension the server gave, after one request. A failed check still
 * writes the setting (the server may start later) and exits 1.
 */
async function setupProvider(
  config: MemaConfig,
  rawUrl: string,
  flags: ParsedArgs,
): Promise<number> {
  const url = checkProviderUrl(rawUrl, "--provider");
  const model = flags.string("model");
  if (model === undefined) {
    throw new MemaError("invalid_input", "--provider needs --model NAME (the server's model)", {
      field: "--model",
      hint: "e.g. mema setup --provider http://localhost:11434/v1 --model nomic-embed-text",
    });
  }
  const keyEnv = flags.string("api-key-env");
  const previous = readProviderBlock(config.configPath);
  const block: Record<string, unknown> = { ...previous, url, model };
  if (previous.url !== url || previous.model !== model) delete block.dimensions;
  if (keyEnv !== undefined) {
    block.api_key_env = keyEnv;
    delete block.api_key_file;
  }
  // Checked as loadConfig will read it, the environment set aside (it holds no override here).
  const checked = embeddingProviderFileSchema.safeParse(block);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new MemaError(
      "config_invalid",
      `embedding_provider.${issue.path.join(".")} in ${config.configPath}: ${issue.message}`,
      { field: `embedding_provider.${issue.path.join(".")}` },
    );
  }
  const resolved = resolveEmbeddingProvider(checked.data, () => undefined)!;
  let failed = false;
  try {
    const probe = await createProviderEmbedder(resolved).probe();
    block.dimensions = probe.dim;
    console.log(
      `  ok   embedding provider: ${url}/embeddings answers for ${model}: ${probe.dim} dimensions in ${probe.latencyMs} ms`,
    );
  } catch (error) {
    failed = true;
    console.log(`  WARN embedding provider: ${error instanceof MemaError ? error.reason : error}`);
    console.log("       the setting is written anyway; `mema doctor` checks the endpoint again");
  }
  const changes: Record<string, unknown> = { embedding_provider: block };
  if (!config.configFileFound) changes.db_path = config.dbPath;
  updateConfigFile(config.configPath, changes);
  console.log(`  wrote ${Object.keys(changes).join(", ")} to ${config.configPath}`);
  console.log(
    "  running servers pick it up when restarted; existing memories are embedded in the background" +
      (config.embeddingModel ? ` (it replaces embedding_model ${config.embeddingModel})` : ""),
  );
  return failed ? 1 : 0;
}

/** The config file's `embedding_provider` block as written, or an empty one. */
function readProviderBlock(path: string): Record<string, unknown> {
  try {
    const block = JSON.parse(readTextIfExists(path) ?? "{}").embedding_provider;
    return block && typeof block === "object" && !Array.isArray(block) ? { ...block } : {};
  } catch {
    return {};
  }
}
