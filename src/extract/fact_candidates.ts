/**
 * Candidate facts from a conversation summary or notes (issue 39, `memory` action `extract`):
 * each a verbatim sentence or clause of the text, with a suggested subject, tags and any date
 * or validity it states. Offline and never stored: the agent keeps what it wants with
 * `batch_remember`.
 *
 * How: the text is cut into sentences (`Intl.Segmenter`, so any language; a line break ends a
 * note), and a sentence into clauses at a semicolon or a joining "while", "but" or "whereas"
 * when both sides keep {@linkcode MIN_WORDS} words. Questions, greetings and clauses shorter
 * than that are dropped. Each clause is scored ({@linkcode SCORE}): naming someone or
 * something, stating a number or date and saying what happened raise it; describing the talk
 * itself ("X praised Y's empathy") or hedging lowers it; clauses at {@linkcode KEEP_SCORE} or
 * more are candidates, best first. Dates come from the time phrases recall reads
 * (src/text/time_phrases.ts: "last week", "March 2024") and written dates
 * (src/recall/dates.ts: "8 May 2023", "October 13, 2023"), read relative to `now`; a date after
 * "until", "till" or "through" is the fact's validity end, any other the time it happened.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extractFacts } from "./fact_candidates.ts";
 *
 * const now = Date.UTC(2024, 2, 14);
 * const facts = extractFacts(
 *   "Thanks for the call! Dana moved the launch to 8 April 2024; the Berlin beta stays open until May 2024.",
 *   { now, timeZone: "UTC" },
 * );
 * assert.equal(facts[0].text, "Dana moved the launch to 8 April 2024");
 * assert.equal(facts[0].eventTime, "2024-04-08T00:00:00.000Z");
 * assert.equal(facts[1].validUntil, "2024-06-01T00:00:00.000Z");
 * ```
 * @module
 */
import { queryDates } from "../recall/dates.ts";
import { findTimePhrase, MONTH_NAMES, WEEKDAY_NAMES } from "../text/time_phrases.ts";
import { isStopword } from "../text/words.ts";
import {
  DIALOGUE_WORDS,
  EVENT_WORDS,
  EXTRACT_CANDIDATES_MAX,
  FILLER_START,
  HEDGE_WORDS,
  KEEP_SCORE,
  MIN_WORDS,
  NOT_ENTITIES,
  REPORTING_WORDS,
  SCORE,
  SUBJECT_WORDS,
  TAGS_MAX,
} from "./constants.ts";

/** One candidate fact. */
export interface FactCandidate {
  /** The clause, verbatim: `text.slice(start, end)` of the input. */
  text: string;
  start: number;
  end: number;
  /** A suggested subject: its leading name and telling words, in the clause's own words. */
  subject: string;
  /** Suggested tags: the names it mentions, lower-cased. */
  tags: string[];
  /** When it happened (ISO 8601), when it states a date. */
  eventTime?: string;
  /** Until when it holds (ISO 8601, exclusive), when it says "until …". */
  validUntil?: string;
  /** The date words as written. */
  datePhrase?: string;
  /** How fact-like the clause reads (see the module note); candidates are sorted by it. */
  score: number;
}

/** Options: the instant and zone relative dates are read in; overrides for the benchmark. */
export interface ExtractOptions {
  now: number;
  timeZone: string;
  /** Keep candidates scoring at least this (default {@linkcode KEEP_SCORE}). */
  keepScore?: number;
  /** Most candidates (default {@linkcode EXTRACT_CANDIDATES_MAX}). */
  limit?: number;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
const CLAUSE_BREAK = /;\s+|,?\s+(?:while|whereas)\s+|,\s+but\s+/giu;
const VALIDITY = /\b(?:until|till|through|thru)\s+$/i;

/** The candidate facts of `text`, best first. */
export function extractFacts(text: string, options: ExtractOptions): FactCandidate[] {
  const keep = options.keepScore ?? KEEP_SCORE;
  const candidates: FactCandidate[] = [];
  const spans = clauses(text);
  const names = namesInside(text, spans);
  for (const clause of spans) {
    const candidate = readClause(text, clause, names, options);
    if (candidate && candidate.score >= keep) candidates.push(candidate);
  }
  candidates.sort((a, b) => b.score - a.score || a.start - b.start);
  return candidates.slice(0, options.limit ?? EXTRACT_CANDIDATES_MAX);
}

/** Sentences, then clauses, as offsets into `text`, trimmed of bullets and end punctuation. */
function clauses(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  const sentences = new Intl.Segmenter(undefined, { granularity: "sentence" }).segment(text);
  for (const { segment, index } of sentences) {
    // A line break ends a note even without a full stop.
    let lineStart = 0;
    for (const line of segment.split("\n")) {
      const at = index + lineStart;
      lineStart += line.length + 1;
      const parts: { start: number; end: number }[] = [];
      let from = 0;
      for (const match of line.matchAll(CLAUSE_BREAK)) {
        const before = line.slice(from, match.index);
        const after = line.slice(match.index + match[0].length);
        if (wordCount(before) >= MIN_WORDS && wordCount(after) >= MIN_WORDS) {
          parts.push({ start: at + from, end: at + match.index });
          from = match.index + match[0].length;
        }
      }
      parts.push({ start: at + from, end: at + line.length });
      for (const part of parts) {
        const trimmed = trim(text, part);
        if (trimmed.end > trimmed.start) out.push(trimmed);
      }
    }
  }
  return out;
}

/** Drops leading bullets and spaces, trailing spaces and sentence punctuation (not "?"). */
function trim(text: string, span: { start: number; end: number }): { start: number; end: number } {
  let { start, end } = span;
  while (start < end && /[\s\-*•·>#]/u.test(text[start])) start++;
  while (end > start && /[\s.!,;:。！]/u.test(text[end - 1])) end--;
  return { start, end };
}

function wordCount(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

function readClause(
  source: string,
  span: { start: number; end: number },
  names: ReadonlySet<string>,
  options: ExtractOptions,
): FactCandidate | undefined {
  const text = source.slice(span.start, span.end);
  const words = text.match(WORD) ?? [];
  if (words.length < MIN_WORDS || text.endsWith("?") || FILLER_START.test(text)) return undefined;
  const entities = entityWords(words, names);
  const date = statedDate(text, options);
  let score = SCORE.base;
  if (entities.length > 0) score += SCORE.entity;
  if (date || /\d/.test(text)) score += SCORE.quantity;
  if (EVENT_WORDS.test(text)) score += SCORE.event;
  if (DIALOGUE_WORDS.test(text)) score += SCORE.dialogue;
  if (HEDGE_WORDS.test(text)) score += SCORE.hedge;
  const candidate: FactCandidate = {
    text,
    start: span.start,
    end: span.end,
    subject: suggestedSubject(words, entities),
    tags: [...new Set(entities.map((e) => e.toLowerCase()))].slice(0, TAGS_MAX),
    score: Math.round(score * 100) / 100,
  };
  if (date) {
    candidate.datePhrase = date.phrase;
    if (date.validity) candidate.validUntil = new Date(date.end).toISOString();
    else candidate.eventTime = new Date(date.start).toISOString();
  }
  return candidate;
}

/** Whether the word after a clause's first one is a verb: then the first is who acts. */
function actsNext(word: string | undefined): boolean {
  if (word === undefined) return false;
  const lower = word.toLowerCase();
  return REPORTING_WORDS.has(lower) || new RegExp(`^(?:${EVENT_WORDS.source})$`, "i").test(lower);
}

/** A word without its possessive ("Caroline's" → "Caroline"). */
function bare(word: string): string {
  return word.replace(/['’]s$/u, "");
}

/**
 * Capitalised words past the first of some clause: names, as the text writes them. A clause's
 * first word is a name only when the text capitalises it elsewhere too ("Deploy freeze …" is
 * not; "Caroline said …" is when Caroline appears mid-sentence), it is an acronym, or a verb
 * follows it ("Jon complimented …").
 */
function namesInside(text: string, spans: readonly { start: number; end: number }[]): Set<string> {
  const names = new Set<string>();
  for (const span of spans) {
    const words = text.slice(span.start, span.end).match(WORD) ?? [];
    for (let i = 1; i < words.length; i++) {
      if (/^\p{Lu}/u.test(words[i])) names.add(bare(words[i]));
    }
  }
  return names;
}

/** The names of a clause (not pronouns, openers, months or weekdays), possessives dropped. */
function entityWords(words: readonly string[], names: ReadonlySet<string>): string[] {
  return words.map(bare).filter((word, index) =>
    /^\p{Lu}/u.test(word) && !NOT_ENTITIES.has(word.toLowerCase()) && !isMonthOrDay(word) &&
    (index > 0 || names.has(word) || /^\p{Lu}{2,}/u.test(word) || actsNext(words[1]))
  );
}

const CALENDAR_WORDS = new Set([...MONTH_NAMES, ...WEEKDAY_NAMES]);

function isMonthOrDay(word: string): boolean {
  return CALENDAR_WORDS.has(word.toLowerCase());
}

/** The leading name and the next telling words, in order, as written. */
function suggestedSubject(words: readonly string[], entities: readonly string[]): string {
  const picked: string[] = [];
  const first = entities[0];
  if (first !== undefined) picked.push(first);
  for (const word of words) {
    if (picked.length >= SUBJECT_WORDS) break;
    const lower = word.toLowerCase();
    if (word === first || isStopword(lower) || REPORTING_WORDS.has(lower)) continue;
    if (NOT_ENTITIES.has(lower) || /^\d+$/.test(word) || word.length < 3) continue;
    picked.push(word);
  }
  return picked.join(" ");
}

/** The first date the clause states, and whether it bounds the fact ("until May"). */
function statedDate(
  text: string,
  options: ExtractOptions,
): { phrase: string; start: number; end: number; validity: boolean } | undefined {
  const written = queryDates(text, options.now).find((w) => !w.anyYear);
  if (written) {
    const phrase = writtenPhrase(text, written.words);
    const at = text.toLowerCase().indexOf(phrase.toLowerCase());
    return {
      phrase,
      start: written.start,
      end: written.end,
      validity: at > 0 && VALIDITY.test(text.slice(0, at)),
    };
  }
  const relative = findTimePhrase(text, { now: options.now, timeZone: options.timeZone });
  if (!relative) return undefined;
  const at = text.indexOf(relative.phrase);
  return {
    phrase: relative.phrase,
    start: relative.start,
    end: relative.end,
    validity: at > 0 && VALIDITY.test(text.slice(0, at)),
  };
}

/** The date as written: from its first word to its last, in the clause's own spelling. */
function writtenPhrase(text: string, words: readonly string[]): string {
  const lower = text.toLowerCase();
  const first = lower.indexOf(words[0]);
  const lastWord = words[words.length - 1];
  const last = lower.indexOf(lastWord, first);
  if (first < 0 || last < 0) return words.join(" ");
  return text.slice(first, last + lastWord.length);
}
