/**
 * Dates named in a query ("on 7 July, 2023", "October 13, 2023", "in May 2023", "in June",
 * "last May", "in 2023") as time windows, so recall can favour memories whose event time
 * falls inside: a question about what happened on a day rarely shares words with what was
 * said that day, and the date's own words ("july", "2023") are in no turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { queryDates } from "./dates.ts";
 *
 * assert.deepEqual(queryDates("What did John do on 7 July, 2023?", Date.UTC(2026, 0, 1)), [
 *   { start: Date.UTC(2023, 6, 7), end: Date.UTC(2023, 6, 8), words: ["7", "july", "2023"] },
 * ]);
 * ```
 * @module
 */
import { MONTH_NAMES } from "../text/time_phrases.ts";

/** A time window named by the query (UTC milliseconds, end exclusive). */
export interface DateWindow {
  /** Inclusive start; for a month without a year, the start in the year 2000 (see `anyYear`). */
  start: number;
  end: number;
  /** A month named without a year ("in June"): it matches that month in any year. */
  anyYear?: boolean;
  /** The query's words the date was written with (lower case). */
  words: string[];
}

/** Month names, January first (index = month − 1). */
export const MONTHS: readonly string[] = MONTH_NAMES;
const MONTH_ABBREVIATIONS = new Map(
  MONTHS.map((name, index) => [name.slice(0, 3), index] as const),
);

function monthIndex(word: string): number | undefined {
  const lower = word.toLowerCase().replace(/\.$/, "");
  const full = MONTHS.indexOf(lower);
  if (full >= 0) return full;
  if (lower === "sept") return 8;
  return lower.length === 3 ? MONTH_ABBREVIATIONS.get(lower) : undefined;
}

const MONTH = "(january|february|march|april|may|june|july|august|september|october|november|" +
  "december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\.?";
const DAY = "(\\d{1,2})(?:st|nd|rd|th)?";
const YEAR = "((?:19|20)\\d{2})";

/** Patterns, most specific first; each consumes its text so a shorter one does not rematch. */
const PATTERNS: { regex: RegExp; read: (m: RegExpExecArray, now: Date) => DateWindow | null }[] = [
  {
    // 7 July, 2023 / 7th of July 2023
    regex: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`, "gi"),
    read: (m) => day(Number(m[3]), monthIndex(m[2]), Number(m[1]), m[0]),
  },
  {
    // July 7, 2023 / July 7th 2023
    regex: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}\\b`, "gi"),
    read: (m) => day(Number(m[3]), monthIndex(m[1]), Number(m[2]), m[0]),
  },
  {
    // 2023-07-07
    regex: /\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/g,
    read: (m) => day(Number(m[1]), Number(m[2]) - 1, Number(m[3]), m[0]),
  },
  {
    // July 2023
    regex: new RegExp(`\\b${MONTH},?\\s+${YEAR}\\b`, "gi"),
    read: (m) => month(Number(m[2]), monthIndex(m[1]), m[0]),
  },
  {
    // last May: the latest May before this month
    regex: new RegExp(`\\blast\\s+${MONTH}\\b`, "gi"),
    read: (m, now) => {
      const index = monthIndex(m[1]);
      if (index === undefined) return null;
      const year = index < now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
      return month(year, index, m[0]);
    },
  },
  {
    // in June (any year); "may" alone is a verb, so only after "in"/"during"
    regex: new RegExp(`\\b(?:in|during|since|early|late|mid)\\s+${MONTH}\\b`, "gi"),
    read: (m) => {
      const index = monthIndex(m[1]);
      if (index === undefined) return null;
      return { ...month(2000, index, m[0])!, anyYear: true };
    },
  },
  {
    // in 2023
    regex: /\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b(?!-\d)/gi,
    read: (m) => ({
      start: Date.UTC(Number(m[1]), 0, 1),
      end: Date.UTC(Number(m[1]) + 1, 0, 1),
      words: wordsOf(m[0]),
    }),
  },
];

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+|\d+/g) ?? [];
}

function day(year: number, monthIndex: number | undefined, date: number, text: string) {
  if (monthIndex === undefined || monthIndex < 0 || monthIndex > 11) return null;
  const start = Date.UTC(year, monthIndex, date);
  // 31 June or 29 February 2023 would roll into the next month: not a date.
  if (new Date(start).getUTCDate() !== date) return null;
  return { start, end: start + 86_400_000, words: wordsOf(text) };
}

function month(year: number, monthIndex: number | undefined, text: string) {
  if (monthIndex === undefined) return null;
  return {
    start: Date.UTC(year, monthIndex, 1),
    end: Date.UTC(year, monthIndex + 1, 1),
    words: wordsOf(text),
  };
}

/** The date windows a query names, in the order found. `now` resolves "last May". */
export function queryDates(query: string, now: number): DateWindow[] {
  let rest = query;
  const windows: DateWindow[] = [];
  const today = new Date(now);
  for (const { regex, read } of PATTERNS) {
    rest = rest.replace(regex, (...args) => {
      const match = args.slice(0, -2) as unknown as RegExpExecArray;
      const window = read(match, today);
      if (!window) return args[0];
      windows.push(window);
      return " ";
    });
  }
  return windows;
}

/** Whether `time` (ISO) falls inside `window`. */
export function insideWindow(time: string, window: DateWindow): boolean {
  let at = Date.parse(time);
  if (!Number.isFinite(at)) return false;
  if (window.anyYear) {
    const date = new Date(at);
    at = Date.UTC(2000, date.getUTCMonth(), date.getUTCDate(), date.getUTCHours());
  }
  return at >= window.start && at < window.end;
}
