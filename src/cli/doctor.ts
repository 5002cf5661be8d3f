/**
 * `mema doctor [--json] [--deep] [--db PATH] [--config PATH] [--client NAME] [--agent-id ID]`:
 * exit 0 clean, 1 warnings, 2 criticals. `--client`/`--agent-id` check the identity one MCP
 * client passes, exactly as `mema serve` would take it.
 * @module
 */
import { parseArgs } from "node:util";
import { type Finding, runDoctor } from "../doctor/mod.ts";

const MARK: Record<Finding["severity"], string> = {
  info: "ok  ",
  warning: "WARN",
  critical: "CRIT",
};

/** Runs `mema doctor` and returns its exit code. */
export async function doctorCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      json: { type: "boolean", default: false },
      deep: { type: "boolean", default: false },
      db: { type: "string" },
      config: { type: "string" },
      client: { type: "string" },
      "agent-id": { type: "string" },
    },
    strict: true,
  });
  const report = await runDoctor({
    flags: {
      dbPath: values.db,
      configPath: values.config,
      client: values.client,
      agentId: values["agent-id"],
    },
    deep: values.deep,
  });
  if (values.json) {
    console.log(JSON.stringify(
      {
        exit_code: report.exitCode,
        database: report.dbPath,
        config: report.configPath,
        findings: report.findings,
      },
      null,
      2,
    ));
    return report.exitCode;
  }
  for (const finding of report.findings) {
    console.log(`${MARK[finding.severity]} ${finding.check_id}: ${finding.title}`);
    console.log(`     ${finding.detail}`);
    if (finding.fix_hint) console.log(`     fix: ${finding.fix_hint}`);
  }
  const verdict = ["healthy", "warnings", "critical problems"][report.exitCode];
  console.log(`\nmema doctor: ${verdict} (exit ${report.exitCode})`);
  return report.exitCode;
}
