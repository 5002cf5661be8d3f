/** Value extraction and normalization for the conflict rule stage. */
import assert from "node:assert/strict";
import { assessPair } from "../../src/conflicts/rules.ts";
import { extractValues, sameValue } from "../../src/conflicts/values.ts";
import { normalizeNumerals } from "../../src/text/numerals.ts";

function only(text: string): ReturnType<typeof extractValues>[number] {
  const values = extractValues(normalizeNumerals(text));
  assert.equal(values.length, 1, `${text}: ${JSON.stringify(values)}`);
  return values[0];
}

function same(a: string, b: string): boolean {
  return sameValue(only(a), only(b));
}

Deno.test("durations, sizes, money and percentages normalize across units", () => {
  assert.ok(same("3 days", "72 hours"));
  assert.ok(same("90 minutes", "1.5 hours"));
  assert.ok(same("a 15-minute slot", "900 seconds"));
  assert.ok(same("1 GB", "1024 MB"));
  assert.ok(same("1 GB", "1000 MB"), "decimal and binary prefixes are within tolerance");
  assert.ok(same("$20", "20 dollars"));
  assert.ok(same("$1.5k", "$1,500"));
  assert.ok(same("20%", "20 percent"));
  assert.ok(!same("3 days", "4 days"));
  assert.ok(!same("$20", "€20"), "different currencies are different dimensions");
});

Deno.test("versions compare by component and ignore trailing zeros", () => {
  assert.ok(same("v1.2", "1.2.0"));
  assert.ok(!same("v1.2", "v1.3"));
  assert.ok(!same("Python 3.10", "Python 3.1"), "3.10 is a version, not the decimal 3.1");
  assert.equal(only("React v18.2").dimension, "scalar");
});

Deno.test("dates, weekdays and times", () => {
  assert.ok(same("2024-03-14", "March 14"));
  assert.ok(same("14 March 2024", "Mar 14th, 2024"));
  assert.ok(!same("March 14", "March 17"));
  assert.ok(same("on Fridays", "Friday"));
  assert.ok(same("9:30am", "09:30"));
  assert.ok(same("3pm", "15:00"));
  assert.equal(only("due in May").dimension, "date");
  assert.equal(extractValues("we may ship it").length, 0, "may the verb is not a month");
  assert.equal(only("in 2019").dimension, "date");
  assert.equal(only("we have 2019 users").dimension, "count:user");
});

Deno.test("simple Chinese numbers, dates, weekdays and times", () => {
  assert.ok(same("三天", "72小时"));
  assert.ok(same("2024年3月5日", "2024-03-05"));
  assert.ok(same("周五", "Friday"));
  assert.ok(same("下午3点", "15:00"));
  assert.ok(same("30元", "¥30"));
  assert.ok(!same("3月5日", "3月12日"));
});

Deno.test("counts carry their noun; identifiers keep their digits", () => {
  assert.equal(only("5 replicas").dimension, "count:replica");
  assert.ok(!sameValue(only("5 replicas"), only("5 workers")));
  assert.equal(extractValues("runs in us-east-1").length, 0);
  assert.equal(only("port 8080").dimension, "scalar");
  // content-disposition's README: the charset's "-1" counts no files.
  assert.equal(extractValues("specify the ISO-8859-1 file name").length, 0);
  assert.equal(extractValues("an x86-64 build").length, 0);
  // A range between two numbers still reads both ends.
  assert.equal(extractValues("3-5 replicas").length, 2);
});

Deno.test("a value glued into an identifier is quoted whole in a conflict", () => {
  // Two content-disposition READMEs name two charsets: the conflict shows both as written.
  const text = (charset: string) =>
    `A string will specify the ${charset} file name to use in place of automatic generation.`;
  const found = assessPair({ text: text("ISO-8859-1") }, { text: text("US-ASCII") });
  assert.deepEqual(found.values, { a: "ISO-8859-1", b: "US-ASCII" });
});

Deno.test("percentages, counts, identifiers and times compare exactly", () => {
  // Issue 12 item 11: 99.9% and 99.5% are 0.4% apart, inside the old 2.5% tolerance.
  assert.ok(!same("99.9%", "99.5%"));
  assert.ok(!same("99.99 percent", "99.9 percent"));
  assert.ok(same("99.9%", "99.9 percent"));
  assert.ok(!same("40 replicas", "41 replicas"), "a count is exact");
  assert.ok(same("1.1k replicas", "1,100 replicas"), "float rounding is not a difference");
  assert.ok(!same("ticket 1201", "ticket 1202"), "an identifier is exact");
  assert.ok(!same("14:00", "14:15"), "a time of day is exact");
  assert.ok(!same("version 1.10", "version 1.1"));
  assert.ok(!same("v1.10", "v1.1"));
  // A bare decimal is a number, not a version: 1.10 and 1.1 are the same amount.
  assert.ok(same("upgrade to 1.10", "upgrade to 1.1"));
});

Deno.test("money, durations and sizes keep their tolerance", () => {
  assert.ok(same("$20", "$20.40"), "money within 2.5% is a rounding");
  assert.ok(same("1 year", "52 weeks"), "364 and 365 days are a rounding");
  assert.ok(same("1 GB", "1000 MB"));
  assert.ok(!same("$20", "$25"));
});
