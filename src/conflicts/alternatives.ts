/**
 * Exclusive alternatives: two rows that name different values of one closed attribute in their
 * own words ("Mike commutes by car" / "Mike now takes the train to work"). The sentence reader
 * compares shared words, and such rows share little besides the subject; the closed groups of
 * {@link EXCLUSIVE_ALTERNATIVES} say the two values exclude each other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exclusiveAlternative } from "./alternatives.ts";
 *
 * assert.deepEqual(
 *   exclusiveAlternative("The newsletter is sent weekly.", "The newsletter went monthly."),
 *   { group: "frequency", a: "weekly", b: "monthly" },
 * );
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import { RULE_TEXT_READS_KEPT } from "./constants.ts";
import { ALTERNATIVE_CHANGE_MARKERS, EXCLUSIVE_ALTERNATIVES, STOPWORDS } from "./lexicon.ts";
import { stem } from "./sentence.ts";

/** Two different members of one group, one named in each row. */
export interface Alternative {
  group: string;
  a: string;
  b: string;
}

const HAN = /\p{Script=Han}/u;

function phraseRegex(phrase: string): RegExp {
  const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return HAN.test(phrase)
    ? new RegExp(escaped, "u")
    : new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, "iu");
}

/**
 * A member's phrase, its pattern compiled on first use (compiling them all cost every start
 * ~0.1 s), and the lower-cased phrase a row must contain before the pattern is tried.
 */
class MemberPhrase {
  readonly lower: string;
  #regex: RegExp | undefined;
  constructor(readonly phrase: string) {
    this.lower = phrase.toLowerCase();
  }

  get regex(): RegExp {
    return this.#regex ??= phraseRegex(this.phrase);
  }
}

const GROUPS = Object.entries(EXCLUSIVE_ALTERNATIVES).map(([group, members]) => ({
  group,
  members: members.map((phrases) =>
    // Longest first, so "travis ci" is cut out whole.
    [...phrases].sort((x, y) => y.length - x.length).map((phrase) => new MemberPhrase(phrase))
  ),
}));

const MARKERS = ALTERNATIVE_CHANGE_MARKERS.map(phraseRegex);

/** A question, a plan, a past told as past: not a present value. */
const NOT_PRESENT =
  /\?|？|\b(?:will|shall|going to|plans? to|used to|previously|formerly|until|last year|as a child)\b|以前|曾经|计划|打算|吗/iu;

/**
 * A member followed by a content word qualifies that word ("the monthly fee", "GitHub Actions
 * minutes"): it names which thing, not the value the row states.
 */
function attributive(text: string, match: RegExpMatchArray): boolean {
  if (HAN.test(match[0])) return false;
  const next = text.slice((match.index ?? 0) + match[0].length).match(/^\s+([\p{L}][\p{L}'-]*)/u);
  return next !== null && !STOPWORDS.has(next[1].toLowerCase()) &&
    !MARKERS.some((marker) => marker.test(next[1]));
}

/** A member of an exclusive group a row names, with the words left once it is cut out. */
interface NamedMember {
  group: string;
  member: number;
  phrase: string;
  rest: string;
}

/** Rows read recently: a row is compared with the rows of several neighbours. */
const NAMED_READS = new BoundedMap<string, readonly NamedMember[]>(RULE_TEXT_READS_KEPT);

/** The members of each group a row names (shared readings: callers must not change them). */
function named(text: string): readonly NamedMember[] {
  const known = NAMED_READS.get(text);
  if (known) return known;
  const found = namedOnce(text);
  NAMED_READS.set(text, found);
  return found;
}

function namedOnce(text: string): NamedMember[] {
  const found: NamedMember[] = [];
  const lower = text.toLowerCase();
  for (const { group, members } of GROUPS) {
    members.forEach((phrases, member) => {
      for (const candidate of phrases) {
        if (!lower.includes(candidate.lower)) continue;
        const regex = candidate.regex;
        const match = text.match(regex);
        if (!match || attributive(text, match)) continue;
        found.push({ group, member, phrase: match[0], rest: text.replace(regex, " ") });
        return;
      }
    });
  }
  return found;
}

/** The row's first content word, stemmed: the subject the rows must share. */
function lead(text: string): string | undefined {
  if (HAN.test(text)) {
    // A Chinese row opens with its subject; two characters name it well enough ("小王").
    const han = text.replace(/[^\p{Script=Han}]/gu, "");
    return han.length >= 2 ? han.slice(0, 2) : undefined;
  }
  for (const word of text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []) {
    const lower = word.toLowerCase();
    if (!STOPWORDS.has(lower)) return stem(lower.replace(/'s$/u, ""));
  }
  return undefined;
}

/** Content words (stemmed) the two rows share. */
function sharedWords(a: string, b: string): number {
  const words = (text: string) =>
    new Set(
      (text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).map((word) => word.toLowerCase())
        .filter((word) => !STOPWORDS.has(word) && !MARKERS.some((marker) => marker.test(word)))
        .map((word) => stem(word)),
    );
  const left = words(a);
  return [...words(b)].filter((word) => left.has(word)).length;
}

/**
 * The group and the two members when the rows name different members of one exclusive group,
 * each row only one of that group, both open with the same subject, and exactly one row names
 * a change ("now", "switched", "went", "改为"). Questions, plans and past states are left out.
 */
export function exclusiveAlternative(a: string, b: string): Alternative | undefined {
  if (NOT_PRESENT.test(a) || NOT_PRESENT.test(b)) return undefined;
  const left = named(a);
  const right = named(b);
  for (const x of left) {
    const others = right.filter((y) => y.group === x.group);
    const mine = left.filter((y) => y.group === x.group);
    if (others.length !== 1 || mine.length !== 1 || others[0].member === x.member) continue;
    const y = others[0];
    // The same subject: the same first word, or two words shared beside the values ("The
    // team prefers Slack for quick questions" / "quick questions now go to Teams chat").
    const subject = lead(x.rest);
    if (!subject || (subject !== lead(y.rest) && sharedWords(x.rest, y.rest) < 2)) continue;
    // A possessive subject on one side only ("Mike's wife") is someone else.
    if (/^\s*\S+['’]s\b/u.test(a) !== /^\s*\S+['’]s\b/u.test(b)) continue;
    const changeA = MARKERS.some((marker) => marker.test(x.rest));
    const changeB = MARKERS.some((marker) => marker.test(y.rest));
    if (changeA === changeB) continue;
    return { group: x.group, a: x.phrase, b: y.phrase };
  }
  return undefined;
}
