/**
 * The `extract` service: candidate facts from a summary or notes, read in the caller's time
 * zone at the current instant (src/extract/fact_candidates.ts does the reading). Nothing is
 * stored; a text too long is a clear error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extractCandidates } from "./mod.ts";
 *
 * const ctx = { settings: { timeZone: "UTC" } };
 * const facts = extractCandidates(ctx, { text: "Priya joined the Oslo team in March 2024." });
 * assert.equal(facts[0].text, "Priya joined the Oslo team in March 2024");
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { EXTRACT_TEXT_MAX } from "./constants.ts";
import { extractFacts, type FactCandidate } from "./fact_candidates.ts";

export type { FactCandidate } from "./fact_candidates.ts";

/** The candidate facts of `input.text`, best first; stores nothing. */
export function extractCandidates(
  ctx: { settings: Pick<ServiceContext["settings"], "timeZone"> },
  input: { text: string; now?: number },
): FactCandidate[] {
  if (input.text.trim() === "") {
    throw new MemaError("invalid_input", "text is empty", { field: "text" });
  }
  if (input.text.length > EXTRACT_TEXT_MAX) {
    throw new MemaError(
      "invalid_input",
      `text is longer than ${EXTRACT_TEXT_MAX} characters`,
      { field: "text", hint: "pass a summary or notes, or split a long text into parts" },
    );
  }
  return extractFacts(input.text, {
    now: input.now ?? Date.now(),
    timeZone: ctx.settings.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
}
