import assert from "node:assert/strict";
import { readValidityPhrases } from "../../src/text/validity_phrases.ts";

const MARCH_14 = Date.UTC(2024, 2, 14, 10);
const utc = { now: MARCH_14, timeZone: "UTC" };
const iso = (at: number | undefined) => at === undefined ? undefined : new Date(at).toISOString();

function read(text: string, options = utc) {
  const found = readValidityPhrases(text, options);
  return {
    from: iso(found.from?.at),
    fromWords: found.from?.words,
    to: iso(found.to?.at),
    toWords: found.to?.words,
  };
}

Deno.test("English start edges: from, since, as of, starting, effective", () => {
  const cases: [string, string, string][] = [
    ["Port 5433 from 1 March 2024.", "2024-03-01T00:00:00.000Z", "from 1 March 2024"],
    ["Since 2023 we deploy on Fridays.", "2023-01-01T00:00:00.000Z", "Since 2023"],
    ["As of March 2024 the lead is Ann.", "2024-03-01T00:00:00.000Z", "As of March 2024"],
    [
      "Starting on May 5th the office opens at 8.",
      "2024-05-05T00:00:00.000Z",
      "Starting on May 5th",
    ],
    [
      "effective 2024-04-02 the VPN is required",
      "2024-04-02T00:00:00.000Z",
      "effective 2024-04-02",
    ],
    ["from the 3rd of April, 2025", "2025-04-03T00:00:00.000Z", "from the 3rd of April, 2025"],
  ];
  for (const [text, from, words] of cases) {
    const found = read(text);
    assert.equal(found.from, from, text);
    assert.equal(found.fromWords, words, text);
    assert.equal(found.to, undefined, text);
  }
});

Deno.test("English end edges close at the end of the day or month they name", () => {
  assert.deepEqual(read("Staging runs on 5433 until 30 June."), {
    from: undefined,
    fromWords: undefined,
    to: "2024-07-01T00:00:00.000Z",
    toWords: "until 30 June",
  });
  assert.equal(read("valid through June 2024").to, "2024-07-01T00:00:00.000Z");
  // A leap day is a real date in 2024 and none in 2023.
  assert.equal(read("till 29 February 2024").to, "2024-03-01T00:00:00.000Z");
  assert.equal(read("till 29 February 2023").to, undefined);
  const range = read("The freeze lasts from 1 March to 30 June 2024.");
  assert.equal(range.from, "2024-03-01T00:00:00.000Z");
  assert.equal(range.to, "2024-07-01T00:00:00.000Z");
});

Deno.test("Chinese start and end edges", () => {
  assert.equal(read("自2024年3月起，端口改为 9443").from, "2024-03-01T00:00:00.000Z");
  assert.equal(read("从2023年起使用新流程").from, "2023-01-01T00:00:00.000Z");
  assert.equal(read("自2024年3月15日起生效").from, "2024-03-15T00:00:00.000Z");
  assert.equal(read("到2024年6月底有效").to, "2024-07-01T00:00:00.000Z");
  assert.equal(read("有效期至2024年6月30日").to, "2024-07-01T00:00:00.000Z");
  const both = read("自2024年3月起到2024年6月底，预发布使用 9443");
  assert.deepEqual([both.from, both.to], ["2024-03-01T00:00:00.000Z", "2024-07-01T00:00:00.000Z"]);
});

Deno.test("ambiguous or unstated windows set nothing", () => {
  for (
    const text of [
      "the report from 2023",
      "migrated from MySQL to Postgres",
      "open from 9am to 5pm",
      "until 2025",
      "Ann since 2023, Bob since 2024",
      "from 1 July 2024 until 1 March 2024",
      "no dates here at all",
    ]
  ) {
    assert.deepEqual(readValidityPhrases(text, utc), {}, text);
  }
});

Deno.test("dates are read in the zone; a date without a year takes the reference's year", () => {
  const shanghai = { now: MARCH_14, timeZone: "Asia/Shanghai" };
  assert.equal(read("from 1 March 2024", shanghai).from, "2024-02-29T16:00:00.000Z");
  const lastYear = { now: Date.UTC(2023, 5, 1), timeZone: "UTC" };
  assert.equal(read("until 30 June", lastYear).to, "2023-07-01T00:00:00.000Z");
});
