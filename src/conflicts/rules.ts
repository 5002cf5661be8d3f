/**
 * The conflict rule stage (docs/SPEC.md §8): decides, without a model, whether two evidence rows
 * look like a change of fact worth sending to the NLI judge, and says why. Pure and fast: a few
 * regular expressions and set operations per pair.
 *
 * How a pair is read:
 * 1. Both rows must talk about the same attribute: enough shared content words (values,
 *    stopwords and update phrases excluded), more when the memory subjects are disjoint.
 * 2. A row dated to the past ("used to", "previously", "in 2019" with a past tense) does not
 *    contradict a present-tense row: history and the current state are both true. A row that
 *    adds ("also", "as well") does not replace.
 * 3. The rows' difference must sit in one place. Values of the same dimension that differ
 *    (after unit normalization) are the number/date signal; a flipped polarity with the same
 *    words is the negation signal; one run of different words on each side is a different
 *    value for the same attribute; one-sided extra words count only with an update phrase.
 *    Two places that differ ("Alice likes tea" / "Bob likes coffee", "billing timeout 30s" /
 *    "search timeout 45s") are complementary facts about different subjects or attributes.
 * 4. Equal values in every shared dimension make a restatement, however reworded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assessPair } from "./rules.ts";
 *
 * const result = assessPair(
 *   { subject: "Atlas", text: "The Atlas deadline is Friday." },
 *   { subject: "Atlas", text: "The Atlas deadline moved to Monday." },
 * );
 * assert.equal(result.candidate, true);
 * assert.equal(result.kind, "date");
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import {
  RULE_CHANGE_MAX_EXTRA_WORDS,
  RULE_MAX_VALUE_WORDS,
  RULE_MIN_CANDIDATE_SCORE,
  RULE_MIN_OVERLAP_REWORDED_VALUE,
  RULE_MIN_SHARED_WORDS,
  RULE_MIN_TEXT_OVERLAP,
  RULE_MIN_TEXT_OVERLAP_DISJOINT_SUBJECTS,
  RULE_MIN_TEXT_OVERLAP_WITH_CHANGE,
  RULE_PLACE_MAX_WORDS,
  RULE_SCORE_WEIGHTS,
  RULE_SIGNAL_STRENGTH,
  RULE_STATED_WITHIN_MIN_WORDS,
  RULE_UPDATE_PHRASE_BONUS,
  RULE_VALUE_MAX_WORDS,
  RULE_VALUE_MIN_FRAME_WORDS,
  RULE_WINDOW_MIN_SHARE,
  RULE_WINDOW_PREFIX,
} from "./constants.ts";
import { exclusiveAlternative } from "./alternatives.ts";
import { reversedChoice } from "./choices.ts";
import { readClaim, withoutIdentifiers } from "./claims.ts";
import {
  EVALUATIVE_WORDS,
  MULTI_VALUED_VERBS,
  NEGATION_PHRASES,
  SOFT_UPDATE_PHRASES,
  STOPWORDS,
} from "./lexicon.ts";
import { ownWords, readSentence, type SentenceShape, stem, VALUE_SLOT } from "./sentence.ts";
import { joinSplitWords } from "./spelling.ts";

/** The evaluative words as the sentence reader stems them. */
const EVALUATIVE_STEMS: ReadonlySet<string> = new Set([...EVALUATIVE_WORDS].map(stem));
import { normalizeNumerals } from "../text/numerals.ts";
import { comparable, sameValue, type SentenceValue, timeWindow } from "./values.ts";

/** One side of a pair: an evidence row and the subject of its memory. */
export interface EvidenceSide {
  /** The memory's subject (title); optional. */
  subject?: string;
  /** The row's sentence. */
  text: string;
  /** When the fact was true or stated (ISO string, epoch ms or Date). */
  eventTime?: string | number | Date;
}

/** What kind of change a candidate pair shows. */
export type ConflictSignal = "number" | "date" | "negation" | "value" | "update_phrase";

/** The rule stage's decision on a pair. */
export interface PairAssessment {
  /** True when the pair should go to the judge. */
  candidate: boolean;
  /** The signal that made it a candidate. */
  kind?: ConflictSignal;
  /** 0..1; orders candidates (strongest first). Dropped pairs score what they reached. */
  score: number;
  /** Human-readable reasons, for the decision either way. */
  reasons: string[];
  /** The opposed values as written, when the signal has them. */
  values?: { a: string; b: string };
}

interface ValueComparison {
  differing: { a: SentenceValue; b: SentenceValue }[];
  agreeing: number;
  /** Rates of one dimension per different periods ("$5 per hour" / "$30 for the day"). */
  otherPeriod?: { a: SentenceValue; b: SentenceValue };
}

/**
 * Decides whether two rows look like a change of fact.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assessPair } from "./rules.ts";
 *
 * const sameDuration = assessPair(
 *   { text: "Retention is 3 days." },
 *   { text: "Retention is 72 hours." },
 * );
 * assert.equal(sameDuration.candidate, false);
 * const otherSubjects = assessPair({ text: "Alice likes tea." }, { text: "Bob likes coffee." });
 * assert.equal(otherSubjects.candidate, false);
 * ```
 */
export function assessPair(rowA: EvidenceSide, rowB: EvidenceSide): PairAssessment {
  const assessment = assessRows(rowA, rowB);
  const own = assessment.candidate && assessment.values
    ? ownSubjectValue(rowA.subject, assessment.values.a, rowB.subject, assessment.values.b)
    : undefined;
  if (!own) return assessment;
  return {
    candidate: false,
    score: 0,
    reasons: [
      ...assessment.reasons,
      `"${own}" names the row's own subject: each row is about its own thing`,
    ],
  };
}

/**
 * The value that names its own memory's subject when the subjects differ: "npm install
 * es-errors" in the es-errors README and "npm install qs" in the qs README, "Linux (musl)" in
 * `sharp-libvips-linuxmusl-x64`. A name is an identifier of the thing the memory is about, not a
 * value of an attribute both rows share.
 */
function ownSubjectValue(
  subjectA: string | undefined,
  valueA: string,
  subjectB: string | undefined,
  valueB: string,
): string | undefined {
  if (!subjectA?.trim() || !subjectB?.trim()) return undefined;
  const a = subjectA.toLowerCase();
  const b = subjectB.toLowerCase();
  if (a === b) return undefined;
  const names = (value: string, own: string, other: string) => {
    const key = value.toLowerCase().trim();
    return key.length >= 2 && own.includes(key) && !other.includes(key);
  };
  if (names(valueA, a, b)) return valueA;
  if (names(valueB, b, a)) return valueB;
  return undefined;
}

function assessRows(rowA: EvidenceSide, rowB: EvidenceSide): PairAssessment {
  const sideA = readSide(rowA);
  const sideB = readSide(rowB);
  // The rows as sentences: markup lines, badges and link targets left out.
  const a = { ...rowA, text: sideA.text ?? rowA.text };
  const b = { ...rowB, text: sideB.text ?? rowB.text };
  const notAClaim = sideA.notAClaim ?? sideB.notAClaim;
  if (notAClaim || !sideA.shape || !sideB.shape) {
    return {
      candidate: false,
      score: 0,
      reasons: [`${sideA.notAClaim ? "a" : "b"}: ${notAClaim}`],
    };
  }
  // "… when the header matches the `type` option." / "… matches the `type` option, or an empty
  // object if there was no body": one row says all the other says and goes on in a clause of
  // its own; what it adds is said beside the other's statement, not against it.
  const bareA = sideA.bare ?? bareSentence(a.text);
  const bareB = sideB.bare ?? bareSentence(b.text);
  const within = statedWithin(bareA, bareB) ?? statedWithin(bareB, bareA);
  if (within) {
    return { candidate: false, score: 0, reasons: [`one row says all the other says (${within})`] };
  }
  // "lower case" / "lowercase": a word one row writes as two is read as the other row's word.
  const setA = contentSet(sideA.shape);
  const setB = contentSet(sideB.shape);
  const left = joinSplitWords(sideA.shape, { own: setA, other: setB }, a.text);
  const joinedSetA = left === sideA.shape ? setA : contentSet(left);
  const right = joinSplitWords(sideB.shape, { own: setB, other: joinedSetA }, b.text);
  const reasons: string[] = [];
  const drop = (reason: string, score = 0): PairAssessment => ({
    candidate: false,
    score: round(score),
    reasons: [...reasons, reason],
  });

  const leftSet = joinedSetA;
  const rightSet = right === sideB.shape ? setB : contentSet(right);
  const leftCore = coreSet(left, rightSet);
  const rightCore = coreSet(right, leftSet);
  const shared = [...leftCore].filter((word) => rightCore.has(word));
  const overlap = shared.length / Math.max(1, Math.min(leftCore.size, rightCore.size));
  const subjectOverlap = subjectsOverlap(a.subject, b.subject);
  const disjointSubjects = subjectOverlap === 0;
  const updates = [...left.updatePhrases, ...right.updatePhrases];
  const namedChange = updates.some((phrase) => !SOFT_UPDATE_PHRASES.has(phrase));
  // A change of state named on one side only ("was migrated off MySQL", "left the company"):
  // the other row is the state it ended. Both sides naming the same change are two reports.
  const named = (shape: SentenceShape) =>
    new Set(shape.updatePhrases.filter((phrase) => !SOFT_UPDATE_PHRASES.has(phrase)));
  const leftChanges = named(left);
  const rightChanges = named(right);
  // A denial next to "now" ("the keys are not at the desk any more, now in the guard room")
  // names a change as well.
  const deniedNow = (shape: SentenceShape) => shape.negated && shape.updatePhrases.length > 0;
  const oneSidedChange = [...leftChanges].some((phrase) => !rightChanges.has(phrase)) ||
    [...rightChanges].some((phrase) => !leftChanges.has(phrase)) ||
    deniedNow(left) !== deniedNow(right);
  const required = disjointSubjects
    ? RULE_MIN_TEXT_OVERLAP_DISJOINT_SUBJECTS
    : namedChange
    ? RULE_MIN_TEXT_OVERLAP_WITH_CHANGE
    : RULE_MIN_TEXT_OVERLAP;
  // A family of verbs ("@use": uses, runs on, is built with) frames an attribute but does not
  // name one: two rows sharing nothing else ("use X over deprecated Y" / "use MD5 instead of
  // MD4") are about different things.
  if (shared.length > 0 && shared.every((word) => word === "@use") && namedChange) {
    return drop(`rows share only a verb (${ownWords(a.text, shared[0]) ?? shared[0]})`);
  }
  // "Mike commutes by car" / "Mike now takes the train to work": one subject, two members of
  // a closed set of values that exclude each other, and a change named on one side. The rows
  // share few words because each names its value in its own words.
  const alternative = exclusiveAlternative(a.text, b.text);
  if (
    alternative && left.historical === undefined && right.historical === undefined &&
    !stateScopes(a.text, b.text) && !sharedIdentifier(a.text, b.text)
  ) {
    return accept("value", { a: alternative.a, b: alternative.b }, [
      `same subject, another ${alternative.group}: ${alternative.a} vs ${alternative.b}`,
    ]);
  }
  // "The bakery delivers bread early in the morning, before 6:00" / "bread deliveries arrive in
  // the late afternoon, after 16:00": one activity in two windows of the day that never meet,
  // worded with other forms of the same words ("delivers" / "deliveries").
  const windows = shared.length < RULE_MIN_SHARED_WORDS || overlap < required
    ? disjointWindows(left, right)
    : undefined;
  if (
    windows && left.historical === undefined && right.historical === undefined &&
    !stateScopes(a.text, b.text) && !FIRST_PERSON.test(a.text + " " + b.text)
  ) {
    return accept("date", windows, [
      `the same activity in windows of the day that never meet: ${windows.a} vs ${windows.b}`,
    ]);
  }
  if (shared.length < RULE_MIN_SHARED_WORDS || overlap < required) {
    return drop(
      `rows share too few words (${pct(overlap)} of the shorter, need ${pct(required)}` +
        `${disjointSubjects ? " with different subjects" : ""})`,
    );
  }
  // Quoted as the first row writes them, never as the reader's stems or family markers.
  const sharedShown = [
    ...new Set(
      shared.map((word) => ownWords(a.text, word) ?? ownWords(b.text, word))
        .filter((word): word is string => word !== undefined),
    ),
  ];
  reasons.push(`same attribute words: ${sharedShown.slice(0, 5).join(", ")} (${pct(overlap)})`);

  if ((left.historical === undefined) !== (right.historical === undefined)) {
    const which = left.historical ?? right.historical;
    return drop(`one row is historical ("${which}"), the other current: both can be true`);
  }
  // "… available globally without requiring imports" / "… available globally": "without"
  // denies only the words after it, and the other row does not speak of them.
  const denies = (shape: SentenceShape, other: Set<string>) =>
    shape.negated &&
    (!shape.negatedOnlyWithout || shape.withoutWords.some((word) => other.has(word)));
  const polarityFlip = denies(left, rightSet) !== denies(right, leftSet);
  // "Use pnpm, not npm" / "install with npm; pnpm is no longer used": the same words and a
  // negation each, but what one row takes the other turns down.
  // A change named on one side only ("now uses pnpm instead of npm") is read as a change below;
  // a reversal is two choices, each turning something down.
  const reversal = reversedChoice(a.text, b.text);
  if (reversal && (reversal.bothRefuse || !namedChange) && !sharedIdentifier(a.text, b.text)) {
    return accept("negation", { a: reversal.a, b: reversal.b }, [
      `the choice is reversed: a takes ${reversal.a || "the other"}, b takes ${reversal.b}`,
    ]);
  }
  // "The minimum password length is 8" / "the maximum password length is 64": a floor and a
  // ceiling of one attribute are two attributes; both hold unless the floor lies above the
  // ceiling ("at least 5 retries" / "at most 3 retries").
  const bounds = floorAndCeiling(left, right);
  if (bounds && !namedChange && !polarityFlip && !bounds.crossed) {
    const shown = (text: string, family: string) => ownWords(text, family) ?? family.slice(1);
    const [floorText, ceilingText] = bounds.floorIsA ? [a.text, b.text] : [b.text, a.text];
    return drop(
      `one row names a floor ("${shown(floorText, "@min")}"), the other a ceiling ` +
        `("${shown(ceilingText, "@max")}"): both hold`,
    );
  }
  // "v2.0.0 dropped support for Node 14" / "v1.5.0 added support for Node 16": each row opens
  // with its own release and says something else of it. (With the rest equal, the release is
  // the value: "version 2 is the latest" / "version 3 is the latest".)
  const releases = ownReleases(a.text, b.text);
  if (releases) return drop(`each row is about its own release (${releases})`);
  // "Each worker handles 50 jobs a minute" / "the cluster handles 400 jobs a minute in total":
  // an amount for each one and the total of all are two amounts.
  const eachAndTotal = eachVersusTotal(a.text, b.text);
  if (eachAndTotal && !namedChange) {
    return drop(`one row counts each (${eachAndTotal.each}), the other the total: both hold`);
  }
  // "Mark reports to Julia" / "Julia reports to the CTO": the one row ends with the name the
  // other opens with, a chain of two facts about two people.
  const chain = chainedName(a.text, b.text) ?? chainedName(b.text, a.text);
  if (chain && !namedChange) {
    return drop(`"${chain}" ends one row and opens the other: two subjects`);
  }
  if (updates.length === 0 && episode(a.text) && episode(b.text)) {
    return drop("two episodes a speaker tells (first person, past tense): both can be true");
  }
  // "I run 5 km every morning" / "my wife runs 10 km on weekends": the speaker and someone close
  // to them are two people.
  if (speakerAndRelative(a.text, b.text) || speakerAndRelative(b.text, a.text)) {
    return drop("one row is about the speaker, the other about someone close to them");
  }
  const occasions = twoOccasions(a.text, b.text);
  if (updates.length === 0 && occasions) {
    return drop(`two occasions (${occasions}): both can be true`);
  }
  const sharedId = sharedIdentifier(a.text, b.text);
  if (sharedId && !polarityFlip && !oneSidedChange) {
    return drop(`restatement: both rows name ${sharedId}`);
  }
  const ids = differentIdentifiers(a.text, b.text);
  if (ids && !polarityFlip) {
    return accept("value", ids, [
      `different ${ids.kind} for the same attribute: ${ids.a} vs ${ids.b}`,
    ]);
  }
  // "now … as well" still adds: only a named change ("switched to") replaces.
  if (!polarityFlip && !namedChange) {
    const addition = left.additions[0] ?? right.additions[0];
    if (addition && (left.additions.length === 0) !== (right.additions.length === 0)) {
      return drop(`one row adds to the other ("${addition}"), it does not replace it`);
    }
  }
  if (!namedChange && (left.qualifiers.length === 0) !== (right.qualifiers.length === 0)) {
    const qualifier = left.qualifiers[0] ?? right.qualifiers[0];
    return drop(`one row narrows the other to a part ("${qualifier}"), it does not replace it`);
  }
  if (updates.length > 0) reasons.push(`update phrase: ${[...new Set(updates)].join(", ")}`);

  const values = compareValues(left.values, right.values, updates.length > 0);
  const ownPart = possessedPart(a.text, left, right) ?? possessedPart(b.text, right, left);
  if (ownPart && !oneSidedChange) {
    return drop(`one row is about ${ownPart}, a part of the other's subject`);
  }
  if (values.otherPeriod && values.differing.length === 0 && !oneSidedChange) {
    const { a: rateA, b: rateB } = values.otherPeriod;
    return drop(`rates per different periods (${rateA.raw} / ${rateB.raw}): two prices`);
  }
  // "The free tier allows 3 projects" / "… allows 1 GB of storage": amounts of kinds the other
  // row never has are two attributes of one thing.
  const kinds = amountKinds(left, right);
  if (kinds && !namedChange && !polarityFlip && values.differing.length === 0) {
    return drop(`amounts of different kinds (${kinds}): two attributes`);
  }
  const day = dayScope(left, right) ?? dayScope(right, left);
  if (day && updates.length === 0 && values.differing.length > 0) {
    return drop(`one row is limited to ${day}: a schedule for that day, not a new one`);
  }
  // "The store closes at 9pm on Saturdays" / "… at 6pm on Sundays": each time is scoped to its
  // own day, two schedules.
  // "Maintenance runs on Sunday nights" / "… on Wednesday mornings": a part of the day glued
  // to the day is one value, the slot itself, not a time scoped to a day.
  const days = differentDays(left, right);
  const scopedTime = values.differing.some(({ a, b }) =>
    a.dimension !== "weekday" && !(a.span && b.span)
  );
  if (days && updates.length === 0 && scopedTime) {
    return drop(`each row is limited to its own day (${days}): two schedules`);
  }
  // "Open 6:00 to 22:00 on weekdays" / "8:00 to 20:00 on weekends": the same, for day sets.
  const daySets = differentDaySets(a.text, b.text);
  if (daySets && updates.length === 0 && values.differing.length > 0) {
    return drop(`each row is limited to its own days (${daySets}): two schedules`);
  }
  // When values differ, the words glued to them ("500 Market St") are part of the values.
  const valueWords = values.differing.length > 0;
  const leftOnly = differingRuns(left, rightSet, valueWords, a.text);
  const rightOnly = differingRuns(right, leftSet, valueWords, b.text);
  const extraWords = Math.max(leftOnly.words.length, rightOnly.words.length);
  const twoSided = leftOnly.words.length > 0 && rightOnly.words.length > 0;
  // "Office hours with the professor are…" / "…with the teaching assistant are…": one
  // attribute of two different things, named in the subject.
  const complements = [subjectComplement(a.text), subjectComplement(b.text)];
  if (
    complements[0] && complements[1] && complements[0].head === complements[1].head &&
    complements[0].of !== complements[1].of && !oneSidedChange
  ) {
    return drop(
      `the subjects name different things ("${complements[0].shown}" / "${complements[1].shown}")`,
    );
  }
  const describe = (): string => `"${leftOnly.shown.join(" ")}" vs "${rightOnly.shown.join(" ")}"`;
  // The rows differ in their wording as well as in the value. Without a named change that means
  // two different facts; with one, the changed row rewords the other's state on its way to the
  // new one ("stores data in MySQL" / "was migrated off MySQL and now uses PostgreSQL").
  // What a speaker did ("I went…", "I just joined…") is an episode of a conversation; a named
  // change lets a reworded pair through only outside first-person narration.
  const rewordedChange = oneSidedChange && extraWords <= RULE_CHANGE_MAX_EXTRA_WORDS &&
    !FIRST_PERSON.test(a.text) && !FIRST_PERSON.test(b.text) && !otherKindOfAmount(left, right);
  const changeOr = (reason: string): PairAssessment | undefined =>
    rewordedChange ? undefined : drop(reason);
  const changed = (): PairAssessment =>
    accept("update_phrase", { a: leftOnly.shown.join(" "), b: rightOnly.shown.join(" ") }, [
      `a named change of state (${[...leftChanges, ...rightChanges].join(", ")}) rewords ` +
      `the other row: ${describe()}`,
    ]);

  let kind: ConflictSignal;
  let opposed: { a: string; b: string } | undefined;
  if (values.differing.length > 0) {
    const first = values.differing[0];
    opposed = { a: first.a.raw, b: first.b.raw };
    // "Files over 5 MB are blocked" / "files up to 25 MB are allowed": one limit stated from
    // both sides, and the limits differ.
    if (
      polarityFlip && left.states.length > 0 && right.states.length > 0 &&
      complementaryBounds(a.text, b.text)
    ) {
      return accept("number", opposed, [
        `the same limit from both sides: ${opposed.a} vs ${opposed.b}`,
      ]);
    }
    // "合同于2024年1月1日生效" / "合同的到期日是2026年12月31日": one row dates the start of a
    // period and the other its end. English rows differ in those words and drop below; Chinese
    // rows are compared character by character, so "合同" alone looked like one attribute.
    const ends = periodEnds(a.text, b.text);
    if (ends && !oneSidedChange) {
      return drop(`one row dates the start (${ends.start}), the other the end (${ends.end})`);
    }
    if (polarityFlip) {
      return changeOr(
        `a negated row with a different value is consistent (${opposed.a} / ${opposed.b})`,
      ) ?? changed();
    }
    // Reworded around the same amount ("the enterprise tier starts at $2,000" / "enterprise
    // pricing begins at $2,500"): most words shared and no parallel qualifier swapped.
    // Chinese rows are compared character by character, which inflates their overlap.
    const reworded = overlap >= RULE_MIN_OVERLAP_REWORDED_VALUE &&
      !HAN_CHAR.test(a.text + b.text) &&
      !qualifierSwap(left, leftOnly.words, right, rightOnly.words) &&
      !(scoped(a.text, leftOnly.surface) && scoped(b.text, rightOnly.surface)) &&
      !(FIRST_PERSON.test(a.text) && FIRST_PERSON.test(b.text));
    // "The trial period lasts 14 days" / "new users now get a 30-day trial": "now" on one side
    // only, and an amount of the same kind, reworded around a shared word: the present amount.
    // Both rows opening with their own words ("the gym opens" / "the pool now opens", "the
    // London office" / "the Berlin office") name two things, each with its amount.
    const nowAmount = oneSidedPresent(left, right) && sameKindOfAmount(first) &&
      !(ownLead(left, rightSet) && ownLead(right, leftSet)) &&
      !FIRST_PERSON.test(a.text) && !FIRST_PERSON.test(b.text) &&
      extraWords <= RULE_CHANGE_MAX_EXTRA_WORDS;
    // "The mailbox quota is 50 GB" / "the shared drive quota was cut to 20 GB": a named change,
    // but of the same attribute of another thing, named by a parallel qualifier.
    const otherThing = twoSided && qualifierSwap(left, leftOnly.words, right, rightOnly.words);
    if (otherThing && rewordedChange && !nowAmount) {
      return drop(`a change, but the qualifiers name two things (${describe()})`);
    }
    if (twoSided && !reworded && !rewordedChange && !nowAmount) {
      return drop(`values differ but so do the attribute words (${describe()}): different things`);
    }
    if (extraWords > RULE_MAX_VALUE_WORDS) {
      return changeOr(`values differ but one row says much more (${extraWords} extra words)`) ??
        changed();
    }
    const narrower = !twoSided && updates.length === 0 &&
      (leadingOnly(left, leftOnly.words, a.text, leftOnly.surface) ||
        leadingOnly(right, rightOnly.words, b.text, rightOnly.surface));
    if (narrower) {
      return drop(`one row is about a narrower subject (${describe()}): a part, not the whole`);
    }
    kind = values.differing.some(({ a }) =>
        a.dimension === "date" || a.dimension === "weekday" ||
        a.dimension === "time"
      )
      ? "date"
      : "number";
    reasons.push(
      `${kind === "date" ? "dates/times" : "amounts"} differ: ${opposed.a} vs ${opposed.b}`,
    );
  } else if (polarityFlip) {
    // "Expenses over $500 need approval" / "expenses under $500 need no approval": one amount,
    // a rule for each side of it; both hold.
    if (values.agreeing > 0 && complementaryBounds(a.text, b.text)) {
      return drop("the same amount from both sides, the opposite rule on each: both hold");
    }
    // "Our font files are licensed CC BY 4.0" / "the font files are proprietary": an open
    // licence named by its identifier is the open-source state the other row denies.
    const licence = openLicenceAgainstClosed(a.text, left, b.text, right) ??
      openLicenceAgainstClosed(b.text, right, a.text, left);
    if (licence && !oneSidedChange) {
      return accept("negation", licence, [
        `an open licence against a closed one: ${licence.a} vs ${licence.b}`,
      ]);
    }
    // "Olivia is no longer the team lead" / "Marco is the team lead": one name denied, another
    // affirmed in the same frame; the second row says who took the place, both hold.
    if (
      // A state word ("allowed" / "no longer permitted") is what the denial turns over, and
      // the differing words ("Guests" / "Visitors") are then one group named twice.
      twoSided && leftOnly.runs === 1 && rightOnly.runs === 1 && left.states.length === 0 &&
      right.states.length === 0 && capitalized(a.text, leftOnly.surface) &&
      capitalized(b.text, rightOnly.surface) &&
      ![...leftChanges, ...rightChanges].some((phrase) => !NEGATION_PHRASES.includes(phrase))
    ) {
      return drop(`one name denied, another affirmed (${describe()}): both hold`);
    }
    if (twoSided) {
      return changeOr(`polarity differs but so do the words (${describe()})`) ?? changed();
    }
    if (extraWords > RULE_MAX_VALUE_WORDS) {
      return changeOr(`polarity differs but one row says much more (${extraWords} extra words)`) ??
        changed();
    }
    // "Emma hates mornings" / "Emma loves morning runs": one word more, glued to the end of the
    // object the rows share, names a different object; what one row denies is not what the
    // other affirms.
    if (
      !namedChange && updates.length === 0 &&
      (extendedObject(a.text, leftOnly.surface, leftOnly.words, b.text) ||
        extendedObject(b.text, rightOnly.surface, rightOnly.words, a.text))
    ) {
      return drop(`polarity differs but one row names more (${describe()}): another object`);
    }
    // A state and its opposite ("works remotely" / "works from the office") hold together when
    // each row is limited to its own days, period or owner, or one row is only a plan.
    const scope = stateScopes(a.text, b.text);
    if (scope && !namedChange) return drop(`the states hold in different scopes (${scope})`);
    const plan = planned(a.text, b.text, left, right);
    if (plan) return drop(`one row is a plan ("${plan}"), not yet the state`);
    const owned = left.states.length > 0 && right.states.length > 0
      ? ownersThing(a.text, b.text) ?? ownersThing(b.text, a.text)
      : undefined;
    if (owned) return drop(`one row is about ${owned}, not the other's subject`);
    kind = "negation";
    reasons.push(`one row negates the other (${left.negated ? "a" : "b"} is negated)`);
  } else if (values.agreeing > 0 && !(twoSided && !oneSidedChange && namedValueSwap())) {
    // "We upgraded to PostgreSQL 16" / "PostgreSQL 16 is our main database": the change ends
    // in the value the other row holds, so both say the same present.
    const target = changeTarget(a.text, left, right) ?? changeTarget(b.text, right, left);
    if (target) return drop(`the change ends in the value the other row holds (${target})`);
    if (rewordedChange && extraWords > 0) return changed();
    // "Docs are under CC BY 4.0" / "docs are now under CC BY-SA 4.0": the row saying "now" names
    // the same number with another name glued to it, a different value.
    if (!twoSided && extraWords > 0 && extraWords <= RULE_VALUE_MAX_WORDS && renamedValue()) {
      kind = "update_phrase";
      opposed = { a: leftOnly.shown.join(" "), b: rightOnly.shown.join(" ") };
      reasons.push(`now the value goes by another name: ${describe()}`);
      return accept(kind, opposed, []);
    }
    return drop("restatement: every value the rows share is equal");
  } else if (twoSided) {
    // "The team prefers Slack for quick questions" / "quick questions now go to Teams chat":
    // "now" on one side only and a name on each side that the other lacks; the present names
    // another tool, however the rows word the rest.
    const soft = (shape: SentenceShape) => shape.updatePhrases.length > 0;
    if (
      (leftOnly.runs > 1 || rightOnly.runs > 1) && soft(left) !== soft(right) &&
      !namedChange && !FIRST_PERSON.test(a.text + " " + b.text) &&
      !SPEAKER_SUBJECT.test(a.text) && !SPEAKER_SUBJECT.test(b.text) &&
      extraWords <= RULE_CHANGE_MAX_EXTRA_WORDS &&
      someCapitalized(a.text, leftOnly.surface) && someCapitalized(b.text, rightOnly.surface)
    ) {
      return accept("value", { a: leftOnly.shown.join(" "), b: rightOnly.shown.join(" ") }, [
        `now a different name: ${describe()}`,
      ]);
    }
    if (leftOnly.runs > 1 || rightOnly.runs > 1) {
      return changeOr(
        `rows differ in more than one place (${describe()}): different subject or attribute`,
      ) ?? changed();
    }
    if (extraWords > RULE_MAX_VALUE_WORDS) {
      return changeOr(`the differing words are too long to be one value (${describe()})`) ??
        changed();
    }
    // "The billing service is written in Go" / "… runs on Kubernetes": each differing run is a
    // verb with its own preposition, two predicates of one subject rather than two values.
    const prepA = runPreposition(a.text, leftOnly.surface);
    const prepB = runPreposition(b.text, rightOnly.surface);
    if (!namedChange && prepA && prepB && prepA !== prepB) {
      return drop(`two predicates ("${prepA}" / "${prepB}"): ${describe()}`);
    }
    const frame = frameWords(shared);
    const longest = Math.max(leftOnly.words.length, rightOnly.words.length);
    const judging = (words: readonly string[]) =>
      words.length === 0 || words.every((word) => EVALUATIVE_STEMS.has(word));
    if (!namedChange && (judging(leftOnly.words) || judging(rightOnly.words))) {
      return drop(`the rows differ only in how they judge it (${describe()})`);
    }
    // A named change ("moved to", "switched to") already says a value was replaced.
    const place = samePlacePreposition(a.text, leftOnly.surface, b.text, rightOnly.surface);
    const unframed = frame < RULE_VALUE_MIN_FRAME_WORDS ||
      longest > (place ? RULE_PLACE_MAX_WORDS : RULE_VALUE_MAX_WORDS);
    if (!namedChange && unframed) {
      if (rewordedChange) return changed();
      // "now", "these days" on one side and a name swapped for a name ("deploy with Capistrano"
      // / "deploys are done with Kamal these days"): the present replaces the old name.
      const soft = (shape: SentenceShape) => shape.updatePhrases.length > 0;
      if (
        soft(left) !== soft(right) && !FIRST_PERSON.test(a.text + " " + b.text) &&
        someCapitalized(a.text, leftOnly.surface) && someCapitalized(b.text, rightOnly.surface)
      ) {
        return accept("value", { a: leftOnly.shown.join(" "), b: rightOnly.shown.join(" ") }, [
          `now a different name: ${describe()}`,
        ]);
      }
      return drop(
        `one differing phrase (${describe()}) in a frame of ${frame} shared words: ` +
          `a value needs ${RULE_VALUE_MIN_FRAME_WORDS} and at most ${RULE_VALUE_MAX_WORDS} words a side`,
      );
    }
    if (updates.length === 0 && (MULTI_VALUED.test(a.text) || MULTI_VALUED.test(b.text))) {
      return drop(`the verb takes many objects: ${describe()} can both hold`);
    }
    if (
      updates.length === 0 && subjectSwap(a.text, leftOnly.surface) &&
      subjectSwap(b.text, rightOnly.surface)
    ) {
      return drop(`different things (${describe()}) share one property, nothing is replaced`);
    }
    // "… in Go code" / "… in Python code": after "in" / "for", the differing words qualify the
    // same shared noun, so each row is limited to its own scope rather than naming a value.
    if (
      updates.length === 0 && scoped(a.text, leftOnly.surface) &&
      scoped(b.text, rightOnly.surface) &&
      qualifierSwap(left, leftOnly.words, right, rightOnly.words)
    ) {
      return drop(`each row is limited to its own scope (${describe()}): two things`);
    }
    // "Meetings are held in person on Mondays" / "… online the rest of the week": each value
    // holds on its own days.
    const ownDays = updates.length === 0 ? stateScopes(a.text, b.text) : undefined;
    if (ownDays) return drop(`each row is limited to its own days or period (${ownDays})`);
    // "generated via [generate-webgl-operator-md.ts]" / "generated via [this script]": a row
    // that points at its thing ("this script") names no value to contradict the other's.
    if (
      updates.length === 0 &&
      (pointedAt(a.text, leftOnly.surface) || pointedAt(b.text, rightOnly.surface))
    ) {
      return drop(`one row points at its value instead of naming it (${describe()})`);
    }
    kind = "value";
    opposed = { a: leftOnly.shown.join(" "), b: rightOnly.shown.join(" ") };
    reasons.push(`different value for the same attribute: ${opposed.a} vs ${opposed.b}`);
  } else if (
    extraWords > 0 && updates.length > 0 && extraWords <= RULE_MAX_VALUE_WORDS &&
    newWordsOnChangedSide()
  ) {
    kind = "update_phrase";
    opposed = { a: leftOnly.shown.join(" "), b: rightOnly.shown.join(" ") };
    reasons.push(`an update phrase introduces ${describe()}`);
  } else if (extraWords > 0) {
    if (rewordedChange && newWordsOnChangedSide()) {
      return changed();
    }
    return drop(`one row only adds detail (${describe()})`);
  } else {
    // "capped at 500 rows" / "the row cap went up to 2,000": a named change to an amount read
    // in another unit is still a new amount.
    if (
      rewordedChange && left.values.length > 0 && right.values.length > 0 &&
      values.agreeing === 0
    ) {
      return changed();
    }
    return drop("restatement: same words, same values");
  }

  return accept(kind, opposed, []);

  /**
   * Words only one row has belong to the row that names the change ("we moved sprint demos to
   * Tuesdays"): a change on one side and new detail on the other ("we moved into the new office"
   * / "the new office has a terrace") are two facts.
   */
  function newWordsOnChangedSide(): boolean {
    const changedSide = (shape: SentenceShape) => shape.updatePhrases.length > 0;
    // A state word ("active") is the state the change ends, not new detail.
    const detail = (words: readonly string[]) => words.some((word) => !word.startsWith("xstate"));
    return (!detail(leftOnly.words) || changedSide(left)) &&
      (!detail(rightOnly.words) || changedSide(right));
  }

  /**
   * The only extra words sit on the side with an update phrase, glued to a value ("CC BY-SA
   * 4.0" against "CC BY 4.0").
   */
  function renamedValue(): boolean {
    const extra = (shape: SentenceShape, other: Set<string>) =>
      shape.words.map((word, i) => ({ word, i })).filter(({ word }) =>
        word !== VALUE_SLOT && !other.has(word)
      );
    const leftExtra = extra(left, rightSet);
    const rightExtra = extra(right, leftSet);
    const [shape, words] = leftExtra.length > 0 ? [left, leftExtra] : [right, rightExtra];
    return shape.updatePhrases.length > 0 && words.every(({ i }) => shape.attached[i]);
  }

  /**
   * Equal values and one proper name swapped ("the release manager for 4.2 is Tomás" / "…is
   * Yuki"): the shared value is part of the attribute. Only names count; a restatement with the
   * same value often swaps an ordinary word ("发薪日" / "发工资").
   */
  function namedValueSwap(): boolean {
    return leftOnly.runs === 1 && rightOnly.runs === 1 && extraWords <= RULE_VALUE_MAX_WORDS &&
      capitalized(a.text, leftOnly.surface) && capitalized(b.text, rightOnly.surface);
  }

  function accept(
    kind: ConflictSignal,
    opposed: { a: string; b: string } | undefined,
    why: string[],
  ): PairAssessment {
    const score = Math.min(
      1,
      RULE_SCORE_WEIGHTS.overlap * overlap +
        RULE_SCORE_WEIGHTS.subject * (subjectOverlap ?? 0.5) +
        RULE_SCORE_WEIGHTS.signal * RULE_SIGNAL_STRENGTH[kind] +
        (updates.length > 0 ? RULE_UPDATE_PHRASE_BONUS : 0),
    );
    if (score < RULE_MIN_CANDIDATE_SCORE) {
      return drop(`score ${round(score)} below ${RULE_MIN_CANDIDATE_SCORE}`, score);
    }
    return {
      candidate: true,
      kind,
      score: round(score),
      reasons: [...reasons, ...why],
      ...(opposed ? { values: opposed } : {}),
    };
  }
}

/** A sentence as compared for {@link statedWithin}: lower case, single spaces, no final stop. */
function bareSentence(text: string): { text: string; words: number } {
  const bare = text.toLowerCase().replace(/\s+/g, " ").trim().replace(/[\s.!;:]+$/u, "");
  let words = 1;
  for (let i = bare.indexOf(" "); i >= 0; i = bare.indexOf(" ", i + 1)) words++;
  return { text: bare, words };
}

/**
 * `shorter` (at least {@link RULE_STATED_WITHIN_MIN_WORDS} words) whole inside `longer`, ending
 * where a clause of `longer` ends or the row does: the first words of what `shorter` says,
 * for the reason; undefined otherwise. "Open on Sundays no more" goes on without a break and is
 * not a restatement.
 */
function statedWithin(
  longer: { text: string },
  shorter: { text: string; words: number },
): string | undefined {
  if (shorter.words < RULE_STATED_WITHIN_MIN_WORDS) return undefined;
  const outer = longer.text;
  const inner = shorter.text;
  const at = outer.indexOf(inner);
  if (at < 0 || (at > 0 && !/[\s(]/.test(outer[at - 1]))) return undefined;
  const next = outer.slice(at + inner.length);
  if (next !== "" && !/^\s*[,;:(—–]/u.test(next)) return undefined;
  return `${inner.split(" ").slice(0, 6).join(" ")}…`;
}

/**
 * Shared words long enough to frame a value. A Chinese row is read one character at a time,
 * so two characters count as one word ("仓库", "托管").
 */
function frameWords(shared: readonly string[]): number {
  const latin = shared.filter((word) => word.length >= 3 && !HAN_CHAR.test(word)).length;
  const han = shared.filter((word) => HAN_CHAR.test(word)).length;
  return latin + Math.floor(han / 2);
}

const HAN_CHAR = /\p{Script=Han}/u;

/**
 * The words only this row has all stand before its first shared word ("Express shipping costs
 * $15" / "Shipping costs $5", "Registration for the hackathon closes on May 2"): they name a
 * part of the other row's subject, which can have its own value.
 */
function leadingOnly(
  shape: SentenceShape,
  differing: readonly string[],
  text: string,
  surface: readonly string[],
): boolean {
  if (differing.length === 0) return false;
  // "The monitor stand is priced at $49": the extra words belong to the subject, before the
  // verb.
  const lower = text.toLowerCase();
  const verb = lower.search(/\b(?:is|are|was|were|has|have)\b/);
  const subjectWord = (word: string) =>
    lower.indexOf(word) >= 0 && lower.indexOf(word) < verb && !ATTRIBUTE_NOUNS.has(word) &&
    !/ed$/.test(word);
  if (verb > 0 && surface.every(subjectWord)) return true;
  // "Registration for the hackathon closes on May 2": the row's subject is a part of the other's.
  if (
    surface.length > 0 &&
    new RegExp(`^\\s*(?:the\\s+|an?\\s+)?${escapeRegex(surface[0])}\\s+(?:for|of)\\b`, "u")
      .test(lower)
  ) {
    return true;
  }
  // "A coffee with oat milk costs $3.50": "with …" after the subject's noun, before the
  // amount, names a variant of the other row's subject.
  const at = lower.indexOf(surface[0]?.toLowerCase() ?? "");
  const lastAt = lower.lastIndexOf(surface[surface.length - 1]?.toLowerCase() ?? "");
  const firstValue = shape.values[0]?.start ?? -1;
  if (
    at > 0 && lastAt < firstValue &&
    /\p{L}\s+(?:with|without)\s+(?:the\s+|an?\s+|extra\s+)?$/u.test(lower.slice(0, at))
  ) {
    return true;
  }
  const firstShared = shape.words.findIndex((word) =>
    word !== VALUE_SLOT && !differing.includes(word)
  );
  return firstShared > 0 &&
    shape.words.slice(0, firstShared).every((word) => differing.includes(word)) &&
    shape.words.slice(firstShared).every((word) => !differing.includes(word));
}

/**
 * Nouns that name an attribute rather than a thing ("the trial period is 30 days", "the sprint
 * length is two weeks"): a row adding one says the same thing in other words.
 */
const ATTRIBUTE_NOUNS: ReadonlySet<string> = new Set(
  ("period length duration size amount limit time date day number count rate level value " +
    "version name address status setting term window frequency speed capacity quota total")
    .split(" "),
);

/**
 * "The library's icons are CC BY" next to "the library is MIT": the possessive names a part of
 * the other row's subject. Attribute nouns ("Theo's manager", "the plan's price") are not parts.
 */
function possessedPart(
  text: string,
  shape: SentenceShape,
  other: SentenceShape,
): string | undefined {
  for (const match of text.matchAll(/([\p{L}\p{N}]+)['’]s\s+([\p{L}]+)/gu)) {
    const owner = stem(match[1].toLowerCase());
    const part = stem(match[2].toLowerCase());
    if (
      other.words.includes(owner) && !other.words.includes(part) && shape.words.includes(part) &&
      !ATTRIBUTE_NOUNS.has(match[2].toLowerCase()) && !part.startsWith("@")
    ) {
      return `${match[1]}'s ${match[2]}`;
    }
  }
  return undefined;
}

const UPPER_SIDE = /\b(?:over|above|more than|larger than|bigger than|longer than|exceeding)\b/iu;
const LOWER_SIDE = /\b(?:up to|under|below|less than|smaller than|at most|within)\b/iu;

/** One row bounds from above, the other from below. */
function complementaryBounds(a: string, b: string): boolean {
  return (UPPER_SIDE.test(a) && LOWER_SIDE.test(b)) || (LOWER_SIDE.test(a) && UPPER_SIDE.test(b));
}

/**
 * One row bounds an attribute from below ("@min": minimum, at least, or later) and the other
 * from above ("@max": maximum, at most, up to), each only one way. `crossed` when both give an
 * amount of one kind and the floor lies above the ceiling: then the bounds cannot both hold.
 */
function floorAndCeiling(
  left: SentenceShape,
  right: SentenceShape,
): { floorIsA: boolean; crossed: boolean } | undefined {
  const only = (shape: SentenceShape, family: string, other: string) =>
    shape.words.includes(family) && !shape.words.includes(other);
  let floorIsA: boolean;
  if (only(left, "@min", "@max") && only(right, "@max", "@min")) floorIsA = true;
  else if (only(left, "@max", "@min") && only(right, "@min", "@max")) floorIsA = false;
  else return undefined;
  const [floor, ceiling] = floorIsA ? [left, right] : [right, left];
  const crossed = floor.values.some((low) =>
    ceiling.values.some((high) =>
      comparable(low, high) && magnitude(low) !== undefined && magnitude(high) !== undefined &&
      magnitude(low)! > magnitude(high)!
    )
  );
  return { floorIsA, crossed };
}

/**
 * Every plain amount (no bound of its own) lies inside the range `ranged` draws: it has a floor
 * ("at least 2 GB", "3 to 5 days") and, when it has a ceiling, the amount is at most that.
 * A ceiling alone ("under 10 MB") is left out: a limit and a smaller amount are often two
 * statements of the limit ("uploads must be under 10 MB" / "the upload limit is 5 MB").
 */
function withinRange(ranged: readonly SentenceValue[], plain: readonly SentenceValue[]): boolean {
  if (ranged.some((value) => !value.bound) || plain.some((value) => value.bound)) return false;
  const floors = ranged.filter((value) => value.bound === "lower").map(magnitude);
  const ceilings = ranged.filter((value) => value.bound === "upper").map(magnitude);
  const amounts = plain.map(magnitude);
  if (floors.length === 0 || [...floors, ...ceilings, ...amounts].includes(undefined)) {
    return false;
  }
  const low = Math.max(...(floors as number[]));
  const high = Math.min(Infinity, ...(ceilings as number[]));
  return (amounts as number[]).every((amount) => amount >= low && amount <= high);
}

/** An amount to order values by: its normalized amount, or a bare number's first part. */
function magnitude(value: SentenceValue): number | undefined {
  if (value.amount !== undefined) return value.amount;
  if (value.dimension !== "scalar" || !value.parts?.length) return undefined;
  // A version orders by its components: 18.2 above 18, below 20.
  const [major, minor = 0, patch = 0] = value.parts;
  return major + minor / 1e3 + patch / 1e6;
}

/** A weekday or date only `shape` has ("on Sundays the store opens at 10"). */
function dayScope(shape: SentenceShape, other: SentenceShape): string | undefined {
  const days = shape.values.filter((v) => v.dimension === "weekday" || v.dimension === "date");
  if (days.length === 0) return undefined;
  return other.values.some((v) => v.dimension === days[0].dimension) ? undefined : days[0].raw;
}

/** Both rows name weekdays and none is the same: "Saturdays" / "Sundays". */
function differentDays(left: SentenceShape, right: SentenceShape): string | undefined {
  const daysOf = (shape: SentenceShape) => shape.values.filter((v) => v.dimension === "weekday");
  const mine = daysOf(left);
  const theirs = daysOf(right);
  if (mine.length === 0 || theirs.length === 0) return undefined;
  if (mine.some((day) => theirs.some((other) => sameValue(day, other)))) return undefined;
  return `${mine[0].raw} / ${theirs[0].raw}`;
}

/**
 * The row's one extra word ends it, right after a word the other row has ("morning runs"
 * against "mornings"): a compound that names another object.
 */
function extendedObject(
  text: string,
  surface: readonly string[],
  words: readonly string[],
  otherText: string,
): boolean {
  if (surface.length !== 1 || words[0].startsWith("xstate")) return false;
  const written = (sentence: string) =>
    (sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).map((word) => word.toLowerCase());
  const mine = written(text);
  const last = mine.length - 1;
  // Compared as written words: the shared one may be a value ("mornings") or a family member.
  const theirs = new Set(written(otherText).map(stem));
  return last > 0 && mine[last] === surface[0].toLowerCase() && !STOPWORDS.has(mine[last - 1]) &&
    theirs.has(stem(mine[last - 1]));
}

/** A row opening with a release: "v2.0.0 …", "Version 1 …", "Release 3.2 …". */
const LEADING_RELEASE =
  /^\s*(?:the\s+)?(?:(?:version|release|v)\s*)(\d+(?:\.\d+)*)\b(.*)$|^\s*v(\d+(?:\.\d+)*)\b(.*)$/iu;

function ownReleases(a: string, b: string): string | undefined {
  const read = (text: string) => {
    const match = text.match(LEADING_RELEASE);
    if (!match) return undefined;
    const rest = (match[2] ?? match[4]).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    return { release: match[1] ?? match[3], rest };
  };
  const left = read(a);
  const right = read(b);
  if (!left || !right || left.release === right.release || left.rest === right.rest) {
    return undefined;
  }
  return `${left.release} / ${right.release}`;
}

const EACH = /\b(each|every single|per (?:person|user|seat|worker|node|member|head|unit|item))\b/iu;
const TOTAL = /\b(?:in total|total|combined|altogether|all together|overall|together)\b/iu;

function eachVersusTotal(a: string, b: string): { each: string } | undefined {
  const each = (text: string) => text.match(EACH)?.[1];
  if (each(a) && !TOTAL.test(a) && TOTAL.test(b) && !each(b)) return { each: each(a)! };
  if (each(b) && !TOTAL.test(b) && TOTAL.test(a) && !each(a)) return { each: each(b)! };
  return undefined;
}

/** The capitalized name that ends `first` and opens `second`, when their openings differ. */
function chainedName(first: string, second: string): string | undefined {
  const words = (text: string) => text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
  const firstWords = words(first);
  const secondWords = words(second);
  const last = firstWords.at(-1);
  const opening = secondWords[0];
  if (!last || !opening || firstWords[0] === opening) return undefined;
  return last === opening && /^\p{Lu}/u.test(last) ? last : undefined;
}

/** Named sets of days a schedule can be limited to. */
const DAY_SET = /\b(weekdays?|weekends?|workdays?|business days|holidays)\b|(工作日|周末|节假日)/iu;

/** Both rows are limited to a set of days, and not the same set: "on weekdays" / "on weekends". */
function differentDaySets(a: string, b: string): string | undefined {
  const set = (text: string) => {
    const match = text.match(DAY_SET);
    return match ? (match[1] ?? match[2]).toLowerCase().replace(/s$/u, "") : undefined;
  };
  const left = set(a);
  const right = set(b);
  return left && right && left !== right ? `${left} / ${right}` : undefined;
}

/**
 * The days a row is limited to: weekday names and named sets ("on Fridays", "Monday to
 * Thursday", "on public holidays", "the rest of the week"), as one key per row.
 */
const DAY_SCOPE =
  /\b(?:(?:sun|mon|tues|wednes|thurs|fri|satur)days?|weekdays?|weekends?|workdays?|business days|(?:public |bank )?holidays|(?:the )?rest of the week|other days)\b|工作日|周末|节假日|(?:周|星期|礼拜)[一二三四五六日天]/giu;

/** A period a row is limited to by its relation to one event ("during" / "after the migration"). */
const PERIOD_SCOPE = /\b(during|after|before|until|while)\s+(?:the\s+|a\s+|an\s+)?([\p{L}-]+)/iu;

/**
 * A state and its opposite, each limited to its own scope: different days ("remotely on
 * Fridays" / "from the office Monday to Thursday", "open on Sundays" / "closed on public
 * holidays") or different relations to one event ("read-only during the migration" / "accepts
 * writes after the migration"). Both hold.
 */
function stateScopes(a: string, b: string): string | undefined {
  const days = (text: string) =>
    [...text.matchAll(DAY_SCOPE)].map((match) => match[0].toLowerCase().replace(/s$/u, ""))
      .sort().join("+");
  const left = days(a);
  const right = days(b);
  if (left && right && left !== right) return `${left} / ${right}`;
  const periodA = a.match(PERIOD_SCOPE);
  const periodB = b.match(PERIOD_SCOPE);
  if (
    periodA && periodB && stem(periodA[2].toLowerCase()) === stem(periodB[2].toLowerCase()) &&
    periodA[1].toLowerCase() !== periodB[1].toLowerCase()
  ) {
    return `${periodA[1]} / ${periodB[1]} the ${periodB[2]}`;
  }
  return undefined;
}

/**
 * Two parts of the day that never meet ("early morning" / "late afternoon"), one in each row,
 * and most of the shorter row's words shared in some form: the words are compared by their
 * first {@link RULE_WINDOW_PREFIX} letters, so "delivers" meets "deliveries" and "visiting"
 * meets "visitors", which the stemmer keeps apart.
 */
function disjointWindows(
  left: SentenceShape,
  right: SentenceShape,
): { a: string; b: string } | undefined {
  const spanA = left.values.find((value) => value.span);
  const spanB = right.values.find((value) => value.span);
  if (!spanA?.span || !spanB?.span) return undefined;
  if (!(spanA.span[1] <= spanB.span[0] || spanB.span[1] <= spanA.span[0])) return undefined;
  const words = (shape: SentenceShape) =>
    shape.words.filter((word) => word !== VALUE_SLOT && !word.startsWith("xstate"))
      .map((word) => word.slice(0, RULE_WINDOW_PREFIX));
  const wordsA = words(left);
  const wordsB = words(right);
  const [shorter, longer] = wordsA.length <= wordsB.length ? [wordsA, wordsB] : [wordsB, wordsA];
  if (shorter.length === 0) return undefined;
  const shared = shorter.filter((word) => longer.includes(word)).length;
  return shared / shorter.length >= RULE_WINDOW_MIN_SHARE
    ? { a: spanA.raw, b: spanB.raw }
    : undefined;
}

/** A state still to come: "will work from the office next month", "is going to be private". */
const PLAN =
  /\b(?:will|shall|is going to|are going to|plans? to|planning to|intends? to)\b|将要|打算|计划/iu;

/**
 * One row plans the opposite state and the other states the present one ("Kim will work from
 * the office next month" / "Kim works remotely"): the plan is not yet the fact, so both hold.
 * A plan against the same plan, or a row that names a change, is left to the other rules.
 */
function planned(
  a: string,
  b: string,
  left: SentenceShape,
  right: SentenceShape,
): string | undefined {
  if (left.states.length === 0 || right.states.length === 0) return undefined;
  const planA = a.match(PLAN)?.[0];
  const planB = b.match(PLAN)?.[0];
  if (planA && !planB && right.updatePhrases.length === 0) return planA;
  if (planB && !planA && left.updatePhrases.length === 0) return planB;
  return undefined;
}

/**
 * "Sara's manager is back at work" next to "Sara is on parental leave": the possessive names
 * someone or something of the other row's subject, which has its own state.
 */
function ownersThing(text: string, other: string): string | undefined {
  const match = text.match(/^\s*(?:the\s+)?([\p{L}\p{N}]+)['’]s\s+([\p{L}-]+)/iu);
  if (!match) return undefined;
  const owner = match[1].toLowerCase();
  const lowerOther = other.toLowerCase();
  const names = (word: string) =>
    new RegExp(`(?<![\\p{L}])${escapeRegex(word)}(?![\\p{L}'’])`, "iu");
  return names(owner).test(lowerOther) && !names(match[2].toLowerCase()).test(lowerOther) &&
      !new RegExp(`${escapeRegex(owner)}['’]s`, "iu").test(lowerOther)
    ? `${match[1]}'s ${match[2]}`
    : undefined;
}

/** E-mail addresses, URLs and phone numbers: a row that names one says who or where exactly. */
const IDENTIFIER = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?:\/\/\S+|\+?\d[\d ()-]{7,}\d/gu;

/** Each row names one identifier of the same kind (two phone numbers, two e-mail addresses). */
function differentIdentifiers(
  a: string,
  b: string,
): { a: string; b: string; kind: string } | undefined {
  const kinds: [string, RegExp][] = [
    ["e-mail address", /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gu],
    ["URL", /https?:\/\/\S+/gu],
    ["phone number", /\+?\d[\d ()-]{5,}\d/gu],
  ];
  for (const [kind, pattern] of kinds) {
    const left = a.match(pattern) ?? [];
    const right = b.match(pattern) ?? [];
    if (
      left.length === 1 && right.length === 1 && left[0] !== right[0] &&
      sameResource(left[0]) !== sameResource(right[0])
    ) {
      return { a: left[0], b: right[0], kind };
    }
  }
  return undefined;
}

/**
 * An identifier as the thing it names: lower case, without trailing punctuation, and for a URL
 * without its anchor, its query and a final slash ("…/qs#readme" and "…/qs" are one page).
 */
function sameResource(id: string): string {
  const bare = id.toLowerCase().replace(/[.,;:)\]>"']+$/u, "");
  return /^https?:\/\//u.test(bare) ? bare.replace(/[?#].*$/u, "").replace(/\/+$/u, "") : bare;
}

/**
 * An identifier both rows name ("Alice can be reached at alice@acme.com" / "Alice's email address
 * is alice@acme.com"): the rows agree on the one thing that could differ.
 */
function sharedIdentifier(a: string, b: string): string | undefined {
  const clean = sameResource;
  const ids = new Set((a.match(IDENTIFIER) ?? []).map(clean));
  return (b.match(IDENTIFIER) ?? []).map(clean).find((id) => ids.has(id));
}

/**
 * "I ran 5 km this morning" / "Last weekend I ran 10 km": what a speaker did is an episode, and
 * two episodes with different amounts are two occasions, not a changed fact.
 */
const FIRST_PERSON = /(?:^|[\s,])(?:i|i'm|i've|my|me)\b/iu;

/**
 * The value a row's change leads to ("upgraded to PostgreSQL 16" → "16") when the other row
 * holds it too; undefined when no change of this row ends in a shared value.
 */
/** Chinese words that date the start of a period, and those that date its end. */
const PERIOD_START = /生效|开始|开学|开课|开业|起租|启用/u;
const PERIOD_END = /到期|截止|结束|终止|过期|期满|停用/u;

/** The start word of one row and the end word of the other, when one dates each end. */
function periodEnds(a: string, b: string): { start: string; end: string } | undefined {
  for (const [first, second] of [[a, b], [b, a]]) {
    const start = first.match(PERIOD_START)?.[0];
    const end = second.match(PERIOD_END)?.[0];
    if (start && end && !PERIOD_END.test(first) && !PERIOD_START.test(second)) {
      return { start, end };
    }
  }
  return undefined;
}

/** An open licence by its identifier (SPDX-like names; "MIT" and "ISC" in capitals only). */
const OPEN_LICENCE =
  /\b(?:MIT|ISC|(?:apache|gpl|lgpl|agpl|bsd|mpl|epl)(?:[- ]?v?\d(?:\.\d)?)?(?:[- ]\d-clause)?|cc[- ]by(?:[- ](?:sa|nd|nc))*(?:[- ]\d\.\d)?|cc0|unlicense)\b/u;
/** {@linkcode OPEN_LICENCE} in any case, tried when the exact-case form finds nothing. */
const OPEN_LICENCE_ANY_CASE = new RegExp(OPEN_LICENCE.source, "iu");
const CLOSED_LICENCE = /\b(?:proprietary|closed[- ]source)\b/iu;

/** One row names an open licence and the other says the thing is proprietary. */
function openLicenceAgainstClosed(
  text: string,
  shape: SentenceShape,
  otherText: string,
  other: SentenceShape,
): { a: string; b: string } | undefined {
  const closed = otherText.match(CLOSED_LICENCE);
  if (!closed) return undefined;
  const open = text.match(OPEN_LICENCE) ?? text.match(OPEN_LICENCE_ANY_CASE);
  if (!open || CLOSED_LICENCE.test(text) || shape.negated || !other.negated) {
    return undefined;
  }
  return { a: open[0], b: closed[0] };
}

/** The place preposition right before each row's differing run, when it is the same one. */
function samePlacePreposition(
  a: string,
  surfaceA: readonly string[],
  b: string,
  surfaceB: readonly string[],
): string | undefined {
  const before = (text: string, surface: readonly string[]) => {
    if (surface.length === 0) return undefined;
    const match = new RegExp(
      `\\b(in|at|inside|under|behind)\\s+(?:(?:the|a|an|our|my|his|her|their)\\s+)?${
        escapeRegex(surface[0])
      }\\b`,
      "iu",
    ).exec(text);
    return match?.[1].toLowerCase();
  };
  // "in the cafeteria on weekdays" / "in the garden during summer weekends": places scoped to
  // times, each true at its time.
  if (TIME_SCOPE.test(a) || TIME_SCOPE.test(b)) return undefined;
  const left = before(a, surfaceA);
  return left !== undefined && left === before(b, surfaceB) ? left : undefined;
}

const TIME_SCOPE =
  /\b(?:on|during|in|at|over)\s+(?:the\s+)?(?:\w+\s+)?(?:weekdays?|weekends?|summer|winter|spring|autumn|fall|mornings?|afternoons?|evenings?|nights?|holidays?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b/iu;

const PREPOSITION = /^(?:in|on|by|at|for|with|from|to|under|over|via|through|into|onto)$/iu;

/**
 * The one preposition inside a differing run as the row writes it ("written in Go" → "in"),
 * when the run spans two words or more around it.
 */
function runPreposition(text: string, surface: readonly string[]): string | undefined {
  if (surface.length < 2) return undefined;
  const lower = text.toLowerCase();
  const from = lower.indexOf(surface[0].toLowerCase());
  const last = surface[surface.length - 1].toLowerCase();
  const to = lower.indexOf(last, from + 1);
  if (from < 0 || to < 0) return undefined;
  const inside = lower.slice(from, to).split(/[^\p{L}]+/u).filter((w) => PREPOSITION.test(w));
  return inside.length === 1 ? inside[0] : undefined;
}

const SPEAKER_SUBJECT = /^\s*(?:i|we)\b(?!['’]d\b)/iu;
const RELATIVE_SUBJECT =
  /^\s*(?:my|our)\s+(?:\w+\s+)?(?:wife|husband|partner|son|daughter|kids?|children|child|mom|mum|mother|dad|father|parents|brother|sister|friend|friends|boss|manager|colleague|coworker|roommate|girlfriend|boyfriend|grandma|grandpa|neighbou?r)\b/iu;

/**
 * One row's subject is the speaker ("I run…"), the other's a person close to them ("my wife…").
 * "Our family" is left out: "we" is the family.
 */
function speakerAndRelative(a: string, b: string): boolean {
  return SPEAKER_SUBJECT.test(a) && RELATIVE_SUBJECT.test(b);
}

/** "now" or "currently" on one side only, and no named change on either side. */
function oneSidedPresent(left: SentenceShape, right: SentenceShape): boolean {
  const soft = (shape: SentenceShape) =>
    shape.updatePhrases.length > 0 &&
    shape.updatePhrases.every((phrase) => SOFT_UPDATE_PHRASES.has(phrase));
  return soft(left) !== soft(right) &&
    (left.updatePhrases.length === 0 || right.updatePhrases.length === 0);
}

/** The row opens with a content word the other row does not have (its own subject). */
function ownLead(shape: SentenceShape, other: Set<string>): boolean {
  const first = shape.words.find((word) => word !== VALUE_SLOT);
  return first !== undefined && !other.has(first);
}

/** The first differing pair holds amounts of one kind (two durations, two times, two counts). */
function sameKindOfAmount(first: { a: SentenceValue; b: SentenceValue }): boolean {
  return first.a.dimension === first.b.dimension;
}

function changeTarget(
  text: string,
  shape: SentenceShape,
  other: SentenceShape,
): string | undefined {
  // Values are read with their numerals as digits ("two weeks" is "2 weeks").
  const lower = normalizeNumerals(text).toLowerCase();
  for (const phrase of shape.updatePhrases) {
    // "switched to X" ends in X; "starting from X" / "as of X" dates the state from X, and the
    // other row dating it from X as well ("since Node.js v18") tells the same history.
    if (
      !/\b(?:to|into|for|with|by)$|^(?:as of|starting (?:from|on|in)|effective(?: from)?)$/.test(
        phrase,
      )
    ) {
      continue;
    }
    for (const value of shape.values) {
      if (!other.values.some((theirs) => sameValue(value, theirs))) continue;
      const near = new RegExp(
        `${escapeRegex(phrase)}\\s+(?:\\S+\\s+){0,2}?${escapeRegex(value.raw.toLowerCase())}`,
        "u",
      );
      if (near.test(lower)) return value.raw;
    }
  }
  return undefined;
}

/**
 * When a row says something happened: "yesterday", "last week", "this morning", "3 days ago".
 * Two rows anchored at different such times, each with a past action, tell two occasions
 * ("Melanie painted a sunset last week" / "Melanie painted a lake scene yesterday").
 */
const OCCASION =
  /\b(?:yesterday|last\s+(?:night|week|weekend|month|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this\s+(?:morning|afternoon|evening|past\s+weekend)|\d+\s+(?:days?|weeks?|months?)\s+ago|(?:a|one|two|three)\s+(?:days?|weeks?|months?)\s+ago)\b/iu;

/** An occasion still to come: "next weekend", "tomorrow", "in two weeks". */
const FUTURE_OCCASION =
  /\b(?:tomorrow|tonight|next\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in\s+(?:\d+|a|one|two|three)\s+(?:days?|weeks?|months?))\b/iu;

function twoOccasions(a: string, b: string): string | undefined {
  const left = a.match(OCCASION)?.[0].toLowerCase();
  const right = b.match(OCCASION)?.[0].toLowerCase();
  // "I went hiking last weekend" / "I'm going hiking next weekend": one occasion told in the
  // past, one still to come.
  const pastAndPlan = (past: string, plan: string) =>
    past.match(OCCASION) && PAST_ACTION.test(past) && !plan.match(OCCASION)
      ? plan.match(FUTURE_OCCASION)?.[0].toLowerCase()
      : undefined;
  const planB = pastAndPlan(a, b);
  if (planB) return `${left} / ${planB}`;
  const planA = pastAndPlan(b, a);
  if (planA) return `${planA} / ${right}`;
  if (!left || !right || left === right) return undefined;
  return PAST_ACTION.test(a) && PAST_ACTION.test(b) ? `${left} / ${right}` : undefined;
}

/** "I made it in pottery class", "I painted this after I visited…": something a speaker did. */
function episode(text: string): boolean {
  return FIRST_PERSON.test(text) && PAST_ACTION.test(text);
}
const PAST_ACTION =
  /\b(?:\p{L}{3,}ed|made|went|took|got|had|did|saw|ran|met|came|gave|found|bought|wrote|told|felt|thought|sang|ate|drank|won|lost|began|built|spent|sent|brought|caught|taught)\b/iu;

/** The differing word names a scope ("the refund window for hardware" / "…for software"). */
function scoped(text: string, differing: readonly string[]): boolean {
  const lower = text.toLowerCase();
  // "for the data team", "of all students", and any differing word after "for" or "in"
  // ("in production" / "for notebooks"): each row limits the amount to its own scope.
  return differing.length > 0 &&
    (new RegExp(`\\b(?:for|of)\\s+(?:the\\s+|all\\s+)?${escapeRegex(differing[0])}`, "u")
      .test(lower) ||
      differing.some((word) =>
        new RegExp(`\\b(?:for|in)\\s+(?:the\\s+|all\\s+|our\\s+)?${escapeRegex(word)}\\b`, "u")
          .test(lower)
      ));
}

/** The differing words follow a demonstrative: "this script", "that file". */
function pointedAt(text: string, differing: readonly string[]): boolean {
  if (differing.length === 0) return false;
  const at = text.toLowerCase().indexOf(differing[0].toLowerCase());
  return at > 0 && /\b(?:this|that|these|those)\s+$/u.test(text.slice(0, at).toLowerCase());
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** "The deadline for the grant is…": the subject's head, its preposition and its complement. */
const SUBJECT_COMPLEMENT =
  /^\s*(?:the\s+|our\s+|my\s+)?([\p{L}\p{N}' -]+?)\s+(with|for|of|at)\s+(?:the\s+|a\s+|an\s+|our\s+|my\s+)?([\p{L}\p{N}' -]+?)\s+(?:is|are|was|were|has|have|runs?|starts?|ends?|happens?|costs?|takes?)\b/iu;

function subjectComplement(
  text: string,
): { head: string; of: string; shown: string } | undefined {
  const found = text.match(SUBJECT_COMPLEMENT);
  if (!found) return undefined;
  const key = (words: string) =>
    words.toLowerCase().split(/\s+/u).filter((w) => w !== "").map(stem).join(" ");
  return {
    head: `${key(found[1])} ${found[2].toLowerCase()}`,
    of: key(found[3]),
    shown: `${found[1]} ${found[2]} ${found[3]}`.trim(),
  };
}

/**
 * Both rows put a different word right before the same shared word ("the free plan" / "the
 * business plan", "billing timeout" / "search timeout"): parallel qualifiers of one head noun
 * name two different things.
 */
function qualifierSwap(
  left: SentenceShape,
  leftDiff: readonly string[],
  right: SentenceShape,
  rightDiff: readonly string[],
): boolean {
  // The shared head after the differing run, keyed by the shared words before the run: the
  // slot must be the same on both sides ("the free plan" / "the business plan").
  const heads = (shape: SentenceShape, diff: readonly string[]) => {
    const start = shape.words.findIndex((word) => diff.includes(word));
    // As a set: "prefer tabs over spaces in Go code" / "prefer spaces over tabs in Python code"
    // name the same words before the slot in another order.
    const before = shape.words.slice(0, Math.max(0, start)).filter((word) => word !== VALUE_SLOT)
      .sort();
    return new Set(
      shape.words.filter((word, i) =>
        i > 0 && diff.includes(shape.words[i - 1]) && !diff.includes(word) && word !== VALUE_SLOT
      ).map((word) => `${before.join(" ")}|${word}`),
    );
  };
  // An attribute word on either side ("enterprise tier" / "enterprise pricing") rewords the
  // attribute; parallel qualifiers are two content words ("free" / "business").
  const attribute = (word: string) => word.startsWith("@") || ATTRIBUTE_NOUNS.has(word);
  if (leftDiff.some(attribute) || rightDiff.some(attribute)) return false;
  const leftHeads = heads(left, leftDiff);
  return [...heads(right, rightDiff)].some((word) => leftHeads.has(word));
}

const MULTI_VALUED = new RegExp(
  `(?<![\\p{L}])(?:${MULTI_VALUED_VERBS.join("|")})(?![\\p{L}])`,
  "iu",
);

/** True when some word of `surface` is written with a capital in `text`, not first. */
function someCapitalized(text: string, surface: readonly string[]): boolean {
  const lower = text.toLowerCase();
  return surface.some((word) => {
    const at = lower.indexOf(word);
    return at > 0 && /\p{Lu}/u.test(text[at]);
  });
}

/** True when every word of `surface` is written with a capital in `text` (a name). */
function capitalized(text: string, surface: readonly string[]): boolean {
  return surface.length > 0 && surface.every((word) => {
    const at = text.toLowerCase().indexOf(word);
    return at >= 0 && /\p{Lu}/u.test(text[at]);
  });
}

/**
 * The differing words stand before the verb ("the build cache is stored in S3" / "the build
 * artifacts are stored in S3"): two subjects with one property. A role held by one person
 * ("Priya is the tech lead" / "Marcus is the tech lead") is the exception: "is the".
 */
function subjectSwap(text: string, differing: readonly string[]): boolean {
  const lower = text.toLowerCase();
  const verb = lower.search(/\b(?:is|are|was|were|has|have)\b/);
  if (verb < 0 || /\b(?:is|are|was|were)\s+(?:the|our)\b/.test(lower)) return false;
  return differing.length > 0 && differing.every((word) => {
    const at = lower.indexOf(word);
    return at >= 0 && at < verb;
  });
}

const READ_CACHE_MAX = 4096;
/** A row read once: not a claim, or its sentence shape, claim text and bare sentence. */
interface SideReading {
  notAClaim?: string;
  shape?: SentenceShape;
  text?: string;
  bare?: { text: string; words: number };
}
/**
 * Rows read recently. Detection compares one new row with the rows of up to 20 neighbours,
 * and the scan compares each row with many: reading a row (a dozen regular expressions) once
 * instead of once per pair. Bounded; the oldest entry goes first.
 */
const READ_CACHE = new BoundedMap<string, SideReading>(READ_CACHE_MAX);

function readSide(
  side: EvidenceSide,
): SideReading {
  const key = `${side.eventTime ?? ""}\u0000${side.text}`;
  const cached = READ_CACHE.get(key);
  if (cached) return cached;
  const claim = readClaim(side.text);
  const read = claim.notAClaim
    ? { notAClaim: claim.notAClaim }
    // URLs and e-mail addresses are compared whole, as identifiers; their parts ("github.com",
    // "https", a version in a path) are neither attribute words nor values.
    : {
      shape: readSentence(withoutIdentifiers(claim.text), { eventTime: side.eventTime }),
      text: claim.text,
      bare: bareSentence(claim.text),
    };
  READ_CACHE.set(key, read);
  return read;
}

/** A subject read once: every pair of a detection run compares the new memory's subject. */
function readSubject(subject: string): SentenceShape {
  const key = `subject\u0000${subject}`;
  const cached = READ_CACHE.get(key)?.shape;
  if (cached) return cached;
  const shape = readSentence(subject);
  READ_CACHE.set(key, { shape });
  return shape;
}

function contentSet(shape: SentenceShape): Set<string> {
  return new Set(shape.words.filter((word) => word !== VALUE_SLOT));
}

/** The content words minus those glued to a value and absent from the other row. */
function coreSet(shape: SentenceShape, other: Set<string>): Set<string> {
  return new Set(
    shape.words.filter((word, i) =>
      word !== VALUE_SLOT && !(shape.attached[i] && !other.has(word))
    ),
  );
}

/** Share of the shorter subject's words found in the other; undefined when one is missing. */
function subjectsOverlap(a?: string, b?: string): number | undefined {
  if (!a?.trim() || !b?.trim()) return undefined;
  const left = contentSet(readSubject(a));
  const right = contentSet(readSubject(b));
  if (left.size === 0 || right.size === 0) return undefined;
  const shared = [...left].filter((word) => right.has(word)).length;
  return shared / Math.min(left.size, right.size);
}

/** For each dimension both rows have: do their values agree? */
function compareValues(
  left: SentenceValue[],
  right: SentenceValue[],
  changeNamed: boolean,
): ValueComparison {
  const out: ValueComparison = { differing: [], agreeing: 0 };
  const dimensions = new Set(left.map((v) => v.dimension));
  // Times of day compare as windows: "in the morning, before 11:00" holds "around 10:00" and
  // excludes "in the afternoon, after 15:00".
  const windowLeft = timeWindow(left);
  const windowRight = timeWindow(right);
  if (windowLeft && windowRight && right.some((v) => v.dimension === "time")) {
    dimensions.delete("time");
    // Parts of the day meet at their edges (morning ends where afternoon begins): two windows
    // that only touch are disjoint.
    const touch = (x: [number, number], y: [number, number]) =>
      x[1] === y[0] && x[0] < x[1] && y[0] < y[1];
    if (
      windowLeft[1] < windowRight[0] || windowRight[1] < windowLeft[0] ||
      touch(windowLeft, windowRight) || touch(windowRight, windowLeft)
    ) {
      const describe = (values: SentenceValue[]) =>
        values.filter((v) => v.dimension === "time").map((v) => v.raw).join(", ");
      const a = left.find((v) => v.dimension === "time")!;
      const b = right.find((v) => v.dimension === "time")!;
      out.differing.push({ a: { ...a, raw: describe(left) }, b: { ...b, raw: describe(right) } });
    } else if ([...left, ...right].some((v) => v.dimension === "time" && !v.span)) {
      // Two rows in the same part of the day agree on little ("I prefer tea in the morning" /
      // "I drink coffee in the morning instead"); a clock time inside the other's window agrees.
      out.agreeing++;
    }
  }
  for (const dimension of dimensions) {
    // Rates per different periods ("$5 per hour" / "$30 for the whole day") are two prices.
    const mine = left.filter((v) =>
      v.dimension === dimension && right.some((w) => w.dimension === dimension && samePer(v, w))
    );
    const theirs = right.filter((w) =>
      w.dimension === dimension && mine.some((v) => samePer(v, w))
    );
    if (theirs.length === 0) {
      const rateA = left.find((v) => v.dimension === dimension && v.per !== undefined);
      const rateB = right.find((w) => w.dimension === dimension && w.per !== undefined);
      if (rateA && rateB) out.otherPeriod = { a: rateA, b: rateB };
      continue;
    }
    const unmatchedMine = mine.filter((v) => !theirs.some((w) => sameValue(v, w)));
    const unmatchedTheirs = theirs.filter((w) => !mine.some((v) => sameValue(v, w)));
    // "The service needs at least 2 GB" / "we run it with 4 GB", "delivery takes 3 to 5 days" /
    // "usually 4 days": an amount inside the other row's range agrees with it, unless a row
    // names a change (then the range itself was replaced).
    const inside = !changeNamed && unmatchedMine.length > 0 && unmatchedTheirs.length > 0 &&
      (withinRange(mine, unmatchedTheirs) || withinRange(theirs, unmatchedMine));
    if (inside) {
      out.agreeing++;
    } else if (unmatchedMine.length > 0 && unmatchedTheirs.length > 0) {
      out.differing.push({ a: unmatchedMine[0], b: unmatchedTheirs[0] });
    } else if (unmatchedMine.length === 0 || unmatchedTheirs.length === 0) {
      // A row listing one more value of a dimension ("Mondays and Thursdays") adds, it does
      // not contradict; only a value on each side without a partner is a difference.
      out.agreeing++;
    }
  }
  return out;
}

/**
 * Each row has amounts, and of kinds the other never has (a duration and a percentage: "the
 * cache TTL is 10 minutes" / "the cache hit rate grew to 85%"): a named change on one side
 * cannot be rewording the other's value. Bare numbers and counts are left out (they may be the
 * same amount read without its unit: "capped at 500 rows" / "the row cap went up to 2,000").
 */
function otherKindOfAmount(left: SentenceShape, right: SentenceShape): boolean {
  const kinds = (shape: SentenceShape) =>
    new Set(shape.values.map((v) => v.dimension.split(":")[0]));
  const mine = kinds(left);
  const theirs = kinds(right);
  if (mine.size === 0 || theirs.size === 0) return false;
  for (const loose of ["scalar", "count", "rate"]) {
    if (mine.has(loose) || theirs.has(loose)) return false;
  }
  return [...mine].every((kind) => !theirs.has(kind));
}

/**
 * Each row has an amount with a unit and no kind of amount is on both sides ("3 projects" / "1
 * GB"): the first amount of each, for the reason. Bare numbers, times and dates are left out (a
 * bare number may be an amount whose unit the row leaves unsaid). Two currencies are one kind (a
 * price), and so are counts of two nouns ("12 engineers" / "8 people").
 */
function amountKinds(left: SentenceShape, right: SentenceShape): string | undefined {
  const measured = (shape: SentenceShape) =>
    shape.values.filter((v) => !["scalar", "time", "date", "weekday"].includes(v.dimension));
  const mine = measured(left);
  const theirs = measured(right);
  if (mine.length === 0 || theirs.length === 0) return undefined;
  if (left.values.length !== mine.length || right.values.length !== theirs.length) {
    return undefined;
  }
  // "25 vacation days" / "30 days of vacation": a count whose noun the other row names is the
  // same amount in other words.
  const countOf = (value: SentenceValue, other: SentenceShape) =>
    value.dimension.startsWith("count:") &&
    other.words.includes(stem(value.dimension.slice("count:".length)));
  if (mine.some((v) => countOf(v, right)) || theirs.some((v) => countOf(v, left))) {
    return undefined;
  }
  const kind = (value: SentenceValue) => value.dimension.split(":")[0];
  const theirKinds = new Set(theirs.map(kind));
  if (mine.some((value) => theirKinds.has(kind(value)))) return undefined;
  return `${mine[0].raw} / ${theirs[0].raw}`;
}

/** Two amounts can be compared unless each is a rate and their periods differ. */
function samePer(a: SentenceValue, b: SentenceValue): boolean {
  return a.per === undefined || b.per === undefined || a.per === b.per;
}

/** The words of `shape` the other row lacks, and how many separate runs they form. */
function differingRuns(
  shape: SentenceShape,
  other: Set<string>,
  skipAttached: boolean,
  text: string,
): { words: string[]; surface: string[]; shown: string[]; runs: number } {
  const words: string[] = [];
  const surface: string[] = [];
  // The same words as the row writes them, for evidence a user reads.
  const shown: string[] = [];
  let runs = 0;
  let inRun = false;
  shape.words.forEach((word, i) => {
    const differs = word !== VALUE_SLOT && !other.has(word) &&
      !(skipAttached && shape.attached[i]);
    if (differs) {
      if (!inRun) runs++;
      words.push(word);
      surface.push(shape.surface[i]);
      const own = ownWords(text, word);
      if (own !== undefined) shown.push(own);
    }
    inRun = differs;
  });
  return { words, surface, shown, runs };
}

function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
