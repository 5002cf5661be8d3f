/**
 * Doctor's findings on the decisions waiting in a database (open conflicts, notices, scan
 * queue items), shared by the SQLite and PostgreSQL checks. A backlog is work for the user,
 * not a broken install: its warnings fail the exit code only under `--strict`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { backlogFindings } from "./backlog_check.ts";
 *
 * const findings = backlogFindings({ openConflicts: 150, pendingNotices: 0, scanQueuePending: 0 });
 * assert.equal(findings[0].severity, "warning");
 * assert.equal(findings[0].backlog, true);
 * ```
 * @module
 */
import type { Finding } from "./mod.ts";

/** Backlog size from which doctor warns (memory-arbiter used 100). */
export const BACKLOG_WARN = 100;

/** The decisions waiting, as counted by the store. */
export interface BacklogCounts {
  openConflicts: number;
  pendingNotices: number;
  scanQueuePending: number;
}

/** One finding per kind of decision waiting: info within limits, a backlog warning beyond. */
export function backlogFindings(backlog: BacklogCounts): Finding[] {
  const findings: Finding[] = [];
  const limits: [string, number, string, string][] = [
    [
      "conflicts.backlog",
      backlog.openConflicts,
      "open conflicts",
      'review them with memory_review {"view": "conflicts"} and decide each with memory judge (a chosen value, or verdict not_a_conflict)',
    ],
    [
      "notices.backlog",
      backlog.pendingNotices,
      "undismissed notices",
      'list them with memory_repair {"task": "notice", "data": {"action": "list"}}; clear them in one call with memory_repair {"task": "notice", "data": {"action": "dismiss", "all": true, "dry_run": false}} (or a filter instead of all, e.g. "workspace" and "agent_id": "mema-import" for one import)',
    ],
    [
      "conflicts.scan_queue_backlog",
      backlog.scanQueuePending,
      "scan queue items",
      'decide them with memory_repair {"task": "scan_queue", "data": {"action": "page"}} then submit',
    ],
  ];
  for (const [id, count, what, fix] of limits) {
    const over = count >= BACKLOG_WARN;
    findings.push({
      check_id: id,
      severity: over ? "warning" : "info",
      title: `${count} ${what}`,
      detail: over
        ? `at least ${BACKLOG_WARN} are waiting for a decision (a backlog: fails the exit code only with --strict)`
        : "within limits",
      fix_hint: over ? fix : undefined,
      ...(over ? { backlog: true } : {}),
    });
  }
  return findings;
}
