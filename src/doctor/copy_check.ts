/**
 * Doctor's word on a database a `mema copy` left unfinished (src/portability/copy.ts): every
 * server and command refuses it until the copy is run again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { copyIncompleteFinding } from "./copy_check.ts";
 *
 * const finding = copyIncompleteFinding("2026-12-06T02:00:00.000Z");
 * assert.equal(finding.severity, "critical");
 * ```
 * @module
 */
import type { Finding } from "./mod.ts";

/** The finding for a database whose copy started at `startedAt` and never finished. */
export function copyIncompleteFinding(startedAt: string): Finding {
  return {
    check_id: "database.copy_incomplete",
    severity: "critical",
    title: "an unfinished `mema copy` left this database incomplete",
    detail: `the copy started ${startedAt}; servers and commands refuse the database`,
    fix_hint: "run the same `mema copy SOURCE TARGET` again: it starts the copy over",
  };
}
