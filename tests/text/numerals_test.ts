import assert from "node:assert/strict";
import {
  normalizeNumerals,
  readChineseNumeral,
  readEnglishNumber,
} from "../../src/text/numerals.ts";

Deno.test("Chinese numerals 0–99 read as numbers; anything else does not", () => {
  const cases: [string, number | undefined][] = [
    ["三", 3],
    ["两", 2],
    ["十", 10],
    ["十二", 12],
    ["二十", 20],
    ["二十五", 25],
    ["九十九", 99],
    ["三三", undefined],
    ["十十", undefined],
    ["百", undefined],
  ];
  for (const [numeral, value] of cases) assert.equal(readChineseNumeral(numeral), value, numeral);
});

Deno.test("English number words read as numbers", () => {
  assert.equal(readEnglishNumber("Twelve"), 12);
  assert.equal(readEnglishNumber("a"), 1);
  assert.equal(readEnglishNumber("thirty"), 30);
  assert.equal(readEnglishNumber("hundred"), 100);
  assert.equal(readEnglishNumber("several"), undefined);
});

Deno.test("numerals before a unit become digits; others stay words", () => {
  assert.equal(normalizeNumerals("二十四小时"), "24小时");
  assert.equal(normalizeNumerals("twenty-five dollars"), "25 dollars");
  assert.equal(normalizeNumerals("one of us"), "one of us");
  assert.equal(normalizeNumerals("one day we will"), "one day we will");
  assert.equal(normalizeNumerals("５０％"), "50%");
});
