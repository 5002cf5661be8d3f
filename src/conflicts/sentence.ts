/**
 * Reads one evidence row the way the conflict rule stage compares rows: its values (cut out
 * and normalized), its content words in order (stopwords dropped, light stemming, attribute
 * families merged, a `#` where each value stood), and the phrases that mark it as an update,
 * a negation, a historical statement or an addition.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSentence } from "./sentence.ts";
 *
 * const shape = readSentence("The deadline moved to Monday.");
 * assert.deepEqual(shape.words, ["@due", "#"]);
 * assert.deepEqual(shape.updatePhrases, ["moved to"]);
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import {
  ABBREVIATIONS,
  ADDITION_PHRASES,
  ATTRIBUTE_FAMILIES,
  DERIVED_FORMS,
  HISTORICAL_PHRASES,
  IRREGULAR_FORMS,
  NEGATION_PHRASES,
  PAST_TENSE_WORDS,
  QUALIFIER_PHRASES,
  STATE_ANTONYMS,
  STOPWORDS,
  UPDATE_PHRASES,
} from "./lexicon.ts";
import { normalizeNumerals } from "../text/numerals.ts";
import { extractValues, type SentenceValue } from "./values.ts";
import {
  RULE_DERIVED_MIN_BASE as DERIVED_MIN_BASE,
  RULE_TEXT_READS_KEPT,
  STEM_CACHE_MAX,
} from "./constants.ts";

/** Stems by word ({@link stem}): chat repeats its words, and the duplicate test stems them all. */
const STEMS = new BoundedMap<string, string>(STEM_CACHE_MAX);
/** Marks a state token among the words ("xstateallowed"); never a word people write. */
const STATE_TOKEN_PREFIX = "xstate";

/**
 * "Before the upgrade, the quota was 50 GB", "Until 2021 the data center was in Virginia",
 * "…was in Virginia until 2021": a past-tense row anchored before a point in time is history.
 */
const PAST_ANCHOR = [
  /^\s*(?:before|until|till|prior to)\b[^,.;]{1,60},.*\b(?:was|were|had|used|did|cost|ran)\b/iu,
  /\b(?:was|were|had|used)\b.*\buntil\s+(?:\d{4}|last\b)/iu,
  // "Kim worked remotely during the lockdown": a past-tense verb held during a named period.
  /\b(?:was|were|had|used|\p{L}{3,}ed)\b.*\bduring\s+(?:the|a|an|that|our|his|her|their)\s+\p{L}+/iu,
];

function pastAnchor(text: string): string | undefined {
  for (const pattern of PAST_ANCHOR) {
    const match = text.match(pattern);
    if (match) return match[0].trim().split(/\s+/).slice(0, 3).join(" ");
  }
  return undefined;
}

/** "pushed the launch back", "moved the meeting up": a change verb, its object, its particle. */
const SPLIT_PARTICLE =
  /\b(pushed|moved|brought|switched)\s+((?:the|our|their|this|that|it)\s+(?:[a-z]+\s+)?[a-z]+|it)\s+(back|up|forward)\b/g;

/** The frequency family a rate's period reads as ("$1,500 a year" meets "the annual fee"). */
const RATE_TOKENS: Record<string, string> = {
  year: "@yearly",
  month: "@monthly",
  week: "@weekly",
  day: "@daily",
  hour: "@hourly",
};

/** Words just before a value that make it the replaced one. */
const REPLACED_VALUE =
  /(?:instead of|rather than|in place of|replacing|up from|down from|was|formerly|改为[^，。]*前的|而不是)\s*(?:the\s+)?$/iu;

/**
 * "went from 50 MB to 200 MB", "moved from March 3 to March 17": the value after "from" is the
 * old one when the next value, of the same kind, follows "to". A window of the day ("from 8:00
 * to 12:00") has no change word before it and keeps both ends.
 */
function changedFrom(source: string, value: SentenceValue, next?: SentenceValue): boolean {
  if (!next || next.dimension !== value.dimension || value.dimension === "time") return false;
  if (!/\bfrom\s*$/iu.test(source.slice(Math.max(0, value.start - 8), value.start))) return false;
  if (!/^\s*to\s*$/iu.test(source.slice(value.end, next.start))) return false;
  return CHANGE_BEFORE_FROM.test(source.slice(0, value.start));
}
/** A verb of change before "from X to Y" ("went", "moved", "raised", "changed", "grew"). */
const CHANGE_BEFORE_FROM =
  /\b(?:went|gone|go|goes|moved?|raised?|rais(?:es|ing)|lowered|increased|decreased|reduced|cut|changed?|grew|grown|rose|risen|fell|fallen|dropped|jumped|climbed|shrank|shrunk|bumped|pushed|pulled|upgraded|downgraded|extended|shortened|switched|rescheduled|postponed)\b[^.;]*from\s*$/iu;

/** The placeholder a value leaves among the content words. */
export const VALUE_SLOT = "#";

/** One row, read for comparison. */
export interface SentenceShape {
  /** The values, in text order. */
  values: SentenceValue[];
  /** Content words in text order, {@link VALUE_SLOT} where a value stood. */
  words: string[];
  /** The content words as written, parallel to `words` (for explanations). */
  surface: string[];
  /**
   * Parallel to `words`: the word is glued to a value (no stopword between), so it is part of
   * the value as written ("500 Market St", "Postgres 14.5", "3 replicas").
   */
  attached: boolean[];
  /** Odd one out: the row denies something ("not", "no longer", "stopped"). */
  negated: boolean;
  /**
   * The row's denial comes only from "without …" ("available globally without requiring
   * imports"): what it denies is the words after it, {@link SentenceShape.withoutWords}.
   */
  negatedOnlyWithout: boolean;
  /** Content words (stems or families) after "without", up to the end of its clause. */
  withoutWords: string[];
  /** Update phrases found ("moved to", "now"). */
  updatePhrases: string[];
  /** Why the row reads as history, when it does ("used to", "in 2019"). */
  historical?: string;
  /** Addition phrases found ("also", "as well"). */
  additions: string[];
  /** Phrases that narrow the statement to a part ("per file", "extra", "students"). */
  qualifiers: string[];
  /** State words found, as their state token ("prohibited" → "allowed"). */
  states: string[];
}

/** Options of {@link readSentence}. */
export interface ReadSentenceOptions {
  /** When the fact was true or stated; a year before it makes "in 2019" history. */
  eventTime?: string | number | Date;
}

/** "single" after an article or quantifier counts one thing; only "is single" is a state. */
const ATTRIBUTIVE_SINGLE = /\b(a|an|the|one|every|each|any|per|only)\s+single\b/gu;

/**
 * "The store is open until 21:00" names the closing time, the moment "the store closes at 19:00"
 * names, not a window that 19:00 falls inside.
 */
const OPEN_UNTIL = /\b(?:(?:is|are|stays?|remains?)\s+)?open\s+(?:until|till)\b(?=\s*\d)/giu;

const VALUE_MARK = "\uE000";
const WORD = /[@\p{L}\p{N}_\uE000][\p{L}\p{N}_.+\-\uE000]*/gu;
const HAN = /\p{Script=Han}/u;

/**
 * A phrase and its pattern between word edges. The pattern is compiled on first use: the
 * hundreds of phrases' `\p{L}` edges cost ~0.3 s to compile, which every start paid at import,
 * and most phrases are never tried (a pass checks `includes(phrase)` first).
 */
class PhraseMatcher {
  #regex: RegExp | undefined;
  constructor(readonly phrase: string) {}

  get regex(): RegExp {
    return this.#regex ??= HAN.test(this.phrase)
      ? new RegExp(escape(this.phrase), "g")
      : new RegExp(`(?<![\\p{L}\\p{N}_])${escape(this.phrase)}(?![\\p{L}\\p{N}_])`, "gu");
  }
}

/** A state word: its state's token, and whether it denies the state. */
class StateMatcher extends PhraseMatcher {
  constructor(phrase: string, readonly token: string, readonly off: boolean) {
    super(phrase);
  }
}

function matchers(phrases: readonly string[]): PhraseMatcher[] {
  return [...phrases].sort((x, y) => y.length - x.length).map((phrase) =>
    new PhraseMatcher(phrase)
  );
}

const UPDATE = matchers(UPDATE_PHRASES);
const NEGATION = matchers(NEGATION_PHRASES);
const HISTORICAL = matchers(HISTORICAL_PHRASES);
const ADDITION = matchers(ADDITION_PHRASES);
const QUALIFIER = matchers(QUALIFIER_PHRASES);
/** Every state word, longest first, with its token and whether it denies the state. */
const STATE_WORDS: StateMatcher[] = matchers(
  Object.values(STATE_ANTONYMS).flatMap(({ on, off }) => [...on, ...off]),
).map(({ phrase }) => {
  const [token, entry] = Object.entries(STATE_ANTONYMS).find(([, { on, off }]) =>
    on.includes(phrase) || off.includes(phrase)
  )!;
  return new StateMatcher(phrase, token, entry.off.includes(phrase));
});
/**
 * "is free", "became free", "免费" (not "free tier", "免费商用"): a price of zero, so it meets
 * "costs $9.99" as two amounts. Kept to copular uses: "two months free" is not a price.
 */
const FREE_PRICE =
  /\b(is|are|was|were|be|been|became|become|becomes|now|stays|remains|went)\s+(?:completely\s+|entirely\s+)?free\b(?!\s+(?:of|for|to(?!\s+(?:use|play|download|join|read|watch|attend|install)\b)|tier|plan|trial|version|edition|account|seat))/giu;
const FREE_PRICE_HAN = /(?<![收])免费(?![商试版使用])/gu;
/** Chinese has no spaces: its stopwords are cut out as strings, longest first. */
const HAN_STOPWORDS = [...STOPWORDS].filter((word) => HAN.test(word))
  .sort((x, y) => y.length - x.length);
const NEGATING_UPDATES = new Set(UPDATE_PHRASES.filter((p) => NEGATION_PHRASES.includes(p)));

const FAMILY_PHRASES = matchers(
  Object.values(ATTRIBUTE_FAMILIES).flat().filter((member) =>
    member.includes(" ") || HAN.test(member)
  ),
);
const FAMILY_OF_PHRASE = new Map(
  Object.entries(ATTRIBUTE_FAMILIES).flatMap(([family, members]) =>
    members.map((member) => [member, family] as const)
  ),
);
const FAMILY_OF_STEM = new Map(
  Object.entries(ATTRIBUTE_FAMILIES).flatMap(([family, members]) =>
    members.filter((member) => !member.includes(" ")).map((member) => [stem(member), family])
  ),
);

/**
 * Reads a row for comparison.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSentence } from "./sentence.ts";
 *
 * assert.equal(readSentence("We used Jenkins in 2019.").historical, "in 2019");
 * assert.equal(readSentence("We don't use Jenkins.").negated, true);
 * ```
 */
export function readSentence(text: string, options: ReadSentenceOptions = {}): SentenceShape {
  const source = normalizeNumerals(text).replace(FREE_PRICE, "$1 $$0").replace(
    FREE_PRICE_HAN,
    "0元",
  ).replace(OPEN_UNTIL, "closes at");
  // The value a row says was replaced ("90 seconds instead of 5 minutes") is the old one, not a
  // second value of the row: it is not compared.
  const found = extractValues(source);
  const values = found.filter((value, i) =>
    !REPLACED_VALUE.test(source.slice(Math.max(0, value.start - 24), value.start)) &&
    !changedFrom(source, value, found[i + 1])
  );
  let masked = "";
  let cursor = 0;
  for (const value of values) {
    // A rate keeps its period as a word ("$1,500 a year" and "the annual license" share it).
    const per = value.per === undefined ? "" : RATE_TOKENS[value.per] ?? `@per${value.per}`;
    masked += `${source.slice(cursor, value.start)} ${VALUE_MARK} ${per} `;
    cursor = value.end;
  }
  masked += source.slice(cursor);
  // Phrasal verbs that look like a change but are not one ("dropped off the cakes").
  let lower = masked.toLowerCase().replace(/\b(dropped|dropping|drop)\s+(off|by)\b/g, "visit")
    // "keep going", "keeps me motivated": "keep" before a verb form means to continue, not to
    // store something somewhere.
    .replace(
      /\b(?:keep|keeps|kept|keeping)\s+(?:(?:me|you|us|them|him|her|it)\s+)?(?=[a-z]+(?:ing|ed)\b)/g,
      "continue ",
    )
    // A particle verb split by its object ("pushed the launch back") reads joined.
    .replace(SPLIT_PARTICLE, "$1 $3 $2")
    .replace(/[’‘`]/g, "'")
    .replace(
      /\b(can|won|shan)'t\b/g,
      (_, stemWord: string) =>
        `${stemWord === "won" ? "will" : stemWord === "shan" ? "shall" : "can"} not`,
    )
    .replace(/n't\b/g, " not")
    // "the flag is on." / "alerts are on for failed jobs": a switch's state, not the
    // preposition ("the meeting is on Monday" keeps its day).
    .replace(/\b(is|are)\s+(on|off)(?=\s*(?:[.;,!]|$|by default\b|for\b))/g, "$1 turned $2")
    // "switched off" is the off state; the update phrase "switched" would eat its verb.
    .replace(/\bswitched\s+(on|off)\b/g, "turned $1")
    // "read-only for everyone" is the read-only state, not the qualifier "only for".
    .replace(/\bread[- ]only\b/g, "readonly")
    .replace(/'s\b/g, "")
    // "a single VM", "every single file": a count of one, not the marital state "single".
    .replace(ATTRIBUTIVE_SINGLE, "$1 lone");

  const updatePhrases: string[] = [];
  // Polarity per clause: "not unavailable" cancels out, but "proprietary and cannot be
  // redistributed" denies twice, once per clause; the row is negated when a clause is.
  const clauses = new Map<number, boolean>();
  // The same without "without", which denies only the words after it, not the row's verb.
  const clausesBesidesWithout = new Map<number, boolean>();
  const withoutWords: string[] = [];
  const flip = (text: string, offset: number, phrase = "") => {
    const clause = (text.slice(0, offset).match(CLAUSE_BREAK) ?? []).length;
    clauses.set(clause, !(clauses.get(clause) ?? false));
    if (phrase === "without") {
      const rest = text.slice(offset + phrase.length).split(CLAUSE_BREAK)[0];
      for (const word of rest.match(WORD) ?? []) {
        if (STOPWORDS.has(word)) continue;
        withoutWords.push(
          word.startsWith("@") ? word : FAMILY_OF_STEM.get(stem(word)) ?? stem(word),
        );
      }
    } else clausesBesidesWithout.set(clause, !(clausesBesidesWithout.get(clause) ?? false));
  };
  lower = consume(lower, UPDATE, (phrase, offset, text) => {
    updatePhrases.push(phrase);
    if (NEGATING_UPDATES.has(phrase)) flip(text, offset);
  });
  const historicalPhrases: string[] = [];
  lower = consume(lower, HISTORICAL, (phrase) => historicalPhrases.push(phrase));
  const additions: string[] = [];
  lower = consume(lower, ADDITION, (phrase) => additions.push(phrase));
  const qualifiers: string[] = [];
  lower = consume(lower, QUALIFIER, (phrase) => qualifiers.push(phrase));
  const states: string[] = [];
  // A state word becomes its state's token; a word denying the state also flips the polarity.
  for (const word of STATE_WORDS) {
    const { phrase, token, off } = word;
    if (!lower.includes(phrase)) continue;
    lower = lower.replace(word.regex, (_match: string, offset: number, text: string) => {
      states.push(token);
      if (off) flip(text, offset);
      return ` ${token.startsWith("@") ? token : STATE_TOKEN_PREFIX + token.replace(/_/g, "")} `;
    });
  }
  // "no matter how small" concedes, it does not negate.
  lower = lower.replace(/\bno matter\b/g, " ");
  lower = consume(lower, NEGATION, (phrase, offset, text) => flip(text, offset, phrase));
  const negated = [...clauses.values()].some((odd) => odd);
  const negatedOnlyWithout = negated &&
    ![...clausesBesidesWithout.values()].some((odd) => odd);
  for (const matcher of FAMILY_PHRASES) {
    if (!lower.includes(matcher.phrase)) continue;
    lower = lower.replace(matcher.regex, ` ${FAMILY_OF_PHRASE.get(matcher.phrase)} `);
  }
  if (HAN.test(lower)) {
    for (const stopword of HAN_STOPWORDS) lower = lower.replaceAll(stopword, " ");
  }
  lower = lower.replace(/\p{Script=Han}/gu, (han) => ` ${han} `);

  const words: string[] = [];
  const surface: string[] = [];
  const attached: boolean[] = [];
  const rawWords = lower.match(WORD) ?? [];
  let valueIndex = 0;
  // Words since the last stopword or value. A value attaches the last of them and the words
  // after it up to the next stopword.
  let chain: number[] = [];
  let afterValue = false;
  for (const raw of rawWords) {
    const word = raw.replace(/[.\-+]+$/, "");
    if (word.includes(VALUE_MARK)) {
      // Only the word right before a value is its name ("Postgres 14.5", "costs $20"); a
      // longer run before it is the attribute ("the Pro plan costs $20").
      if (chain.length > 0) attached[chain[chain.length - 1]] = true;
      chain = [];
      afterValue = true;
      words.push(VALUE_SLOT);
      surface.push(values[valueIndex++]?.raw ?? VALUE_SLOT);
      attached.push(true);
      continue;
    }
    if (word === "" || STOPWORDS.has(word)) {
      chain = [];
      afterValue = false;
      continue;
    }
    const family = word.startsWith("@") ? word : FAMILY_OF_STEM.get(stem(word));
    chain.push(words.length);
    words.push(family ?? stem(word));
    surface.push(word);
    attached.push(afterValue);
  }

  const historical = historicalPhrases[0] ?? pastAnchor(text) ??
    pastYear(values, rawWords, masked, options);
  return {
    values,
    words,
    surface,
    attached,
    negated,
    negatedOnlyWithout,
    withoutWords,
    updatePhrases,
    ...(historical !== undefined && updatePhrases.length === 0 ? { historical } : {}),
    additions,
    qualifiers,
    states,
  };
}

const ORIGINAL_WORD = /[\p{L}\p{N}_][\p{L}\p{N}_.+\-'’]*/gu;

/**
 * The words of `text` as written that the reader turned into `token` (a stem, an attribute
 * family such as "@store", a state such as "xstaterequir"): what a user reads in evidence
 * instead of the reader's index words. Undefined when the text has no such word.
 */
export function ownWords(text: string, token: string): string | undefined {
  if (token === VALUE_SLOT || token === "") return undefined;
  // A check quotes the words each of its rows shares with every neighbour's.
  const key = `${token}\u0000${text}`;
  if (OWN_WORDS.has(key)) return OWN_WORDS.get(key);
  const found = ownWordsOnce(text, token);
  OWN_WORDS.set(key, found);
  return found;
}

/** Words quoted recently, by token and text. */
const OWN_WORDS = new BoundedMap<string, string | undefined>(RULE_TEXT_READS_KEPT);

function ownWordsOnce(text: string, token: string): string | undefined {
  if (HAN.test(token)) return text.includes(token) ? token : undefined;
  const lower = text.toLowerCase();
  // Lower-casing keeps offsets for the scripts the reader handles; if not, quote nothing.
  const slice = (at: number, length: number) =>
    lower.length === text.length ? text.slice(at, at + length).trim() : undefined;
  const phrase = (matchers: readonly PhraseMatcher[]) => {
    for (const matcher of matchers) {
      if (!lower.includes(matcher.phrase)) continue;
      const regex = matcher.regex;
      regex.lastIndex = 0;
      const found = regex.exec(lower);
      if (found) return slice(found.index, found[0].length);
    }
    return undefined;
  };
  if (token.startsWith(STATE_TOKEN_PREFIX) || STATE_WORDS.some((m) => m.token === token)) {
    const state = STATE_WORDS.filter((m) =>
      m.token === token || STATE_TOKEN_PREFIX + m.token.replace(/_/g, "") === token
    );
    const found = phrase(state);
    if (found) return found;
  }
  if (token.startsWith("@")) {
    const found = phrase(FAMILY_PHRASES.filter((m) => FAMILY_OF_PHRASE.get(m.phrase) === token));
    if (found) return found;
  }
  for (const match of text.matchAll(ORIGINAL_WORD)) {
    const word = match[0].replace(/[.\-+'’]+$/u, "");
    const key = stem(word.toLowerCase().replace(/[’`]/g, "'").replace(/'s$/u, ""));
    if (key === token || FAMILY_OF_STEM.get(key) === token) return word;
  }
  return undefined;
}

/**
 * Light suffix stripping, the same for every word so that "uses", "used" and "use" meet:
 * plurals, -ing, -ed, a doubled final consonant and a final e; a hyphenated word is read
 * joined ("lower-cased" as "lowercased"). Words with digits or
 * underscores (config keys, product names) are kept as written.
 */
export function stem(word: string): string {
  let out = STEMS.get(word);
  if (out === undefined) {
    out = stemWord(word);
    STEMS.set(word, out);
  }
  return out;
}

/**
 * A table entry for a word, never an Object.prototype member: README text has words such as
 * "constructor" and "toString", which a plain `TABLE[word]` answers with a function.
 */
function entry(table: Readonly<Record<string, string>>, word: string): string | undefined {
  return Object.hasOwn(table, word) ? table[word] : undefined;
}

function stemWord(word: string): string {
  const long = entry(ABBREVIATIONS, word);
  if (long !== undefined) return stem(long);
  const irregular = entry(IRREGULAR_FORMS, word);
  if (irregular !== undefined) return dropE(irregular);
  // A hyphen joins one word: "lower-cased" reads as "lowercased" (and so as "lowercase").
  if (/^[a-z]+(?:-[a-z]+)+$/.test(word)) return stem(word.replace(/-/g, ""));
  if (!/^[a-z]+$/.test(word) || word.length <= 3) return word.length === 3 ? dropE(word) : word;
  let out = word;
  if (out.endsWith("ies") && out.length > 4) out = `${out.slice(0, -3)}y`;
  else if (out.endsWith("sses")) out = out.slice(0, -2);
  else if (out.endsWith("s") && !/(?:ss|us|is)$/.test(out)) out = out.slice(0, -1);
  const derived = entry(DERIVED_FORMS, out) ?? derivedBase(out);
  if (derived !== undefined) return stem(derived);
  if (out.endsWith("ing") && out.length > 5) out = out.slice(0, -3);
  else if (out.endsWith("ed") && !out.endsWith("eed") && out.length >= 4) out = out.slice(0, -2);
  if (/([b-df-hj-km-np-rtv-z])\1$/.test(out)) out = out.slice(0, -1);
  // A verb in -ate meets its noun in -ation ("migrated" / "migration"): both lose the "at".
  out = dropE(out);
  if (/at(?:e|es|ed|ing)$/.test(word) && out.endsWith("at") && out.length - 2 >= DERIVED_MIN_BASE) {
    out = out.slice(0, -2);
  }
  return out;
}

/**
 * The verb a noun is made from, by its suffix: "configuration" → "configure", "addition" →
 * "add", "deletion" → "delete", "deployment" → "deploy", "renewal" → "renew". Returned as a
 * form the stemmer then reads like the verb; undefined when no suffix rule applies.
 */
function derivedBase(word: string): string | undefined {
  const rules: [RegExp, number][] = [
    [/ation$/, DERIVED_MIN_BASE],
    [/ition$/, 3],
    [/(?<=[ct])ion$/, 5],
    [/ment$/, 6],
    [/(?<=[wvs])al$/, 5],
  ];
  for (const [suffix, minBase] of rules) {
    const match = word.match(suffix);
    if (match && match.index! >= minBase) return `${word.slice(0, match.index)}ing`;
  }
  return undefined;
}

function dropE(word: string): string {
  return word.length >= 3 && word.endsWith("e") ? word.slice(0, -1) : word;
}

/** Removes every match (a space stays, so words on either side do not merge). */
function consume(
  text: string,
  phrases: PhraseMatcher[],
  found: (phrase: string, offset: number, text: string) => void,
): string {
  let out = text;
  for (const matcher of phrases) {
    const phrase = matcher.phrase;
    // Each pattern is the phrase itself between word edges: no substring, no match. Checking
    // first skips most of the hundreds of regular expressions: 0.71 → 0.22 ms per LoCoMo turn.
    if (!out.includes(phrase)) continue;
    out = out.replace(matcher.regex, (_match: string, offset: number, whole: string) => {
      found(phrase, offset, whole);
      return " ";
    });
  }
  return out;
}

/** Where one clause ends and the next begins: never removed by the phrase passes. */
const CLAUSE_BREAK = /[;,，；]|\band\b|\bbut\b|而且|但是/gu;

/** "in 2019" in a past-tense row, or a year before the row's own event time. */
function pastYear(
  values: SentenceValue[],
  rawWords: string[],
  masked: string,
  options: ReadSentenceOptions,
): string | undefined {
  const year = values.find((v) =>
    v.dimension === "date" && v.parts && !Number.isNaN(v.parts[0]) && Number.isNaN(v.parts[1])
  );
  if (!year?.parts) return undefined;
  if (options.eventTime !== undefined) {
    const eventYear = new Date(options.eventTime).getUTCFullYear();
    if (Number.isFinite(eventYear)) return year.parts[0] < eventYear ? year.raw : undefined;
  }
  const past = rawWords.some((word) => PAST_TENSE_WORDS.has(word) || /^[a-z]{3,}ed$/.test(word));
  return past && /\bin\s+\uE000/i.test(masked) ? `in ${year.raw}` : undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
