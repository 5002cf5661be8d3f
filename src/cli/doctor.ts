/**
 * `mema doctor [--json] [--deep] [--strict] [--db PATH] [--config PATH] [--client NAME]
 * [--agent-id ID]`: exit 0 clean, 1 warnings, 2 criticals. Backlog warnings (open conflicts,
 * notices, scan queue items waiting for a decision) count only with `--strict`. `--client`/`--agent-id` check the identity one MCP
 * client passes, exactly as `mema serve` would take it.
 * @module
 */
import { type Finding, runDoctor } from "../doctor/mod.ts";
import { VERSION } from "../version.ts";
import { type CommandSpec, parseCommandArgs } from "./command.ts";

const MARK: Record<Finding["severity"], string> = {
  info: "ok  ",
  warning: "WARN",
  critical: "CRIT",
};

/**
 * Version of `mema doctor --json`'s layout (documented in docs/commands.md). Bumped when a field is
 * removed or changes meaning; new fields may appear within a version.
 */
export const DOCTOR_JSON_SCHEMA_VERSION = 1;

const STATUS = ["healthy", "warnings", "critical"] as const;

/** `mema doctor --json` (schema version 1). */
export interface DoctorJson {
  schema_version: number;
  mema_version: string;
  status: (typeof STATUS)[number];
  exit_code: number;
  /** Whether backlog warnings counted toward the exit code (`--strict`). */
  strict: boolean;
  database?: string;
  config?: string;
  findings: Finding[];
}

/** `mema doctor`: its help and flags. */
export const doctorSpec: CommandSpec = {
  name: "doctor",
  summary: "check config, identity, database and capabilities",
  usage: [
    "doctor [--json] [--deep] [--strict] [--db PATH] [--config PATH] [--client NAME] [--agent-id ID]",
  ],
  description: [
    "Prints one line per check (ok, WARN, CRIT) with a fix. A fresh, healthy install exits 0,",
    "so `mema doctor` can gate CI. A backlog (open conflicts, notices or scan queue items",
    "waiting for a decision) is a warning that fails the exit code only with --strict.",
    "--json prints one object whose layout is versioned by its",
    '"schema_version" field (see the README).',
  ].join("\n"),
  flags: {
    json: { type: "boolean", help: "print the findings as JSON (schema_version 1)" },
    deep: { type: "boolean", help: "also run PRAGMA quick_check over the database file" },
    strict: {
      type: "boolean",
      help: "backlog warnings (conflicts, notices, scan queue) fail the exit code too",
    },
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
    client: {
      type: "string",
      value: "NAME",
      help: "check this client's identity as serve takes it",
    },
    "agent-id": { type: "string", value: "ID", help: "with --client: the agent id to check" },
  },
  exitCodes: { 0: "healthy", 1: "warnings", 2: "critical problems (or a bad command line)" },
  run: doctorCommand,
};

/** Runs `mema doctor` and returns its exit code. */
export async function doctorCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(doctorSpec, args);
  const report = await runDoctor({
    flags: {
      dbPath: flags.string("db"),
      configPath: flags.string("config"),
      client: flags.string("client"),
      agentId: flags.string("agent-id"),
    },
    deep: flags.boolean("deep"),
    strict: flags.boolean("strict"),
  });
  if (flags.boolean("json")) {
    const json: DoctorJson = {
      schema_version: DOCTOR_JSON_SCHEMA_VERSION,
      mema_version: VERSION,
      status: STATUS[report.exitCode],
      exit_code: report.exitCode,
      strict: flags.boolean("strict"),
      database: report.dbPath,
      config: report.configPath,
      findings: report.findings,
    };
    console.log(JSON.stringify(json, null, 2));
    return report.exitCode;
  }
  for (const finding of report.findings) {
    console.log(`${MARK[finding.severity]} ${finding.check_id}: ${finding.title}`);
    console.log(`     ${finding.detail}`);
    if (finding.fix_hint) console.log(`     fix: ${finding.fix_hint}`);
  }
  const verdict = ["healthy", "warnings", "critical problems"][report.exitCode];
  const waived = flags.boolean("strict")
    ? 0
    : report.findings.filter((f) => f.backlog && f.severity === "warning").length;
  const note = waived > 0
    ? `; ${waived} backlog warning${waived === 1 ? "" : "s"} above (they fail only with --strict)`
    : "";
  console.log(`\nmema doctor: ${verdict}${note} (exit ${report.exitCode})`);
  return report.exitCode;
}
