/**
 * Choices a row makes: what it takes and what it turns down. "Use pnpm, not npm, to install
 * the frontend dependencies" takes pnpm and turns npm down; "Install the frontend dependencies
 * with npm; pnpm is no longer used" takes npm and turns pnpm down. Both rows say the same
 * words with a negation each, so polarity alone reads them as one statement; what differs is
 * which item sits on which side of the "not".
 *
 * A clause (between commas, semicolons, "but") that holds a refusal ("not", "never", "no
 * longer", "any more", "stopped") turns down its content words; after "instead of" / "rather
 * than" the rest of the clause is turned down, and so is what a preference puts after "over"
 * ("prefers email over phone calls"). Every other content word is taken.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reversedChoice } from "./choices.ts";
 *
 * const choice = reversedChoice("Use pnpm, not npm.", "Use npm; pnpm is no longer used.");
 * assert.equal(choice?.a, "pnpm");
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import {
  RULE_REVERSAL_MIN_FRAME,
  RULE_REVERSAL_ONE_WAY_MIN_FRAME,
  RULE_TEXT_READS_KEPT,
} from "./constants.ts";
import { STOPWORDS } from "./lexicon.ts";
import { stem } from "./sentence.ts";

/** What a row takes and turns down, as stems, with a surface form for each. */
export interface Choices {
  taken: Set<string>;
  refused: Set<string>;
  surface: Map<string, string>;
  /** The words of the scope a preference is limited to ("over spaces in Go code": go, code). */
  scoped: Set<string>;
}

const CLAUSE = /[,;:.!?，；：。！？]|\bbut\b|\band then\b|但是|但/iu;
const REFUSAL =
  /\b(?:not|never|no longer|any ?more|stopped|stop|dropped|don't|doesn't|isn't|aren't|wasn't|weren't|won't)\b|n't\b|不要|不再|不用|别再|停用|禁止|不能/iu;
/**
 * Chinese is read one character at a time, as the sentence reader does; these characters are
 * the refusal, "use" and "change to" themselves ("不再用", "改用"), not what is chosen.
 */
const HAN_FUNCTION = new Set([..."不要再用使采别停禁止能改换的了是请"]);
const HAN_RUN = /\p{Script=Han}+/gu;
const INSTEAD = /\b(?:instead of|rather than)\b/iu;
/**
 * "Tom prefers email over phone calls", "I'd choose tea over coffee": a preference verb, then
 * what it takes, then "over" and what it turns down, up to the next preposition ("tabs over
 * spaces in Go code": the scope is taken, not refused).
 */
const PREFER_OVER =
  /\b(?:prefers?|preferred|preferring|favou?rs?|favou?red|chooses?|chose|picks?|picked)\b(.+?)\bover\b(.+)/iu;
const SCOPE_START = /\b(?:in|on|at|for|when|during|with|by|from|because)\b/iu;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'+.-]*[\p{L}\p{N}+]|[\p{L}\p{N}]/gu;
/**
 * Words every refusal and its counterpart share ("use", "used", "allowed", "there"): taken in
 * one row and refused in the other they say nothing about which item was chosen.
 */
const GENERIC = new Set(
  [
    "use",
    "used",
    "using",
    "uses",
    "allowed",
    "allow",
    "part",
    "setup",
    "there",
    "here",
    "now",
    "longer",
    "more",
    "any",
    "anymore",
    "stopped",
    "stop",
    "taking",
    "take",
    "takes",
    "done",
    "do",
    "does",
    "instead",
    "rather",
  ].map((word) => stem(word)),
);

/** Content words as written (stopwords and refusal words left out). */
function contentWords(text: string): string[] {
  const han = [...(text.match(HAN_RUN) ?? [])].flatMap((run) => [...run])
    .filter((char) => !HAN_FUNCTION.has(char) && !STOPWORDS.has(char));
  return [...(text.replace(HAN_RUN, " ").match(WORD) ?? []), ...han].filter((word) => {
    const lower = word.toLowerCase();
    return !STOPWORDS.has(lower) &&
      !/^(?:not|never|no|don't|doesn't|isn't|aren't|won't)$/u.test(lower);
  });
}

/** Rows read recently: a row is compared with the rows of several neighbours. */
const CHOICE_READS = new BoundedMap<string, Readonly<Choices>>(RULE_TEXT_READS_KEPT);

/** Reads what a row takes and turns down (shared readings: callers must not change them). */
export function readChoices(text: string): Readonly<Choices> {
  const known = CHOICE_READS.get(text);
  if (known) return known;
  const choices = readChoicesOnce(text);
  CHOICE_READS.set(text, choices);
  return choices;
}

function readChoicesOnce(text: string): Choices {
  const taken = new Set<string>();
  const refused = new Set<string>();
  const surface = new Map<string, string>();
  const scoped = new Set<string>();
  const add = (set: Set<string>, words: readonly string[]) => {
    for (const word of words) {
      const key = stem(word.toLowerCase());
      if (GENERIC.has(key)) continue;
      set.add(key);
      if (!surface.has(key)) surface.set(key, word);
    }
  };
  for (const clause of text.split(CLAUSE)) {
    const instead = clause.match(INSTEAD);
    const over = instead ? null : clause.match(PREFER_OVER);
    if (over?.index !== undefined) {
      const scope = over[2].search(SCOPE_START);
      const refusedPart = scope < 0 ? over[2] : over[2].slice(0, scope);
      add(taken, contentWords(clause.slice(0, over.index + over[0].length - over[2].length - 4)));
      add(refused, contentWords(refusedPart));
      if (scope >= 0) {
        const words = contentWords(over[2].slice(scope));
        add(taken, words);
        for (const word of words) scoped.add(stem(word.toLowerCase()));
      }
    } else if (instead?.index !== undefined) {
      add(taken, contentWords(clause.slice(0, instead.index)));
      add(refused, contentWords(clause.slice(instead.index + instead[0].length)));
    } else if (REFUSAL.test(clause)) {
      add(refused, contentWords(clause));
    } else {
      add(taken, contentWords(clause));
    }
  }
  // A word both taken and refused in one row ("use Helm, not Helm 2") decides nothing.
  for (const key of [...taken]) {
    if (refused.has(key)) {
      taken.delete(key);
      refused.delete(key);
    }
  }
  return { taken, refused, surface, scoped };
}

/**
 * The item one row takes and the other turns down, when the rows are otherwise about the same
 * thing: both ways ("pnpm, not npm" / "npm; pnpm no longer"), or one way with most of the
 * remaining words shared ("squash, do not rebase" / "rebase; …").
 */
export function reversedChoice(
  textA: string,
  textB: string,
): { a: string; b: string; bothRefuse: boolean } | undefined {
  const a = readChoices(textA);
  const b = readChoices(textB);
  if (a.refused.size === 0 && b.refused.size === 0) return undefined;
  const aRefusesBTakes = [...a.refused].filter((key) => b.taken.has(key));
  const bRefusesATakes = [...b.refused].filter((key) => a.taken.has(key));
  if (aRefusesBTakes.length === 0 && bRefusesATakes.length === 0) return undefined;
  // "Prefer tabs over spaces in Go code" / "prefer spaces over tabs in Python code": each
  // preference holds in its own scope.
  const ownScope = (mine: Choices, theirs: Choices) =>
    [...mine.scoped].some((key) => !theirs.scoped.has(key));
  if (ownScope(a, b) && ownScope(b, a)) return undefined;
  const crossing = new Set([...aRefusesBTakes, ...bRefusesATakes]);
  const frame = (choices: Choices) =>
    new Set([...choices.taken, ...choices.refused].filter((key) => !crossing.has(key)));
  const frameA = frame(a);
  const frameB = frame(b);
  const shared = [...frameA].filter((key) => frameB.has(key)).length;
  const share = shared / Math.max(1, Math.min(frameA.size, frameB.size));
  const twoWay = aRefusesBTakes.length > 0 && bRefusesATakes.length > 0;
  // A row that is nothing but the choice ("请使用 pnpm，不要用 npm": use pnpm, not npm) has no
  // frame to share; crossing both ways is then the whole evidence.
  const bare = twoWay && Math.min(frameA.size, frameB.size) === 0;
  if (!bare && share < (twoWay ? RULE_REVERSAL_MIN_FRAME : RULE_REVERSAL_ONE_WAY_MIN_FRAME)) {
    return undefined;
  }
  // The value each row holds: what it takes of the crossing items.
  const held = (choices: Choices) =>
    [...crossing].filter((key) => choices.taken.has(key)).map((key) => choices.surface.get(key)!)
      .join(" ");
  return {
    a: held(a) || [...crossing].map((key) => a.surface.get(key)!).join(" "),
    b: held(b),
    bothRefuse: a.refused.size > 0 && b.refused.size > 0,
  };
}
