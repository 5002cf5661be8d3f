/**
 * How much of the library the vector index covers: the one finding the local model's check
 * and the embedding provider's check both end with, once the index is known to belong to the
 * model in use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { vectorCoverageFinding } from "./vector_index_check.ts";
 *
 * const finding = vectorCoverageFinding({ space: "m:384:x", embedded: 3, rows: 4, memoriesMissingRows: 0 });
 * assert.equal(finding.severity, "warning");
 * assert.equal(finding.title, "the vector index is incomplete");
 * ```
 * @module
 */
import type { DatabaseProbe } from "../store/mod.ts";
import type { Finding } from "./mod.ts";

/** The index facts the finding reads. */
export type VectorIndexFacts = Pick<
  NonNullable<DatabaseProbe["evidence"]>,
  "space" | "embedded" | "rows" | "memoriesMissingRows"
>;

/** `vector.index`: ready when every row is embedded and every memory has rows. */
export function vectorCoverageFinding(facts: VectorIndexFacts): Finding {
  const complete = facts.space !== undefined && facts.embedded === facts.rows &&
    facts.memoriesMissingRows === 0;
  return {
    check_id: "vector.index",
    severity: complete || facts.rows === 0 ? "info" : "warning",
    title: complete ? "the vector index is ready" : "the vector index is incomplete",
    detail:
      `${facts.embedded} of ${facts.rows} rows embedded; ${facts.memoriesMissingRows} memories without rows`,
    fix_hint: complete
      ? undefined
      : "keep `mema serve` running (it embeds in the background) or run rebuild_evidence",
  };
}
