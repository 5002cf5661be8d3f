/**
 * `mema doctor`: health findings about config, identity, the database and
 * capabilities. Opens the database read-only, never writes, never throws: an
 * unopenable database is one critical finding.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runDoctor } from "./mod.ts";
 *
 * // A database not created yet: doctor reports it and creates nothing.
 * const dir = Deno.makeTempDirSync();
 * const report = await runDoctor({
 *   flags: { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/config.json` },
 * });
 * assert.ok([0, 1, 2].includes(report.exitCode));
 * assert.equal(report.dbPath, `${dir}/mema.sqlite3`);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MODEL_STACK, modelStackInstalled } from "../models/model_stack.ts";
import { type ConfigFlags, loadConfig, type MemaConfig } from "../config/mod.ts";
import { isMemaError } from "../errors/mod.ts";
import { isDirWritable } from "../platform/directories.ts";
import { isFileWritable } from "../platform/file_info.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import { SCAN_STALE_DAYS } from "../conflicts/constants_pipeline.ts";
import { lastScanTime } from "../conflicts/scan_log.ts";
import { locateEmbeddingModel, onnxFileFor } from "../models/embedding_model.ts";
import { httpTokenFindings } from "./access_tokens_check.ts";
import { judgeFindings } from "./judge_check.ts";
import { backlogFindings } from "./backlog_check.ts";
import { copyIncompleteFinding } from "./copy_check.ts";
import { postgresFindings } from "./postgres_check.ts";
import { providerFindings } from "./provider_check.ts";
import { vectorCoverageFinding } from "./vector_index_check.ts";
import {
  type DatabaseProbe,
  inspectDatabase,
  probeDatabase,
  probeVecExtension,
  SCHEMA_GENERATION,
} from "../store/mod.ts";

/** How bad a finding is. */
export type Severity = "info" | "warning" | "critical";

/** One doctor finding. */
export interface Finding {
  check_id: string;
  severity: Severity;
  title: string;
  detail: string;
  fix_hint?: string;
  /**
   * A backlog of decisions waiting for someone (open conflicts, notices, scan queue items),
   * not a fault of the install: its warning fails the exit code only under `strict`.
   */
  backlog?: boolean;
}

/** The whole report. */
export interface DoctorReport {
  exitCode: 0 | 1 | 2;
  findings: Finding[];
  dbPath?: string;
  configPath?: string;
}

/** Options for {@linkcode runDoctor}. */
export interface DoctorOptions {
  flags?: ConfigFlags;
  deep?: boolean;
  /** Backlog warnings fail the exit code too (`mema doctor --strict`). */
  strict?: boolean;
}

function message(error: unknown): string {
  if (isMemaError(error)) return error.reason;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Identity is judged where doctor can see it: flags, environment, config file. MCP clients
 * usually pass it in their own "env" block, which doctor cannot read, so no identity here is
 * not a problem; half of one (a client without an agent id, or the reverse) is.
 */
function checkIdentity(config: MemaConfig, findings: Finding[]): void {
  if (config.client && config.agentId) {
    findings.push({
      check_id: "config.identity",
      severity: "info",
      title: "identity is set",
      detail:
        `client "${config.client}" (${config.sources.client}), agent "${config.agentId}" (${config.sources.agentId})`,
    });
    return;
  }
  if (!config.client && !config.agentId) {
    findings.push({
      check_id: "config.identity",
      severity: "info",
      title: "no identity here; each MCP client sets its own",
      detail: "`mema serve` over stdio needs MEMA_CLIENT and MEMA_AGENT_ID, usually from the " +
        '"env" block of the client\'s MCP config, which doctor cannot see',
      fix_hint: "to check one client's identity: mema doctor --client NAME --agent-id ID",
    });
    return;
  }
  const [set, missing] = config.client
    ? [`client "${config.client}" (${config.sources.client})`, "agent id (MEMA_AGENT_ID)"]
    : [`agent "${config.agentId}" (${config.sources.agentId})`, "client (MEMA_CLIENT)"];
  findings.push({
    check_id: "config.identity",
    severity: "warning",
    title: `half an identity: no ${missing}`,
    detail: `${set} is set, but \`mema serve\` refuses to start without the ${missing} too`,
    fix_hint:
      `set both in each MCP client's "env" block, or "client" and "agent_id" in ${config.configPath}`,
  });
}

function checkDatabase(
  config: MemaConfig,
  deep: boolean,
  findings: Finding[],
): DatabaseProbe | undefined {
  const path = config.dbPath;
  if (!pathExists(path)) {
    const dir = dirName(path);
    const creatable = !pathExists(dir) || isDirWritable(dir);
    findings.push({
      check_id: "database.exists",
      // A fresh install: nothing is wrong until the file cannot be created.
      severity: creatable ? "info" : "critical",
      title: "the database does not exist yet",
      detail: `${path} will be created by the first \`mema serve\``,
      fix_hint: creatable
        ? "start `mema serve` once"
        : `the directory ${dir} is not writable; set MEMA_DB_PATH`,
    });
    return;
  }
  let probe: DatabaseProbe;
  try {
    probe = probeDatabase(path, { deep });
  } catch (error) {
    findings.push({
      check_id: "database.open",
      severity: "critical",
      title: "the database cannot be opened",
      detail: `${path}: ${message(error)}`,
      fix_hint:
        "check that MEMA_DB_PATH points at a mema SQLite file; restore it from a backup if it is damaged",
    });
    return undefined;
  }
  const writable = isFileWritable(path) && isDirWritable(dirName(path));
  findings.push({
    check_id: "database.writable",
    severity: writable ? "info" : "critical",
    title: writable ? "the database is writable" : "the database is not writable",
    detail: writable ? path : `${path} or its directory cannot be written by this user`,
    fix_hint: writable
      ? undefined
      : "fix the file permissions or set MEMA_DB_PATH to a writable location",
  });
  if (probe.generation === undefined) {
    const kind = inspectDatabase(path);
    findings.push(
      kind.kind === "seed"
        ? {
          check_id: "database.schema_generation",
          severity: "critical",
          title: "an upgrade is due",
          detail: `${path} is ${kind.label}; this mema serves it only once upgraded`,
          fix_hint:
            "run `mema upgrade` (it builds a new database beside this one and switches db_path)",
        }
        : {
          check_id: "database.schema_generation",
          severity: "critical",
          title: "not a mema database",
          detail: `${path} has tables but no mema schema generation`,
          fix_hint: "point MEMA_DB_PATH at a mema database or a new file",
        },
    );
    return undefined;
  }
  if (probe.generation !== SCHEMA_GENERATION) {
    const newer = probe.generation > SCHEMA_GENERATION;
    findings.push({
      check_id: "database.schema_generation",
      severity: probe.generation === 0 ? "warning" : newer ? "critical" : "warning",
      title: probe.generation === 0
        ? "the database is empty"
        : `schema generation ${probe.generation}`,
      detail: `this mema writes generation ${SCHEMA_GENERATION}`,
      fix_hint: newer
        ? "install the newer mema that wrote it"
        : "start `mema serve` once to prepare it",
    });
    if (probe.generation === 0) return undefined;
  } else {
    findings.push({
      check_id: "database.schema_generation",
      severity: "info",
      title: `schema generation ${probe.generation}`,
      detail: `memories by status: ${JSON.stringify(probe.counts)}`,
    });
  }
  if (probe.copyIncomplete !== undefined) {
    findings.push(copyIncompleteFinding(probe.copyIncomplete));
  }
  const total = Object.values(probe.counts).reduce((a, b) => a + b, 0);
  if (probe.fts !== "trigram" && probe.fts !== "words") {
    findings.push({
      check_id: "fts.available",
      severity: "warning",
      title: "no full-text index",
      detail: "this database was created by a SQLite without FTS5; recall uses LIKE",
      fix_hint: "use a SQLite build with FTS5 (Deno's node:sqlite has it)",
    });
  } else if (probe.ftsRows !== total || (probe.wordRows ?? total) !== total) {
    findings.push({
      check_id: "fts.consistency",
      severity: "warning",
      title: "the full-text index is out of step",
      detail: probe.fts === "words"
        ? `${probe.ftsRows} index rows for ${total} memories`
        : `${probe.ftsRows} trigram and ${
          probe.wordRows ?? "no"
        } word-index rows for ${total} memories`,
      fix_hint:
        "start `mema serve` once: it checks the full-text index once it answers and rebuilds it",
    });
  } else {
    findings.push({
      check_id: "fts.consistency",
      severity: "info",
      title: "the full-text index matches the memories",
      detail: `${total} memories indexed`,
    });
  }
  if (deep) {
    const ok = probe.quickCheck === "ok";
    findings.push({
      check_id: "database.quick_check",
      severity: ok ? "info" : "critical",
      title: ok ? "PRAGMA quick_check passed" : "PRAGMA quick_check found damage",
      detail: probe.quickCheck ?? "not run",
      fix_hint: ok ? undefined : "restore from a backup; copy the file before any repair attempt",
    });
  }
  return probe;
}

async function checkVec(config: MemaConfig, findings: Finding[]): Promise<void> {
  try {
    const vec = await probeVecExtension(config.cacheDir);
    findings.push({
      check_id: "capabilities.sqlite_vec",
      severity: "info",
      title: "sqlite-vec loads",
      detail: `${vec.version} from ${vec.path}`,
    });
  } catch (error) {
    findings.push({
      check_id: "capabilities.sqlite_vec",
      severity: "warning",
      title: "sqlite-vec cannot be loaded",
      detail: message(error),
      fix_hint:
        `check that ${config.cacheDir} is writable and the npm package sqlite-vec is installed for this platform`,
    });
  }
}

/**
 * docs/SPEC.md §11's vector chain, one finding per link: model configured → files
 * present → extension loaded (checked above) → dimension matches → index ready.
 */
function checkVectorChain(
  config: MemaConfig,
  probe: DatabaseProbe | undefined,
  findings: Finding[],
): void {
  if (!config.embeddingModel) {
    findings.push({
      check_id: "vector.model_configured",
      severity: "info",
      title: "no embedding model configured",
      detail: "recall is lexical (FTS5 BM25 with subject and tag scoring)",
      fix_hint:
        "`mema setup --model static-wink-100d` (offline) or `mema setup --install` for semantic recall",
    });
    return;
  }
  // The model runtime is installed by `mema setup` or on first use (src/models/model_stack.ts).
  const runtime = modelStackInstalled("transformers");
  findings.push({
    check_id: "vector.model_runtime",
    severity: "info",
    title: runtime ? "the model runtime is installed" : "the model runtime is not installed yet",
    detail: runtime
      ? `${MODEL_STACK.transformers.name}@${MODEL_STACK.transformers.version}`
      : "the server installs it from npm the first time it loads the model",
    fix_hint: runtime ? undefined : "`mema setup --model <id>` installs it now",
  });
  let located;
  try {
    located = locateEmbeddingModel({
      modelId: config.embeddingModel,
      modelsDir: config.modelsDir,
      manifestPath: config.manifestPath,
    });
  } catch (error) {
    findings.push({
      check_id: "vector.model_configured",
      severity: "warning",
      title: "the configured embedding model is unknown",
      detail: message(error),
      fix_hint: "set embedding_model to an id from models.manifest.json",
    });
    return;
  }
  findings.push({
    check_id: "vector.model_configured",
    severity: "info",
    title: `embedding model ${located.entry.id}`,
    detail: `${located.entry.dim} dimensions, from ${located.dir}`,
  });
  const onnx = `${located.dir}/${onnxFileFor(located.entry)}`;
  const present = located.available && (located.entry.builtin ? true : pathExists(onnx));
  findings.push({
    check_id: "vector.model_files",
    severity: present ? "info" : "warning",
    title: present
      ? (located.entry.builtin && !pathExists(onnx)
        ? "built-in model will be built on first use"
        : "model files are present")
      : "model files are missing",
    detail: present ? onnx : located.problem?.reason ?? onnx,
    fix_hint: present ? undefined : located.problem?.fix,
  });
  const facts = probe?.evidence;
  if (!facts) return;
  if (facts.vecDim !== undefined && facts.vecDim !== located.entry.dim) {
    findings.push({
      check_id: "vector.dimension",
      severity: "warning",
      title: "the vector index has another dimension than the model",
      detail: `index ${facts.vecDim}, model ${located.entry.dim}`,
      fix_hint: 'run memory_repair {"task": "rebuild_evidence"}',
    });
  }
  const prefix = `${located.entry.id}:${located.entry.dim}:`;
  if (facts.space !== undefined && !facts.space.startsWith(prefix)) {
    findings.push({
      check_id: "vector.index",
      severity: "warning",
      title: "the vector index belongs to another model (mismatch)",
      detail: `index built with ${facts.space}; vector recall is off until it is rebuilt`,
      fix_hint: 'run memory_repair {"task": "rebuild_evidence"} (dry_run first)',
    });
  } else {
    findings.push(vectorCoverageFinding(facts));
  }
  checkPoisonedJobs(facts, findings);
}

/** Background jobs that gave up (any model, local or a server's). */
function checkPoisonedJobs(
  facts: NonNullable<DatabaseProbe["evidence"]>,
  findings: Finding[],
): void {
  const poisoned = Object.entries(facts.jobs)
    .reduce((sum, [, byStatus]) => sum + (byStatus.poisoned ?? 0), 0);
  if (poisoned > 0) {
    findings.push({
      check_id: "jobs.poisoned",
      severity: "warning",
      title: `${poisoned} background jobs gave up after repeated failures`,
      detail: JSON.stringify(facts.jobs),
      fix_hint: "check the server's stderr for the cause, then run rebuild_evidence",
    });
  }
}

/** The vector chain of the local model, or the model server's endpoint and index. */
async function checkModel(
  config: MemaConfig,
  probe: DatabaseProbe | undefined,
  findings: Finding[],
): Promise<void> {
  if (!config.embeddingProvider) return checkVectorChain(config, probe, findings);
  findings.push(...await providerFindings(config.embeddingProvider, probe?.evidence));
  if (probe?.evidence) checkPoisonedJobs(probe.evidence, findings);
}

/** Conflict backlogs and scan freshness (docs/SPEC.md §8, §11). */
function checkConflicts(
  config: MemaConfig,
  probe: DatabaseProbe | undefined,
  findings: Finding[],
): void {
  const backlog = probe?.conflicts;
  if (!backlog) return;
  findings.push(...backlogFindings(backlog));
  if (backlog.applyingConflicts > 0) {
    findings.push({
      check_id: "conflicts.applying",
      severity: "warning",
      title: `${backlog.applyingConflicts} conflict(s) are half applied`,
      detail: "a judged plan has steps left (or a failed step)",
      fix_hint:
        "finish them with memory_govern apply_conflict_action / replan_conflict / resolve_conflict",
    });
  }
  const memories = probe.counts.active ?? 0;
  const last = lastScanTime(config.dbPath);
  // Never scanned: the scan is overdue only once the database itself is older than the
  // scan interval (a fresh install has had no time to run one). Databases from before
  // `created_at` was recorded count as old.
  const since = last ?? probe.createdAt;
  const stale = since === undefined ||
    !(Date.now() - Date.parse(since) <= SCAN_STALE_DAYS * 86_400_000);
  const warn = stale && memories > 0;
  let detail: string;
  if (warn) {
    detail = `no full scan in the last ${SCAN_STALE_DAYS} days over ${memories} active memories`;
  } else if (memories === 0) detail = "no active memories to scan";
  else if (last !== undefined) detail = "fresh";
  else detail = `the database was created less than ${SCAN_STALE_DAYS} days ago (${since})`;
  findings.push({
    check_id: "conflicts.scan_freshness",
    severity: warn ? "warning" : "info",
    title: last === undefined ? "no full conflict scan has completed" : `last full scan ${last}`,
    detail,
    fix_hint: last === undefined || warn ? "run `mema scan` (add it to cron, hourly)" : undefined,
  });
}

/** Runs every check and computes the exit code. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const findings: Finding[] = [];
  let config: MemaConfig;
  try {
    config = loadConfig({ flags: options.flags });
  } catch (error) {
    findings.push({
      check_id: "config.valid",
      severity: "critical",
      title: "the configuration is invalid",
      detail: message(error),
      fix_hint: isMemaError(error) ? error.hint : undefined,
    });
    return { exitCode: 2, findings };
  }
  findings.push({
    check_id: "config.valid",
    severity: "info",
    title: config.configFileFound ? "config file is valid" : "no config file; defaults in use",
    detail: config.configPath,
  });
  checkIdentity(config, findings);
  if (config.dbUrl !== undefined) {
    // PostgreSQL: the server, its schema and extensions, the backlog; no SQLite file to check.
    findings.push(...await postgresFindings(config.dbUrl));
    await checkModel(config, undefined, findings);
  } else {
    const probe = checkDatabase(config, options.deep ?? false, findings);
    await checkVec(config, findings);
    await checkModel(config, probe, findings);
    checkConflicts(config, probe, findings);
  }
  findings.push(...judgeFindings(config));
  findings.push(...httpTokenFindings(config.http));
  // A backlog is work for the user, not a broken install: CI fails on it only when asked.
  const worst = findings.some((f) => f.severity === "critical")
    ? 2
    : findings.some((f) => f.severity === "warning" && (options.strict || !f.backlog))
    ? 1
    : 0;
  return { exitCode: worst, findings, dbPath: config.dbPath, configPath: config.configPath };
}
