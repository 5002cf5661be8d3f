/**
 * `mema doctor` on a PostgreSQL `db_url` (issue 33): the connection and the server's version,
 * the schema version against this build's, the `pg_trgm` extension recall needs, which vector
 * path is active (pgvector is detected and named), and the backlog. Nothing is changed, and
 * the URL is shown with its password redacted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { postgresFindings } from "./postgres_check.ts";
 *
 * // Nothing listens on port 1: one critical finding, and no password in it.
 * const findings = await postgresFindings("postgres://team:s3cret@127.0.0.1:1/mema");
 * assert.equal(findings[0].check_id, "database.connection");
 * assert.equal(findings[0].severity, "critical");
 * assert.ok(!JSON.stringify(findings).includes("s3cret"));
 * ```
 * @module
 */
import { isMemaError } from "../errors/mod.ts";
import { type PostgresProbe, probePostgresDatabase } from "../store/mod.ts";
import { backlogFindings } from "./backlog_check.ts";
import { copyIncompleteFinding } from "./copy_check.ts";
import type { Finding } from "./mod.ts";

/** Every PostgreSQL finding for the database at `url`. */
export async function postgresFindings(url: string): Promise<Finding[]> {
  let probe: PostgresProbe;
  try {
    probe = await probePostgresDatabase(url);
  } catch (error) {
    return [{
      check_id: "database.connection",
      severity: "critical",
      title: "the PostgreSQL database does not answer",
      detail: isMemaError(error) ? error.reason : "the connection failed",
      fix_hint: isMemaError(error) ? error.hint : undefined,
    }];
  }
  const findings: Finding[] = [{
    check_id: "database.connection",
    severity: "info",
    title: "the PostgreSQL database answers",
    detail: `postgresql ${probe.database}, PostgreSQL ${probe.serverVersion}`,
  }];
  const { schemaVersion: at, expectedSchemaVersion: wanted } = probe;
  findings.push(
    at === wanted
      ? {
        check_id: "database.schema_version",
        severity: "info",
        title: `schema version ${at}`,
        detail: `memories by status: ${JSON.stringify(probe.counts ?? {})}`,
      }
      : {
        check_id: "database.schema_version",
        severity: at > wanted ? "critical" : "warning",
        title: at === 0 ? "mema has not prepared this database yet" : `schema version ${at}`,
        detail: `this mema writes schema version ${wanted}`,
        fix_hint: at > wanted
          ? "install the newer mema that wrote it"
          : "start `mema serve` once: it migrates the schema",
      },
  );
  if (probe.copyIncomplete !== undefined) {
    findings.push(copyIncompleteFinding(probe.copyIncomplete));
  }
  findings.push(
    probe.extensions.pg_trgm !== null
      ? {
        check_id: "database.pg_trgm",
        severity: "info",
        title: "pg_trgm is installed",
        detail: `version ${probe.extensions.pg_trgm}: substring and Chinese/Japanese matches`,
      }
      : {
        check_id: "database.pg_trgm",
        // A database mema never opened has no extension yet; the first start creates it.
        severity: at === 0 ? "warning" : "critical",
        title: "pg_trgm is not installed",
        detail: "recall needs it for substring and Chinese/Japanese matches",
        fix_hint:
          "install PostgreSQL's contrib package, then start `mema serve` (it runs CREATE EXTENSION pg_trgm)",
      },
  );
  findings.push({
    check_id: "vector.path",
    severity: "info",
    title: probe.extensions.vector === null ? "pgvector is not installed" : "pgvector is installed",
    detail: `vector search runs in ${probe.vectorPath}`,
  });
  if (probe.backlog !== undefined) {
    findings.push(...backlogFindings(probe.backlog));
    if (probe.backlog.applyingConflicts > 0) {
      findings.push({
        check_id: "conflicts.applying",
        severity: "warning",
        title: `${probe.backlog.applyingConflicts} conflict(s) are half applied`,
        detail: "a judged plan has steps left (or a failed step)",
        fix_hint:
          "finish them with memory_govern apply_conflict_action / replan_conflict / resolve_conflict",
      });
    }
  }
  return findings;
}
