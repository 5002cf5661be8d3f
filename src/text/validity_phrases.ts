/**
 * Validity windows stated in a fact's own words: "from 1 March 2024", "until 30 June", "since
 * 2023", "as of March 2024", "from 1 March to 30 June 2024", "自2024年3月起", "到2024年6月底".
 * Pure, like the time phrases it builds on (src/text/time_phrases.ts): the zone and the
 * reference instant are passed in.
 *
 * Readings (local time in the zone; a window is [from, to), `to` exclusive):
 * - A start edge ("from", "since", "as of", "starting", "effective", 自/从 … 起) opens at the
 *   first instant of the day, month or year it names. A bare year is read only after "since",
 *   "as of" and 自 … 起 ("the report from 2023" names no window).
 * - An end edge ("until", "till", "through", "up to", "to" right after a start edge, 到/至/直到)
 *   closes at the end of the day or month it names ("until 30 June" holds all of 30 June;
 *   6月底 is the end of June). A bare year never closes a window ("until 2025" is read both ways).
 * - A date without a year takes the reference instant's year.
 * - Ambiguity sets nothing: two start edges (or two end edges) naming different times, or a
 *   start at or after the end, leave that text unread.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readValidityPhrases } from "./validity_phrases.ts";
 *
 * const options = { now: Date.UTC(2024, 2, 14), timeZone: "UTC" };
 * const read = readValidityPhrases("Staging runs on port 5433 until 30 June.", options);
 * assert.equal(read.to?.at, Date.UTC(2024, 6, 1));
 * assert.equal(read.to?.words, "until 30 June");
 * assert.equal(read.from, undefined);
 * ```
 * @module
 */
import {
  addDays,
  addMonths,
  type LocalDate,
  localDateOf,
  MONTH_WORD,
  monthNumber,
  zonedToInstant,
} from "./time_phrases.ts";

/** One edge of a window read from text: the instant and the words that stated it. */
export interface ValidityEdge {
  /** UTC milliseconds. */
  at: number;
  /** The words as written ("since 2023", "到2024年6月底"). */
  words: string;
}

/** What a text states about when it holds; an edge it does not state (or states twice) is absent. */
export interface ValidityReading {
  from?: ValidityEdge;
  to?: ValidityEdge;
}

/** The reference instant (for dates without a year) and the zone dates are read in. */
export interface ValidityPhraseOptions {
  now: number;
  timeZone: string;
}

/** A named calendar span: its first day and the day after its last. */
interface Span {
  start: LocalDate;
  end: LocalDate;
  /** Named by its year alone. */
  yearOnly: boolean;
}

const YEAR = "((?:19|20)\\d{2})";
const DAY = "(\\d{1,2})(?:st|nd|rd|th)?";
/** The English date forms, each a capture layout `read` below understands. */
const DATE_FORMS: { pattern: string; read: (m: string[], year: number) => Span | undefined }[] = [
  {
    pattern: `${YEAR}-(\\d{2})-(\\d{2})`,
    read: (m) => daySpan(Number(m[0]), Number(m[1]), Number(m[2])),
  },
  {
    pattern: `${DAY}\\s+(?:of\\s+)?${MONTH_WORD}(?:,?\\s+${YEAR})?`,
    read: (m, year) => daySpan(m[2] ? Number(m[2]) : year, monthNumber(m[1]), Number(m[0])),
  },
  {
    pattern: `${MONTH_WORD}\\s+${DAY}(?:,?\\s+${YEAR})?`,
    read: (m, year) => daySpan(m[2] ? Number(m[2]) : year, monthNumber(m[0]), Number(m[1])),
  },
  {
    pattern: `${MONTH_WORD},?\\s+${YEAR}`,
    read: (m) => monthSpan(Number(m[1]), monthNumber(m[0])),
  },
  {
    pattern: YEAR,
    read: (m) => ({
      start: { year: Number(m[0]), month: 1, day: 1 },
      end: { year: Number(m[0]) + 1, month: 1, day: 1 },
      yearOnly: true,
    }),
  },
];

function daySpan(year: number, month: number | undefined, day: number): Span | undefined {
  if (month === undefined || month < 1 || month > 12 || day < 1) return undefined;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const start = { year, month, day };
  return { start, end: addDays(start, 1), yearOnly: false };
}

function monthSpan(year: number, month: number | undefined): Span | undefined {
  if (month === undefined || month < 1 || month > 12) return undefined;
  const start = { year, month, day: 1 };
  return { start, end: addMonths(start, 1), yearOnly: false };
}

/** One English date at the start of `text`: its span and how many characters it took. */
function englishDate(text: string, year: number): { span: Span; length: number } | undefined {
  for (const form of DATE_FORMS) {
    const m = new RegExp(`^(?:the\\s+)?${form.pattern}(?![\\w:])`, "iu").exec(text);
    if (!m) continue;
    const span = form.read(m.slice(1), year);
    if (span) return { span, length: m[0].length };
  }
  return undefined;
}

const START_LEADS =
  /\b(since|from|as\s+of|starting(?:\s+(?:on|from))?|effective(?:\s+from)?)\s+/giu;
const END_LEADS = /\b(until|till|through|up\s+to)\s+/giu;
/** Leads after which a bare year is a window ("since 2023"), not a date's mention. */
const YEAR_STARTS = /^(?:since|as\s+of)$/iu;
/** What may join a start edge to its end edge: "from 1 March to 30 June". */
const RANGE_JOIN = /^\s*(?:to|until|till|through|[-–—])\s*/iu;

/** The edges English text states. */
function englishEdges(text: string, year: () => number): { starts: Edge[]; ends: Edge[] } {
  const starts: Edge[] = [];
  const ends: Edge[] = [];
  for (const lead of text.matchAll(START_LEADS)) {
    const after = lead.index + lead[0].length;
    const date = englishDate(text.slice(after), year());
    if (!date || (date.span.yearOnly && !YEAR_STARTS.test(lead[1]))) continue;
    starts.push({ day: date.span.start, words: text.slice(lead.index, after + date.length) });
    const rest = text.slice(after + date.length);
    const join = RANGE_JOIN.exec(rest);
    if (!join) continue;
    const end = englishDate(rest.slice(join[0].length), date.span.start.year);
    if (end && !end.span.yearOnly) {
      ends.push({
        day: end.span.end,
        words: text.slice(lead.index, after + date.length + join[0].length + end.length),
      });
    }
  }
  for (const lead of text.matchAll(END_LEADS)) {
    const after = lead.index + lead[0].length;
    const date = englishDate(text.slice(after), year());
    if (!date || date.span.yearOnly) continue;
    ends.push({ day: date.span.end, words: text.slice(lead.index, after + date.length) });
  }
  return { starts, ends };
}

const CHINESE_START =
  /(?:自从|自|从)\s*((?:19|20)\d{2})\s*年\s*(?:(1[0-2]|0?[1-9])\s*月\s*(?:([12]\d|3[01]|0?[1-9])\s*[日号])?)?\s*(?:起|开始|以来)/gu;
const CHINESE_END =
  /(?:直到|到|至)\s*((?:19|20)\d{2})\s*年\s*(1[0-2]|0?[1-9])\s*月\s*(?:([12]\d|3[01]|0?[1-9])\s*[日号]|底|末)?/gu;

/** The edges Chinese text states. */
function chineseEdges(text: string): { starts: Edge[]; ends: Edge[] } {
  const starts: Edge[] = [];
  const ends: Edge[] = [];
  for (const m of text.matchAll(CHINESE_START)) {
    const year = Number(m[1]);
    const span = m[3]
      ? daySpan(year, Number(m[2]), Number(m[3]))
      : m[2]
      ? monthSpan(year, Number(m[2]))
      : { start: { year, month: 1, day: 1 }, end: { year: year + 1, month: 1, day: 1 } };
    if (span) starts.push({ day: span.start, words: m[0] });
  }
  for (const m of text.matchAll(CHINESE_END)) {
    const year = Number(m[1]);
    const span = m[3] ? daySpan(year, Number(m[2]), Number(m[3])) : monthSpan(year, Number(m[2]));
    if (span) ends.push({ day: span.end, words: m[0] });
  }
  return { starts, ends };
}

/** An edge before it is placed in the zone. */
interface Edge {
  day: LocalDate;
  words: string;
}

/** The one edge all candidates agree on, or undefined (none, or different ones). */
function agreed(edges: readonly Edge[], timeZone: string): ValidityEdge | undefined {
  if (edges.length === 0) return undefined;
  const times = new Set(edges.map((edge) => zonedToInstant(edge.day, 0, timeZone)));
  if (times.size !== 1) return undefined;
  // A month's abbreviation dot may have taken the sentence's full stop: the words end before it.
  return { at: [...times][0], words: edges[0].words.replace(/\.$/u, "") };
}

/**
 * The validity window a text states: `from` and/or `to`, each with the words that stated it.
 * An edge stated ambiguously, and a window that would close before it opens, are left out.
 */
export function readValidityPhrases(
  text: string,
  options: ValidityPhraseOptions,
): ValidityReading {
  // Read only for a date that needs it: most texts name none, and the zone's calendar is slow
  // to ask (Intl's formatToParts: ~2% of a bulk import's time when read for every text).
  let year: number | undefined;
  const english = englishEdges(
    text,
    () => year ??= localDateOf(options.now, options.timeZone).year,
  );
  const chinese = chineseEdges(text);
  const from = agreed([...english.starts, ...chinese.starts], options.timeZone);
  const to = agreed([...english.ends, ...chinese.ends], options.timeZone);
  if (from && to && from.at >= to.at) return {};
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}
