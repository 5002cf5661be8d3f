/**
 * Number words read as numbers, in English ("three", "twenty-five") and Chinese (三, 十二, 二十五),
 * and the rewrite that turns the ones before a unit into digits. Shared by the time phrases
 * (src/text/time_phrases.ts: "past three days", 最近三天) and the value extractor of conflict
 * detection (src/conflicts/values.ts: "三天" vs "3 days"), which once kept a copy each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeNumerals, readChineseNumeral, readEnglishNumber } from "./numerals.ts";
 *
 * assert.equal(readChineseNumeral("二十五"), 25);
 * assert.equal(readEnglishNumber("twelve"), 12);
 * assert.equal(normalizeNumerals("三天 and two weeks"), "3天 and 2 weeks");
 * ```
 * @module
 */

/** Chinese digits (两 is the "two" of counting: 两天). */
export const CHINESE_DIGITS: Readonly<Record<string, number>> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

const ENGLISH_ONES: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const ENGLISH_TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

/**
 * The value of one English number word ("twelve", "thirty", "hundred"; "a"/"an" are one), or
 * undefined for any other word.
 */
export function readEnglishNumber(word: string): number | undefined {
  const lower = word.toLowerCase();
  if (lower === "a" || lower === "an") return 1;
  if (lower === "hundred") return 100;
  return ENGLISH_ONES[lower] ?? ENGLISH_TENS[lower];
}

/** A Chinese numeral from 0 to 99 ("三", "十", "十二", "二十五") as a number, or undefined. */
export function readChineseNumeral(numeral: string): number | undefined {
  if (!numeral.includes("十")) {
    return numeral.length === 1 ? CHINESE_DIGITS[numeral] : undefined;
  }
  const [tens, ones, extra] = numeral.split("十");
  if (extra !== undefined) return undefined;
  const tensValue = tens === "" ? 1 : CHINESE_DIGITS[tens];
  const onesValue = ones === "" ? 0 : CHINESE_DIGITS[ones];
  if (tensValue === undefined || onesValue === undefined) return undefined;
  return tensValue * 10 + onesValue;
}

/**
 * NFKC-normalizes `text` (full-width digits and ％ become ASCII) and writes Chinese numerals
 * up to 99 before a unit as digits: "三天" → "3天", "二十四小时" → "24小时".
 */
export function normalizeNumerals(text: string): string {
  return englishNumeralsToDigits(chineseNumeralsToDigits(text.normalize("NFKC")));
}

/**
 * Number words before a unit, a currency or a clock word: "twenty-five dollars", "two weeks",
 * "ten o'clock", "eleven in the evening", "fifty kg". Elsewhere a number word stays a word
 * ("one of us"); "one day" is an idiom as often as a duration and stays too.
 */
const ENGLISH_NUMERAL = new RegExp(
  String.raw`\b(?:(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](one|two|three|` +
    String.raw`four|five|six|seven|eight|nine))?|(zero|one|two|three|four|five|six|seven|eight|` +
    String.raw`nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|` +
    String.raw`nineteen))(?:[- ](hundred|thousand))?(?=[\s-]+(?:seconds?|minutes?|hours?|days?|` +
    String.raw`weeks?|months?|years?|dollars?|euros?|pounds?|percent|per\s+cent|o'clock|` +
    String.raw`in\s+the\s+(?:morning|afternoon|evening)|kilos?|kilograms?|kg|lbs?|miles?|` +
    String.raw`kilomet(?:er|re)s?|km|gigabytes?|megabytes?|terabytes?|[kmgt]b)\b)`,
  "gi",
);

function englishNumeralsToDigits(text: string): string {
  return text.replace(/[’‘]/g, "'").replace(
    ENGLISH_NUMERAL,
    (whole: string, tens?: string, ones?: string, single?: string, scale?: string, ...rest) => {
      const at = rest[0] as number;
      const source = rest[1] as string;
      if (/^one$/i.test(whole) && /^[\s-]+day\b/i.test(source.slice(at + whole.length))) {
        return whole;
      }
      const base = single !== undefined
        ? ENGLISH_ONES[single.toLowerCase()]
        : ENGLISH_TENS[tens!.toLowerCase()] + (ones ? ENGLISH_ONES[ones.toLowerCase()] : 0);
      const factor = scale === undefined ? 1 : scale.toLowerCase() === "hundred" ? 100 : 1000;
      return String(base * factor);
    },
  );
}

function chineseNumeralsToDigits(text: string): string {
  return text.replace(
    /([零一二两三四五六七八九十]{1,3})(?=\s*(?:秒|分钟|小时|天|周|星期|个|月|年|日|号|点|人|台|次|元|块|%))/g,
    (numeral: string) => {
      const value = readChineseNumeral(numeral);
      return value === undefined ? numeral : String(value);
    },
  );
}
