/**
 * Finds the values in a sentence — amounts with units, money, percentages, versions, dates,
 * weekdays, times of day — and normalizes them so two rows can be compared: "3 days" and
 * "72 hours" are the same duration, "v1.2" and "1.2.0" the same version, "2024-03-14" and
 * "March 14" the same day. English first, plus simple Chinese patterns ("3天", "3月5日",
 * "周五", "下午3点", Chinese numerals up to 99 before a unit).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extractValues, sameValue } from "./values.ts";
 *
 * const [a] = extractValues("the retention is 3 days");
 * const [b] = extractValues("the retention is 72 hours");
 * assert.equal(sameValue(a, b), true);
 * ```
 * @module
 */
import { readEnglishNumber } from "../text/numerals.ts";
import { monthNumber } from "../text/time_phrases.ts";
import {
  RULE_AMOUNT_TOLERANCE,
  RULE_EXACT_EPSILON,
  RULE_TOLERANT_DIMENSIONS,
} from "./constants.ts";

/** A value found in a sentence. */
export interface SentenceValue {
  /**
   * What it measures; only values of comparable dimensions are compared: `duration`, `bytes`,
   * `percent`, `money:usd`, `count:replica` (a number before a noun), `scalar` (a bare number
   * or a version), `date`, `weekday`, `time`.
   */
  dimension: string;
  /** Normalized amount (seconds, bytes, percent points, currency units, minutes after 0:00). */
  amount?: number;
  /** Version or date components (`[1, 2]`; a date is `[year|NaN, month|NaN, day|NaN]`). */
  parts?: number[];
  /**
   * The period an amount of money is charged per ("$5 per hour" → `hour`), when one follows it.
   * Two rates per different periods are not compared ("$5 per hour" / "$30 for the whole day").
   */
  per?: string;
  /**
   * A time of day that bounds a window rather than naming a moment: "before 11:00" is `upper`,
   * "after 15:00" / "from 8:00" `lower` (see {@link timeWindow}).
   */
  bound?: "lower" | "upper";
  /** A part of the day ("in the morning"): the minutes after 0:00 it spans. */
  span?: [number, number];
  /** The text as written. */
  raw: string;
  /** UTF-16 offsets in the sentence. */
  start: number;
  end: number;
}

const DURATION_SECONDS: Record<string, number> = {
  ms: 0.001,
  msec: 0.001,
  millisecond: 0.001,
  s: 1,
  sec: 1,
  second: 1,
  min: 60,
  minute: 60,
  h: 3600,
  hr: 3600,
  hour: 3600,
  d: 86400,
  day: 86400,
  wk: 604800,
  week: 604800,
  month: 2592000,
  mo: 2592000,
  year: 31536000,
  yr: 31536000,
  秒: 1,
  秒钟: 1,
  分钟: 60,
  小时: 3600,
  天: 86400,
  日: 86400,
  周: 604800,
  星期: 604800,
  个月: 2592000,
  年: 31536000,
};

const BYTES: Record<string, number> = {
  b: 1,
  byte: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
  kilobyte: 1024,
  megabyte: 1024 ** 2,
  gigabyte: 1024 ** 3,
  terabyte: 1024 ** 4,
};

/** Mass in kilograms and length in metres: restated in other units ("50 lb" ≈ "23 kg"). */
const MASS_KG: Record<string, number> = {
  g: 0.001,
  gram: 0.001,
  kg: 1,
  kilo: 1,
  kilogram: 1,
  lb: 0.45359237,
  lbs: 0.45359237,
  tonne: 1000,
  公斤: 1,
  千克: 1,
  克: 0.001,
  斤: 0.5,
};
const LENGTH_M: Record<string, number> = {
  km: 1000,
  kilometer: 1000,
  kilometre: 1000,
  meter: 1,
  metre: 1,
  mile: 1609.344,
  mi: 1609.344,
  公里: 1000,
  米: 1,
};

const CURRENCY_WORDS: Record<string, string> = {
  $: "usd",
  usd: "usd",
  dollar: "usd",
  "€": "eur",
  eur: "eur",
  euro: "eur",
  "£": "gbp",
  gbp: "gbp",
  pound: "gbp",
  "¥": "cny",
  cny: "cny",
  rmb: "cny",
  元: "cny",
  块: "cny",
};

const MULTIPLIERS: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  million: 1e6,
  bn: 1e9,
  billion: 1e9,
  万: 1e4,
};

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const CHINESE_WEEKDAYS = "日一二三四五六";

/** Words a year follows ("in 2019", "since 2021"); a bare 2000 elsewhere is just a number. */
const YEAR_LEADS =
  /(?:in|since|from|until|till|by|of|before|after|during|early|late|mid|year)\s+$/i;

/** What may follow an amount of money to make it a rate. */
const RATE_PERIOD =
  /^\s*(?:\/\s*|(?:per|a|an|each|every)\s+|for\s+(?:the|a|an|one)\s+(?:(?:whole|full|entire)\s+)?)(second|sec|minute|min|hour|hr|day|night|week|month|mo|year|yr|annum)s?\b|^\s*(hourly|daily|nightly|weekly|monthly|yearly|annually)\b/i;

/** Seconds in each period a rate may be given per. */
const PERIOD_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  night: 86400,
  week: 604800,
  month: 2592000,
  year: 31536000,
};

/** The period right after an amount ("per hour", "a month", "/year", "annually"), if any. */
function ratePeriod(after: string): { per: string; length: number } | undefined {
  const rate = after.match(RATE_PERIOD);
  if (!rate) return undefined;
  const word = singular((rate[1] ?? rate[2]).toLowerCase()).replace(/ly$/, "");
  const per = ({
    sec: "second",
    min: "minute",
    hr: "hour",
    dai: "day",
    mo: "month",
    yr: "year",
    annual: "year",
    annum: "year",
  })[
    word
  ] ?? word;
  return { per, length: rate[0].length };
}

const ORDINAL_WORDS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  thirtieth: 30,
  last: -1,
};
const ORDINAL_WORD =
  String.raw`(?:(?:twenty|thirty)[- ])?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|` +
  String.raw`ninth)|tenth|eleventh|twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth|` +
  String.raw`twentieth|thirtieth|last`;

function ordinalWord(word: string): number | undefined {
  const parts = word.toLowerCase().split(/[- ]/);
  if (parts.length === 2) {
    const ones = ORDINAL_WORDS[parts[1]];
    return ones === undefined ? undefined : (parts[0] === "twenty" ? 20 : 30) + ones;
  }
  return ORDINAL_WORDS[parts[0]];
}

const NUM = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const MONTH_NAME = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|` +
  String.raw`july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;

/** One pattern per value shape, tried in this order; an earlier match claims its span. */
const PATTERNS: {
  regex: RegExp;
  read: (m: RegExpExecArray, text: string) => Partial<SentenceValue> | undefined;
}[] = [
  {
    // Days of a kind: "5 business days", "3 working weeks" are durations, not a count of
    // businesses; "25 vacation days" and "30 days of vacation" are an allowance of that kind,
    // compared only with the same kind ("10 sick days" is another allowance).
    regex:
      /\b(\d+)\s+(?:(business|working|calendar|school|work|vacation|holiday|sick|leave|pto)\s+(days?|weeks?)|(days?|weeks?)\s+of\s+(vacation|holiday|sick leave|leave|pto))\b/gi,
    read: (m) => {
      const unit = (m[3] ?? m[4]).toLowerCase().replace(/s$/u, "");
      const kind = (m[2] ?? m[5]).toLowerCase().replace(/ leave$/u, "");
      const allowance = ALLOWANCES.has(kind);
      return {
        dimension: allowance ? `duration:${kind}` : "duration",
        amount: +m[1] * DURATION_SECONDS[unit],
      };
    },
  },
  {
    // ISO dates and slashed dates: 2024-06-01, 2024/06/01, 06/01/2024 (US order).
    regex: /\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b|\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g,
    read: (m) => m[1] ? date(+m[1], +m[2], +m[3]) : date(+m[6], +m[4], +m[5]),
  },
  {
    // Chinese dates: 2024年3月5日, 3月5日, 2024年3月.
    regex: /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/g,
    read: (m) => date(m[1] ? +m[1] : NaN, +m[2], m[3] ? +m[3] : NaN),
  },
  {
    // Chinese times: 下午3点, 3点半, 15点30分.
    regex: /(上午|早上|中午|下午|晚上)?(\d{1,2})\s*点(半|(\d{1,2})\s*分)?/g,
    read: (m) => {
      let hour = +m[2];
      if ((m[1] === "下午" || m[1] === "晚上") && hour < 12) hour += 12;
      const minute = m[3] === "半" ? 30 : m[4] ? +m[4] : 0;
      return time(hour, minute);
    },
  },
  {
    // Chinese weekdays: 周五, 星期五, 礼拜天.
    regex: /(?:周|星期|礼拜)([一二三四五六日天])/g,
    read: (m) => ({
      dimension: "weekday",
      amount: CHINESE_WEEKDAYS.indexOf(m[1].replace("天", "日")),
    }),
  },
  {
    // Month-first dates: March 14, Mar 14th 2024, March 2025.
    regex: new RegExp(
      String.raw`\b(${MONTH_NAME})\.?\s+(?:(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?|(\d{4})\b)`,
      "gi",
    ),
    read: (m) => date(m[3] ? +m[3] : m[4] ? +m[4] : NaN, monthOf(m[1]), m[2] ? +m[2] : NaN),
  },
  {
    // Day-first dates: 14 March, 14th of March 2024.
    regex: new RegExp(
      String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(${MONTH_NAME})\b\.?(?:,?\s+(\d{4}))?`,
      "gi",
    ),
    read: (m) => date(m[3] ? +m[3] : NaN, monthOf(m[2]), +m[1]),
  },
  {
    // Times: 9:30am, 10 am, 14:00, noon, midnight.
    regex:
      /\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?(?![a-z])|\b([01]?\d|2[0-3]):([0-5]\d)\b|\b(noon|midnight)\b/gi,
    read: (m) => {
      if (m[6]) return time(m[6].toLowerCase() === "noon" ? 12 : 0, 0);
      if (m[4]) return time(+m[4], +m[5]);
      const hour = (+m[1] % 12) + (m[3].toLowerCase() === "p" ? 12 : 0);
      return time(hour, m[2] ? +m[2] : 0);
    },
  },
  {
    // Clock hours in words: "4 o'clock in the morning", "11 in the evening", "9 o'clock".
    regex:
      /\b(\d{1,2})(?::(\d{2}))?(?:\s*o'clock)?\s+(?:in\s+the\s+(morning|afternoon|evening)|at\s+(night))\b|\b(\d{1,2})\s*o'clock\b/gi,
    read: (m) => {
      if (m[5]) return time(+m[5], 0);
      const part = (m[3] ?? m[4]).toLowerCase();
      const hour = +m[1] % 12 + (part === "morning" ? 0 : part === "night" && +m[1] < 6 ? 0 : 12);
      return time(hour, m[2] ? +m[2] : 0);
    },
  },
  {
    // Parts of the day: "in the morning", "Tuesday afternoons", "at night" (after the clock
    // hours in words, which claim "11 in the evening" first). A window of the day, compared
    // with the times of the other row (`timeWindow`).
    regex:
      /\b(?:(early|late)\s+)?(morning|afternoon|evening|night)s?\b|(上午|早上|下午|晚上|夜里)/gi,
    read: (m) => {
      const part = m[2]?.toLowerCase() ?? DAY_PARTS_HAN[m[3]];
      const [start, end] = DAY_PARTS[part];
      const half = (end - start) / 2;
      const qualifier = m[1]?.toLowerCase();
      const span: [number, number] = qualifier === "early"
        ? [start, start + half]
        : qualifier === "late"
        ? [start + half, end]
        : [start, end];
      return { dimension: "time", span };
    },
  },
  {
    // Money: $20, US$1.5k, €30/month, 20 dollars, 99元, ¥5万.
    regex: new RegExp(
      String.raw`(?:US)?([$€£¥])\s?(${NUM})(?:\s?(k|m|bn|thousand|million|billion)\b)?|` +
        String
          .raw`\b(${NUM})\s?(k|thousand|million|billion|万)?\s?(usd|eur|gbp|cny|rmb|dollars?|euros?|pounds?|元|块)`,
      "gi",
    ),
    read: (m, text) => {
      const symbol = m[1] ?? m[6];
      const amount = parseNumber(m[2] ?? m[4]) *
        (MULTIPLIERS[(m[3] ?? m[5] ?? "").toLowerCase()] ?? 1);
      const dimension = `money:${CURRENCY_WORDS[singular(symbol.toLowerCase())]}`;
      // "$5 per hour", "€30/month", "$30 for the whole day", "$1,500 a year": the rate's period
      // is part of the value.
      const rate = ratePeriod(text.slice(m.index + m[0].length));
      if (!rate) return { dimension, amount };
      return { dimension, amount, per: rate.per, end: m.index + m[0].length + rate.length };
    },
  },
  {
    // Percentages: 20%, 20 percent, 20％.
    regex: new RegExp(String.raw`\b(${NUM})\s?(?:%|％|percent\b|per cent\b|pct\b)`, "gi"),
    read: (m) => ({ dimension: "percent", amount: parseNumber(m[1]) }),
  },
  {
    // Amounts with a unit: 3 days, 72h, 512 MB, 30s, 3天, 2个月.
    regex: new RegExp(
      String
        .raw`(?<![\w.])(${NUM})\s?-?\s?(milliseconds?|msec|ms|seconds?|secs?|s|minutes?|mins?|` +
        String
          .raw`hours?|hrs?|h|days?|d|weeks?|wks?|months?|mo|years?|yrs?|bytes?|[kmgt]i?b|` +
        String.raw`(?:kilo|mega|giga|tera)bytes?|` +
        String
          .raw`kgs?|kilos?|kilograms?|grams?|g|lbs?|tonnes?|km|kilomet(?:er|re)s?|met(?:er|re)s?|` +
        String.raw`miles?|mi)\b|` +
        String
          .raw`(\d+(?:\.\d+)?)\s?(秒钟|秒|分钟|小时|天|周|星期|个月|年|公斤|千克|克|斤|公里|米)`,
      "gi",
    ),
    read: (m) => {
      const amount = parseNumber(m[1] ?? m[3]);
      const unit = singular((m[2] ?? m[4]).toLowerCase());
      if (unit in BYTES) return { dimension: "bytes", amount: amount * BYTES[unit] };
      if (unit in MASS_KG) return { dimension: "mass", amount: amount * MASS_KG[unit] };
      if (unit in LENGTH_M) return { dimension: "length", amount: amount * LENGTH_M[unit] };
      return { dimension: "duration", amount: amount * DURATION_SECONDS[unit] };
    },
  },
  {
    // Versions: v1.2, 1.2.3, "version 3.2", "Python 3.10" (a dotted number after a name).
    regex:
      /\bv(\d+(?:\.\d+)*)\b|\b(\d+\.\d+\.\d+(?:\.\d+)*)\b|(?<=\b(?:version|release|[A-Z][\w.+-]*)\s)(\d+\.\d+)\b/g,
    read: (m) => ({ dimension: "scalar", parts: versionParts(m[1] ?? m[2] ?? m[3]) }),
  },
  {
    // English weekdays (plural too: "on Fridays").
    regex: /\b(sun|mon|tues|wednes|thurs|fri|satur)days?\b/gi,
    read: (m) => ({
      dimension: "weekday",
      amount: WEEKDAYS.findIndex((day) => day.startsWith(m[1].toLowerCase())),
    }),
  },
  {
    // Bare full month names: "due in March"; May only after a preposition (it is also a verb).
    regex: new RegExp(
      String.raw`\b(january|february|march|april|june|july|august|september|october|november|` +
        String.raw`december)\b|(?<=\b(?:in|by|until|till|since|from|of|early|late|mid)\s+)(may)\b`,
      "gi",
    ),
    read: (m) => date(NaN, monthOf(m[1] ?? m[2]), NaN),
  },
  {
    // Ordinals that are not part of a date: "the 15th of every month", "the second Monday",
    // "the 3rd floor". Words only before a day, a period or "of", where they rank a slot.
    regex: new RegExp(
      String.raw`\b(\d{1,2})(?:st|nd|rd|th)\b|\b(${ORDINAL_WORD})(?=\s+(?:of\b|` +
        String.raw`(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|day\b|week\b|weekend\b|floor\b))`,
      "gi",
    ),
    read: (m) => {
      const amount = m[1] ? +m[1] : ordinalWord(m[2]);
      return amount === undefined ? undefined : { dimension: "ordinal", amount };
    },
  },
  {
    // Years after a preposition: "in 2019", "since 2021".
    regex: /\b(19\d\d|20\d\d)\b/g,
    read: (m, text) =>
      YEAR_LEADS.test(text.slice(Math.max(0, m.index - 12), m.index))
        ? date(+m[1], NaN, NaN)
        : undefined,
  },
  {
    // How often: "twice a day", "3 times per week" (a rate: times per second).
    regex:
      /\b(?:(once|twice|thrice)|(\d+)\s+times)\s+(?:a|an|per|every|each)\s+(hour|day|night|week|month|year)\b/gi,
    read: (m) => {
      const times = m[2] ? +m[2] : ["once", "twice", "thrice"].indexOf(m[1].toLowerCase()) + 1;
      return { dimension: "rate:time", amount: times / PERIOD_SECONDS[m[3].toLowerCase()] };
    },
  },
  {
    // Chinese counts with their measure word: 10个, 3台, 2位 (the measure word is the unit).
    regex: /(\d+)\s?(个|人|台|次|位|名|本|条|件|张|辆|套|间)/g,
    read: (m) => ({ dimension: `count:${m[2]}`, amount: +m[1] }),
  },
  {
    // Any other number, with the noun it counts when one follows: "5 replicas", "port 8080".
    regex: new RegExp(
      // A number glued to a word by a hyphen is part of an identifier (us-east-1, gpt-4,
      // ISO-8859-1: "-1 file" there is no count of files).
      String.raw`(?<![\w.]|[a-z][\w.-]*-)(${NUM})(k\b)?(?:\s+([a-z][a-z_-]*))?|` +
        String
          .raw`\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|` +
        String.raw`twenty|thirty|fifty|hundred)\s+([a-z][a-z_-]*)|(\d+)\s?(个|人|台|次)`,
      "gi",
    ),
    read: (m, text) => {
      if (m[6]) return { dimension: `count:${m[7]}`, amount: +m[6] };
      if (m[4]) {
        const noun = m[5].toLowerCase();
        return noun in NOUN_STOPS
          ? undefined
          : { dimension: `count:${stemNoun(noun)}`, amount: readEnglishNumber(m[4]) ?? 0 };
      }
      const amount = parseNumber(m[1]) * (m[2] ? 1e3 : 1);
      const noun = m[3]?.toLowerCase();
      // The value ends at the number: the counted noun stays a content word of the sentence.
      const end = m.index + m[1].length + (m[2]?.length ?? 0);
      if (noun && !(noun in NOUN_STOPS)) {
        // "100 requests per minute" = "6,000 requests per hour": a count per period is a rate.
        const rate = ratePeriod(text.slice(m.index + m[0].length));
        if (rate) {
          return {
            dimension: `rate:${stemNoun(noun)}`,
            amount: amount / PERIOD_SECONDS[rate.per],
            end,
          };
        }
        return { dimension: `count:${stemNoun(noun)}`, amount, end };
      }
      return { dimension: "scalar", parts: [amount], end };
    },
  },
];

/** Kinds of days that are an allowance of their own ("vacation days", "sick days"). */
const ALLOWANCES: ReadonlySet<string> = new Set(["vacation", "holiday", "sick", "leave", "pto"]);

/** Words after a number that are not the thing counted ("3 of them", "2 is the limit"). */
const NOUN_STOPS: Record<string, true> = Object.fromEntries(
  ("a an the of to in on at for and or but is are was were be by per with from as than " +
    "it this that times x am pm").split(" ").map((word) => [word, true]),
);

/**
 * Every value in `text`, in text order. Offsets are into `text`; pass it through
 * {@link normalizeNumerals} first when it may hold Chinese numerals ("三天").
 */
export function extractValues(text: string): SentenceValue[] {
  const source = text;
  const found: SentenceValue[] = [];
  const claimed: [number, number][] = [];
  for (const { regex, read } of PATTERNS) {
    regex.lastIndex = 0;
    for (let m = regex.exec(source); m !== null; m = regex.exec(source)) {
      const start = m.index;
      let end = start + m[0].length;
      if (claimed.some(([s, e]) => start < e && end > s)) continue;
      const value = read(m, source);
      if (!value || value.dimension === undefined) continue;
      if (value.amount !== undefined && !Number.isFinite(value.amount)) continue;
      end = value.end ?? end;
      claimed.push([start, end]);
      found.push({
        ...value,
        dimension: value.dimension,
        raw: source.slice(start, end),
        start,
        end,
      });
    }
  }
  found.sort((x, y) => x.start - y.start);
  markBounds(found, source);
  markAmountBounds(found, source);
  return found;
}

/** True when two values measure the same dimension (and so can be compared at all). */
export function comparable(a: SentenceValue, b: SentenceValue): boolean {
  return a.dimension === b.dimension;
}

/**
 * True when two comparable values are equal after normalization. Versions and dates compare by
 * component; sizes, durations and money within a rounding tolerance; every other amount
 * (percentages, counts, bare numbers, times of day) exactly.
 */
export function sameValue(a: SentenceValue, b: SentenceValue): boolean {
  if (!comparable(a, b)) return false;
  if (a.parts && b.parts) {
    if (a.dimension === "date") {
      // A date without a year matches the same day in any year: "March 14" / "2024-03-14".
      return a.parts.every((part, i) =>
        Number.isNaN(part) || Number.isNaN(b.parts![i]) || part === b.parts![i]
      );
    }
    const length = Math.max(a.parts.length, b.parts.length);
    for (let i = 0; i < length; i++) if ((a.parts[i] ?? 0) !== (b.parts[i] ?? 0)) return false;
    return true;
  }
  if (a.amount === undefined || b.amount === undefined) return false;
  const scale = Math.max(Math.abs(a.amount), Math.abs(b.amount));
  return scale === 0 || Math.abs(a.amount - b.amount) <= scale * amountTolerance(a.dimension);
}

/** Relative tolerance of a dimension: a rounding margin for sizes, durations and money only. */
export function amountTolerance(dimension: string): number {
  const tolerant = RULE_TOLERANT_DIMENSIONS.some((family) =>
    family.endsWith(":") ? dimension.startsWith(family) : dimension === family
  );
  return tolerant ? RULE_AMOUNT_TOLERANCE : RULE_EXACT_EPSILON;
}

function date(year: number, month: number, day: number): Partial<SentenceValue> | undefined {
  if (month !== month && day !== day && year !== year) return undefined;
  if (month === month && (month < 1 || month > 12)) return undefined;
  if (day === day && (day < 1 || day > 31)) return undefined;
  return { dimension: "date", parts: [year, month, day] };
}

/**
 * Parts of the day in minutes after 0:00, night running past midnight (times before
 * {@linkcode DAY_START} count as the night before: `timeWindow`). Where one part ends the next
 * begins; a time on the edge ("at noon") belongs to both.
 */
const DAY_START = 5 * 60;
const DAY_PARTS: Record<string, [number, number]> = {
  morning: [DAY_START, 12 * 60],
  afternoon: [12 * 60, 17 * 60],
  evening: [17 * 60, 22 * 60],
  night: [21 * 60, 24 * 60 + DAY_START],
};
const DAY_PARTS_HAN: Record<string, string> = {
  上午: "morning",
  早上: "morning",
  下午: "afternoon",
  晚上: "evening",
  夜里: "night",
};
/** Words before a time that make it the end of a window ("before 11:00") or its start. */
const UPPER_BOUND = /(?:before|by|until|till|no later than|up to|to|and|[-–])\s*$/iu;
const LOWER_BOUND = /(?:after|from|since|between|no earlier than|starting at|starting)\s*$/iu;

/** Marks times that bound a window: "before 11:00", "from 8:00 to 12:00", "between 1 and 3". */
function markBounds(values: SentenceValue[], text: string): void {
  let previousLower: SentenceValue | undefined;
  for (const value of values) {
    if (value.dimension !== "time" || value.span) continue;
    const before = text.slice(Math.max(0, value.start - 20), value.start);
    if (LOWER_BOUND.test(before)) {
      value.bound = "lower";
      previousLower = value;
    } else if (UPPER_BOUND.test(before)) {
      // "to" and "and" close a window only after its start ("from 8 to 12", "between 1 and 3").
      const closes = !/(?:to|and|[-–])\s*$/iu.test(before) || previousLower !== undefined;
      if (closes) value.bound = "upper";
      previousLower = undefined;
    }
  }
}

/** Words before an amount that make it a floor ("at least 2 GB", "a minimum of 3"). */
const FLOOR_BEFORE = /(?:at least|no less than|not less than|a minimum of|minimum of)\s*$/iu;
/** Words after an amount (and its noun) that make it a floor ("10 or more", "Node 18 and later"). */
const FLOOR_AFTER =
  /^(?:\s+[\p{L}]+)?\s*(?:\+|(?:or|and)\s+(?:more|higher|newer|later|above|up|greater|over)\b)/iu;
/** What joins the two ends of a range of amounts ("3 to 5 days", "between 2 and 4 hours", "$10-$20"). */
const RANGE_JOIN = /^\s*(?:to|-|–|and)\s*$/iu;

/**
 * Marks amounts (not times of day, see {@link markBounds}) that bound a range: a floor ("at
 * least 2 GB", "10 or more") is `lower`; the ends of "3 to 5 days" are `lower` and `upper`. A bare
 * number opening a range takes the unit of its other end ("3 to 5 days" is 3 days to 5 days).
 */
function markAmountBounds(values: SentenceValue[], text: string): void {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value.dimension === "time" || value.dimension === "date" || value.span) continue;
    const next = values[i + 1];
    const sameKind = next && (next.dimension === value.dimension || value.dimension === "scalar");
    if (
      next && sameKind && next.amount !== undefined &&
      RANGE_JOIN.test(text.slice(value.end, next.start)) &&
      (value.amount !== undefined || value.parts?.length === 1)
    ) {
      if (value.amount === undefined) {
        // The bare number is in the unit the other end is written in.
        const written = parseNumber(next.raw.match(/\d[\d,]*(?:\.\d+)?/u)?.[0] ?? "");
        if (!(written > 0)) continue;
        value.amount = value.parts![0] * next.amount / written;
        value.dimension = next.dimension;
        value.per = next.per;
        delete value.parts;
      }
      value.bound = "lower";
      next.bound = "upper";
      i++;
      continue;
    }
    if (
      FLOOR_BEFORE.test(text.slice(Math.max(0, value.start - 20), value.start)) ||
      FLOOR_AFTER.test(text.slice(value.end, value.end + 24))
    ) {
      value.bound = "lower";
    }
  }
}

/** Minutes after 0:00 on a clock that runs past midnight into the night. */
function onNightClock(minutes: number): number {
  return minutes < DAY_START ? minutes + 24 * 60 : minutes;
}

/**
 * The window of the day a row's times of day allow: the intersection of its parts of the day,
 * its bounds and its one moment. Undefined when the row names several moments (a list:
 * "at 9:00 and at 17:00") or its times contradict each other: then times compare one by one.
 */
export function timeWindow(values: readonly SentenceValue[]): [number, number] | undefined {
  const times = values.filter((value) => value.dimension === "time");
  if (times.length === 0) return undefined;
  const moments = times.filter((value) => !value.span && !value.bound);
  if (moments.length > 1) return undefined;
  let low = 0;
  let high = 48 * 60;
  for (const value of times) {
    if (value.span) {
      low = Math.max(low, value.span[0]);
      high = Math.min(high, value.span[1]);
      continue;
    }
    const at = onNightClock(value.amount!);
    if (value.bound !== "upper") low = Math.max(low, at);
    if (value.bound !== "lower") high = Math.min(high, at);
  }
  return low <= high ? [low, high] : undefined;
}

function time(hour: number, minute: number): Partial<SentenceValue> | undefined {
  if (hour > 24 || minute > 59) return undefined;
  return { dimension: "time", amount: (hour % 24) * 60 + minute };
}

function monthOf(name: string): number {
  return monthNumber(name) ?? 0;
}

function parseNumber(text: string): number {
  return Number(text.replaceAll(",", ""));
}

function versionParts(text: string): number[] {
  const parts = text.split(".").map(Number);
  while (parts.length > 1 && parts[parts.length - 1] === 0) parts.pop();
  return parts;
}

function singular(unit: string): string {
  if (unit.length > 3 && unit.endsWith("s") && !unit.endsWith("ss")) return unit.slice(0, -1);
  if (unit === "secs" || unit === "mins" || unit === "hrs" || unit === "yrs" || unit === "wks") {
    return unit.slice(0, -1);
  }
  return unit;
}

function stemNoun(noun: string): string {
  if (noun.endsWith("ies") && noun.length > 4) return `${noun.slice(0, -3)}y`;
  if (noun.endsWith("es") && /(?:ss|x|ch|sh)es$/.test(noun)) return noun.slice(0, -2);
  if (noun.endsWith("s") && !noun.endsWith("ss") && noun.length > 3) return noun.slice(0, -1);
  return noun;
}
