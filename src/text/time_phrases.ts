/**
 * Time phrases ("yesterday", "last week", "past 7 days", "Q3 2023", 上周, 最近三天, 2024年3月) read
 * as time intervals, in a time zone, relative to a given `now`. Pure: the clock and the zone are
 * passed in, so the same phrase always reads the same interval for the same instant.
 *
 * Boundaries (local time in the zone; `end` is exclusive):
 * - Calendar days: "today", "yesterday", "N days ago" (今天, 昨天, 前天, 三天前) are whole local days,
 *   midnight to midnight (a DST day is 23 or 25 hours long).
 * - Calendar weeks start on Monday: "this week" (本周, 这周) is this Monday to next Monday, "last
 *   week" (上周) the whole previous Monday–Sunday.
 * - Calendar months and years: "this month", "last month", "last year", "March 2024", "in March
 *   2024", "2024-03", "Q3 2023" (本月, 上个月, 去年, 2024年3月, 2024年) are whole local months,
 *   quarters or years.
 * - Rolling: "past/last N days|weeks|months" (最近三天, 近7天) run from the same local clock time N
 *   days, weeks or months before `now` (a month back from 31 March is the last day of February)
 *   up to `now`; "since Monday" runs from the most recent Monday's midnight (today's, on a
 *   Monday) up to `now`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findTimePhrase } from "./time_phrases.ts";
 *
 * const now = Date.UTC(2024, 2, 14, 10); // Thursday 14 March 2024, 10:00 UTC
 * const found = findTimePhrase("what did we decide last week?", { now, timeZone: "UTC" });
 * assert.deepEqual(found, {
 *   phrase: "last week",
 *   start: Date.UTC(2024, 2, 4),
 *   end: Date.UTC(2024, 2, 11),
 *   rule: "last_week",
 * });
 * ```
 * @module
 */
import { readChineseNumeral, readEnglishNumber } from "./numerals.ts";

/** A time phrase and the interval it names (UTC milliseconds, `end` exclusive). */
export interface TimePhrase {
  /** The phrase as written in the text. */
  phrase: string;
  start: number;
  end: number;
  /** Which reading produced the interval (`last_week`, `past_days`, `month`, …). */
  rule: string;
}

/** The instant and the zone a phrase is read in. */
export interface TimePhraseOptions {
  /** The current instant (UTC milliseconds). */
  now: number;
  /** An IANA time zone name ("Europe/Berlin", "Asia/Shanghai", "UTC"). */
  timeZone: string;
  /**
   * Read only phrases relative to `now` ("last week", "昨天"), not calendar dates ("March 2024",
   * "Q3 2023", "2024年"): see {@linkcode ABSOLUTE_RULES}.
   */
  relativeOnly?: boolean;
}

/** A local calendar date (month 1–12). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** What a pattern reads, given its match and the local "now". */
type Reader = (match: RegExpExecArray, clock: Clock) => Interval | undefined;
interface Interval {
  start: number;
  end: number;
}

/** The local view of `now` in a zone, with the conversions the readers need. */
class Clock {
  readonly today: LocalDate;
  /** Local wall-clock time of `now` (milliseconds since local midnight). */
  readonly timeOfDay: number;
  constructor(readonly now: number, readonly timeZone: string) {
    const parts = localParts(now, timeZone);
    this.today = { year: parts.year, month: parts.month, day: parts.day };
    this.timeOfDay = ((parts.hour * 60 + parts.minute) * 60 + parts.second) * 1000 +
      (now % 1000 + 1000) % 1000;
  }
  /** The instant of a local date's midnight (plus `timeOfDay` ms) in the zone. */
  at(date: LocalDate, timeOfDay = 0): number {
    return zonedToInstant(date, timeOfDay, this.timeZone);
  }
  /** A whole local day `offset` days from today. */
  day(offset: number): Interval {
    const date = addDays(this.today, offset);
    return { start: this.at(date), end: this.at(addDays(date, 1)) };
  }
  /** Local months [year/month, + count). */
  months(year: number, month: number, count: number): Interval {
    return {
      start: this.at({ year, month, day: 1 }),
      end: this.at(addMonths({ year, month, day: 1 }, count)),
    };
  }
  /** The Monday that starts the current local week. */
  monday(): LocalDate {
    return addDays(this.today, -weekdayFromMonday(this.today));
  }
  /** From the same local clock time `date` names up to now. */
  rollingFrom(date: LocalDate): Interval {
    return { start: this.at(date, this.timeOfDay), end: this.now };
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localParts(instant: number, timeZone: string): Record<string, number> {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, format);
  }
  const out: Record<string, number> = {};
  for (const part of format.formatToParts(instant)) {
    if (part.type !== "literal") out[part.type] = Number(part.value);
  }
  return out;
}

/** The zone's offset from UTC at an instant (milliseconds; east positive). */
function zoneOffset(instant: number, timeZone: string): number {
  const p = localParts(instant, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a local wall-clock time (`timeOfDay` ms after the date's midnight) falls on. The offset is read twice because the offset at
 * the naive guess can be the other side of a DST change; a wall time a spring-forward skips
 * moves forward by the gap's length (02:30 in a skipped hour reads as 03:30).
 */
export function zonedToInstant(date: LocalDate, timeOfDay: number, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day) + timeOfDay;
  const first = wall - zoneOffset(wall, timeZone);
  const second = wall - zoneOffset(first, timeZone);
  if (second === first) return first;
  // Across a change: prefer the reading whose offset agrees with itself.
  return wall - zoneOffset(second, timeZone) === second ? second : Math.max(first, second);
}

/** The local calendar date of an instant in a zone. */
export function localDateOf(instant: number, timeZone: string): LocalDate {
  const parts = localParts(instant, timeZone);
  return { year: parts.year, month: parts.month, day: parts.day };
}

/** A local date `days` days later (negative: earlier). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/** Calendar months later (negative: earlier); the day is kept, or the month's last day. */
export function addMonths(date: LocalDate, months: number): LocalDate {
  const index = date.year * 12 + (date.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { year, month, day: Math.min(date.day, last) };
}

function weekdayFromMonday(date: LocalDate): number {
  return (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;
}

/** "3", "three", "三", "十二", "二十五" as a number (1–99), or undefined. */
function count(word: string): number | undefined {
  if (/^\d{1,3}$/.test(word)) return Number(word);
  return readEnglishNumber(word) ?? readChineseNumeral(word);
}

/** English month names, January first (index = month − 1). */
export const MONTH_NAMES: readonly string[] = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
/** English weekday names, Monday first. */
export const WEEKDAY_NAMES: readonly string[] = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
];

/** An English month name or abbreviation ("March", "mar", "Sept.") as 1–12, or undefined. */
export function monthNumber(word: string): number | undefined {
  const lower = word.toLowerCase().replace(/\.$/, "");
  if (lower === "sept") return 9;
  const index = MONTH_NAMES.findIndex((name) =>
    name === lower || (lower.length === 3 && name.startsWith(lower))
  );
  return index < 0 ? undefined : index + 1;
}

const EN_COUNT = "(\\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)";
const ZH_COUNT = "(\\d{1,3}|[一二两三四五六七八九十]{1,3})";
/** A month name or abbreviation, as one capture group. */
export const MONTH_WORD = "(january|february|march|april|may|june|july|august|september|october|" +
  "november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\.?";
const YEAR = "((?:19|20)\\d{2})";

/** Rolling spans: N days, weeks or months back from now. */
function rolling(clock: Clock, amount: number | undefined, unit: string): Interval | undefined {
  if (amount === undefined || amount < 1) return undefined;
  if (/^(?:day|days|天|日)$/i.test(unit)) return clock.rollingFrom(addDays(clock.today, -amount));
  if (/^(?:week|weeks|周|个?星期|个?礼拜)$/i.test(unit)) {
    return clock.rollingFrom(addDays(clock.today, -7 * amount));
  }
  return clock.rollingFrom(addMonths(clock.today, -amount));
}

function monthInterval(
  clock: Clock,
  year: number,
  month: number | undefined,
): Interval | undefined {
  return month === undefined || month < 1 || month > 12 ? undefined : clock.months(year, month, 1);
}

/**
 * The phrase table, most specific first: the first rule that matches at the earliest position
 * wins. English words are matched whole (`\b`); Chinese has no spaces, so its rules match
 * anywhere.
 */
const RULES: { rule: string; pattern: string; read: Reader }[] = [
  {
    rule: "past_span",
    pattern: `\\b(?:past|last|previous)\\s+${EN_COUNT}\\s+(days?|weeks?|months?)\\b`,
    read: (m, clock) => rolling(clock, count(m[1]), m[2]),
  },
  {
    rule: "past_span",
    pattern: `\\bpast\\s+(day|week|month)\\b`,
    read: (m, clock) => rolling(clock, 1, m[1]),
  },
  {
    rule: "days_ago",
    pattern: `\\b${EN_COUNT}\\s+days?\\s+ago\\b`,
    read: (m, clock) => {
      const days = count(m[1]);
      return days === undefined ? undefined : clock.day(-days);
    },
  },
  {
    rule: "since_weekday",
    pattern: `\\bsince\\s+(?:last\\s+)?(${WEEKDAY_NAMES.join("|")})\\b`,
    read: (m, clock) => {
      const target = WEEKDAY_NAMES.indexOf(m[1].toLowerCase());
      const back = (weekdayFromMonday(clock.today) - target + 7) % 7;
      return { start: clock.at(addDays(clock.today, -back)), end: clock.now };
    },
  },
  {
    rule: "quarter",
    pattern: `\\bq([1-4])\\s*${YEAR}\\b`,
    read: (m, clock) => clock.months(Number(m[2]), (Number(m[1]) - 1) * 3 + 1, 3),
  },
  {
    rule: "month",
    // "7 July, 2023" names a day, not the month: a number before the month name rules it out.
    pattern:
      `(?<!\\d(?:st|nd|rd|th)?\\s+(?:of\\s+)?)\\b(?:in\\s+)?${MONTH_WORD}\\s*,?\\s+${YEAR}\\b`,
    read: (m, clock) => monthInterval(clock, Number(m[2]), monthNumber(m[1])),
  },
  {
    rule: "month",
    pattern: `\\b${YEAR}-(0[1-9]|1[0-2])\\b(?!-\\d)`,
    read: (m, clock) => monthInterval(clock, Number(m[1]), Number(m[2])),
  },
  { rule: "today", pattern: `\\btoday\\b|今天|今日`, read: (_m, clock) => clock.day(0) },
  { rule: "yesterday", pattern: `\\byesterday\\b|昨天|昨日`, read: (_m, clock) => clock.day(-1) },
  {
    rule: "day_before_yesterday",
    pattern: `\\bday\\s+before\\s+yesterday\\b|前天`,
    read: (_m, clock) => clock.day(-2),
  },
  {
    rule: "this_week",
    pattern: `\\bthis\\s+week\\b|本周|这周|这个?星期|本星期`,
    read: (_m, clock) => {
      const monday = clock.monday();
      return { start: clock.at(monday), end: clock.at(addDays(monday, 7)) };
    },
  },
  {
    rule: "last_week",
    pattern: `\\blast\\s+week\\b|上周|上个?星期|上个?礼拜`,
    read: (_m, clock) => {
      const monday = clock.monday();
      return { start: clock.at(addDays(monday, -7)), end: clock.at(monday) };
    },
  },
  {
    rule: "this_month",
    pattern: `\\bthis\\s+month\\b|本月|这个月`,
    read: (_m, clock) => clock.months(clock.today.year, clock.today.month, 1),
  },
  {
    rule: "last_month",
    pattern: `\\blast\\s+month\\b|上个?月`,
    read: (_m, clock) => {
      const start = addMonths({ ...clock.today, day: 1 }, -1);
      return clock.months(start.year, start.month, 1);
    },
  },
  {
    rule: "this_year",
    pattern: `\\bthis\\s+year\\b|今年`,
    read: (_m, clock) => clock.months(clock.today.year, 1, 12),
  },
  {
    rule: "last_year",
    pattern: `\\blast\\s+year\\b|去年`,
    read: (_m, clock) => clock.months(clock.today.year - 1, 1, 12),
  },
  {
    rule: "past_span",
    pattern: `(?:最近|近|过去)${ZH_COUNT}(天|日|周|个?星期|个?礼拜|个月)`,
    read: (m, clock) => rolling(clock, count(m[1]), m[2]),
  },
  {
    rule: "days_ago",
    pattern: `${ZH_COUNT}天(?:以|之)?前`,
    read: (m, clock) => {
      const days = count(m[1]);
      return days === undefined ? undefined : clock.day(-days);
    },
  },
  {
    rule: "month",
    pattern: `${YEAR}年(1[0-2]|0?[1-9])月`,
    read: (m, clock) => monthInterval(clock, Number(m[1]), Number(m[2])),
  },
  {
    rule: "year",
    pattern: `${YEAR}年(?!\\d)`,
    read: (m, clock) => clock.months(Number(m[1]), 1, 12),
  },
];

/** The rules that name a calendar month, quarter or year rather than a time relative to now. */
export const ABSOLUTE_RULES: readonly string[] = ["month", "quarter", "year"];

const COMPILED = RULES.map((entry) => ({
  ...entry,
  absolute: ABSOLUTE_RULES.includes(entry.rule),
  regex: new RegExp(entry.pattern, "giu"),
}));

/**
 * The first time phrase inside a text (the earliest in the text; at one position, the most
 * specific rule), or undefined when it names none.
 */
export function findTimePhrase(text: string, options: TimePhraseOptions): TimePhrase | undefined {
  const clock = new Clock(options.now, options.timeZone);
  let best: { index: number; order: number; found: TimePhrase } | undefined;
  for (const [order, entry] of COMPILED.entries()) {
    if (options.relativeOnly && entry.absolute) continue;
    entry.regex.lastIndex = 0;
    for (let m = entry.regex.exec(text); m !== null; m = entry.regex.exec(text)) {
      if (best && (m.index > best.index || (m.index === best.index && order > best.order))) break;
      const interval = entry.read(m, clock);
      if (interval && interval.start < interval.end) {
        best = { index: m.index, order, found: { phrase: m[0], ...interval, rule: entry.rule } };
        break;
      }
    }
  }
  return best?.found;
}

/**
 * A text that is one time phrase and nothing else (surrounding spaces and a final "?" or "。"
 * aside), as the `time` argument of `find` must be; undefined otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTimePhrase } from "./time_phrases.ts";
 *
 * const options = { now: Date.UTC(2024, 2, 14, 10), timeZone: "UTC" };
 * assert.equal(readTimePhrase("Q3 2023", options)?.start, Date.UTC(2023, 6, 1));
 * assert.equal(readTimePhrase("deploys in Q3 2023", options), undefined);
 * ```
 */
export function readTimePhrase(text: string, options: TimePhraseOptions): TimePhrase | undefined {
  const trimmed = text.trim().replace(/[?？。.!！]+$/u, "").trim();
  const found = findTimePhrase(trimmed, options);
  return found && found.phrase.length === trimmed.length ? found : undefined;
}

/** Whether a time zone name is one `Intl` knows (IANA names, "UTC"). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
