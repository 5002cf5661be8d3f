/**
 * Validity windows of memories (issue 34): when a fact was true, as `[valid_from, valid_to)`
 * ISO 8601 instants, either given by the caller or read from the fact's own words. A window
 * with an unknown edge is open on that side.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkValidity, holdsAt } from "./validity.ts";
 *
 * const given = checkValidity({ validFrom: "2024-03-01", validTo: "2024-07-01" });
 * assert.equal(given.validFrom, "2024-03-01T00:00:00.000Z");
 * const window = { validFrom: given.validFrom ?? null, validTo: given.validTo ?? null };
 * assert.equal(holdsAt(window, "2024-06-30T12:00:00.000Z"), true);
 * assert.equal(holdsAt(window, "2024-07-01T00:00:00.000Z"), false);
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { readValidityPhrases } from "../text/validity_phrases.ts";
import { normalizeTime } from "./normalize.ts";

/** A window as stored: either edge may be unknown (null). */
export interface ValidityWindow {
  validFrom: string | null;
  validTo: string | null;
}

/**
 * The window edges a caller passes (ISO 8601 dates or times). Null says the edge is known to
 * be unknown (an import restoring a fact exported without one): nothing is read from the text.
 */
export interface ValidityInput {
  validFrom?: string | null;
  validTo?: string | null;
}

/** One edge mema read from the text: which field, the instant, the words. */
export interface ValidityRead {
  field: "valid_from" | "valid_to";
  value: string;
  words: string;
}

/**
 * The caller's window, normalized; throws `invalid_input` for a date that is not one and for a
 * window that closes before it opens (`field` names the edge at fault, with `prefix`).
 */
export function checkValidity(
  input: ValidityInput,
  options: { prefix?: string } = {},
): { validFrom?: string | null; validTo?: string | null } {
  const prefix = options.prefix ?? "";
  const validFrom = input.validFrom == null
    ? input.validFrom
    : normalizeTime(input.validFrom, `${prefix}valid_from`);
  const validTo = input.validTo == null
    ? input.validTo
    : normalizeTime(input.validTo, `${prefix}valid_to`);
  if (validFrom != null && validTo != null && validFrom >= validTo) {
    throw new MemaError(
      "invalid_input",
      `valid_from (${validFrom}) must be before valid_to (${validTo})`,
      { field: `${prefix}valid_to`, hint: "a window runs from valid_from up to valid_to" },
    );
  }
  return {
    ...(validFrom !== undefined ? { validFrom } : {}),
    ...(validTo !== undefined ? { validTo } : {}),
  };
}

/**
 * The window a fact's text states unambiguously (src/text/validity_phrases.ts), read in `timeZone`
 * with dates lacking a year taken in the year of `reference` (the fact's event time, else now).
 */
export function validityFromText(
  text: string,
  options: { reference: string; timeZone: string },
): { window: ValidityWindow; read: ValidityRead[] } {
  const found = readValidityPhrases(text, {
    now: Date.parse(options.reference),
    timeZone: options.timeZone,
  });
  const read: ValidityRead[] = [];
  const iso = (at: number) => new Date(at).toISOString();
  if (found.from) {
    read.push({ field: "valid_from", value: iso(found.from.at), words: found.from.words });
  }
  if (found.to) read.push({ field: "valid_to", value: iso(found.to.at), words: found.to.words });
  return {
    window: {
      validFrom: found.from ? iso(found.from.at) : null,
      validTo: found.to ? iso(found.to.at) : null,
    },
    read,
  };
}

/** Whether a fact with this window held at `instant` (an unknown edge is open). */
export function holdsAt(window: ValidityWindow, instant: string): boolean {
  return (window.validFrom === null || window.validFrom <= instant) &&
    (window.validTo === null || instant < window.validTo);
}

/** Whether the window closed before `now`: the fact is no longer valid. */
export function endedBefore(window: ValidityWindow, now: string): boolean {
  return window.validTo !== null && window.validTo <= now;
}

/**
 * The window of a version being replaced: closed where its successor opens (`closeAt`), unless
 * it already closed earlier, or the successor opens before this one did (then it stays as it was).
 */
export function closedWindow(window: ValidityWindow, closeAt: string): ValidityWindow {
  if (window.validTo !== null && window.validTo <= closeAt) return window;
  if (window.validFrom !== null && closeAt <= window.validFrom) return window;
  return { validFrom: window.validFrom, validTo: closeAt };
}
