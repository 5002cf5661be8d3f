import assert from "node:assert/strict";
import {
  findTimePhrase,
  isTimeZone,
  readTimePhrase,
  type TimePhraseOptions,
} from "../../src/text/time_phrases.ts";

/** Thursday 14 March 2024, 10:00 UTC. */
const NOW = Date.UTC(2024, 2, 14, 10);
const UTC: TimePhraseOptions = { now: NOW, timeZone: "UTC" };

/** The interval a phrase reads as [start, end) ISO strings, and its rule. */
function reads(text: string, options: TimePhraseOptions = UTC): [string, string, string] {
  const found = findTimePhrase(text, options);
  assert.ok(found, `"${text}" should read as a time phrase`);
  return [new Date(found.start).toISOString(), new Date(found.end).toISOString(), found.rule];
}

const day = (date: string) => `${date}T00:00:00.000Z`;
const NOW_ISO = "2024-03-14T10:00:00.000Z";

Deno.test("every English form reads as its documented interval (UTC)", () => {
  const cases: [string, [string, string, string]][] = [
    ["today", [day("2024-03-14"), day("2024-03-15"), "today"]],
    ["yesterday", [day("2024-03-13"), day("2024-03-14"), "yesterday"]],
    ["the day before yesterday", [day("2024-03-12"), day("2024-03-13"), "day_before_yesterday"]],
    ["last week", [day("2024-03-04"), day("2024-03-11"), "last_week"]],
    ["this week", [day("2024-03-11"), day("2024-03-18"), "this_week"]],
    ["past 7 days", ["2024-03-07T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["last 3 days", ["2024-03-11T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["past two weeks", ["2024-02-29T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["last 2 months", ["2024-01-14T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["past week", ["2024-03-07T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["past month", ["2024-02-14T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["2 days ago", [day("2024-03-12"), day("2024-03-13"), "days_ago"]],
    ["three days ago", [day("2024-03-11"), day("2024-03-12"), "days_ago"]],
    ["since Monday", [day("2024-03-11"), NOW_ISO, "since_weekday"]],
    ["since Friday", [day("2024-03-08"), NOW_ISO, "since_weekday"]],
    ["since Thursday", [day("2024-03-14"), NOW_ISO, "since_weekday"]],
    ["in March 2024", [day("2024-03-01"), day("2024-04-01"), "month"]],
    ["March 2024", [day("2024-03-01"), day("2024-04-01"), "month"]],
    ["Dec 2023", [day("2023-12-01"), day("2024-01-01"), "month"]],
    ["2024-03", [day("2024-03-01"), day("2024-04-01"), "month"]],
    ["Q3 2023", [day("2023-07-01"), day("2023-10-01"), "quarter"]],
    ["Q4 2023", [day("2023-10-01"), day("2024-01-01"), "quarter"]],
    ["last month", [day("2024-02-01"), day("2024-03-01"), "last_month"]],
    ["this month", [day("2024-03-01"), day("2024-04-01"), "this_month"]],
    ["last year", [day("2023-01-01"), day("2024-01-01"), "last_year"]],
    ["this year", [day("2024-01-01"), day("2025-01-01"), "this_year"]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(reads(text), expected, text);
});

Deno.test("every Chinese form reads as its documented interval (UTC)", () => {
  const cases: [string, [string, string, string]][] = [
    ["今天", [day("2024-03-14"), day("2024-03-15"), "today"]],
    ["昨天", [day("2024-03-13"), day("2024-03-14"), "yesterday"]],
    ["前天", [day("2024-03-12"), day("2024-03-13"), "day_before_yesterday"]],
    ["上周", [day("2024-03-04"), day("2024-03-11"), "last_week"]],
    ["上个星期", [day("2024-03-04"), day("2024-03-11"), "last_week"]],
    ["本周", [day("2024-03-11"), day("2024-03-18"), "this_week"]],
    ["这周", [day("2024-03-11"), day("2024-03-18"), "this_week"]],
    ["上个月", [day("2024-02-01"), day("2024-03-01"), "last_month"]],
    ["本月", [day("2024-03-01"), day("2024-04-01"), "this_month"]],
    ["这个月", [day("2024-03-01"), day("2024-04-01"), "this_month"]],
    ["最近三天", ["2024-03-11T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["最近3天", ["2024-03-11T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["近7天", ["2024-03-07T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["最近两周", ["2024-02-29T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["近十二天", ["2024-03-02T10:00:00.000Z", NOW_ISO, "past_span"]],
    ["三天前", [day("2024-03-11"), day("2024-03-12"), "days_ago"]],
    ["2024年3月", [day("2024-03-01"), day("2024-04-01"), "month"]],
    ["2023年12月", [day("2023-12-01"), day("2024-01-01"), "month"]],
    ["2024年", [day("2024-01-01"), day("2025-01-01"), "year"]],
    ["去年", [day("2023-01-01"), day("2024-01-01"), "last_year"]],
    ["今年", [day("2024-01-01"), day("2025-01-01"), "this_year"]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(reads(text), expected, text);
});

Deno.test("a phrase inside longer text is found and quoted as written", () => {
  const found = findTimePhrase("What did we decide Last Week about the staging port?", UTC);
  assert.equal(found?.phrase, "Last Week");
  assert.equal(findTimePhrase("上周我们决定了什么？", UTC)?.phrase, "上周");
  assert.equal(findTimePhrase("deploys in Q3 2023 and later", UTC)?.rule, "quarter");
  // The earliest phrase wins; at one place, the most specific reading.
  assert.equal(findTimePhrase("yesterday and last week", UTC)?.rule, "yesterday");
  assert.equal(findTimePhrase("in the last 3 weeks", UTC)?.phrase, "last 3 weeks");
  // Words that merely contain a phrase's letters are not phrases.
  assert.equal(findTimePhrase("the weekend todays pasta", UTC), undefined);
  assert.equal(findTimePhrase("2024-03-05 release notes", UTC), undefined);
  assert.equal(findTimePhrase("what is the staging port?", UTC), undefined);
  assert.equal(findTimePhrase("2024年3月5日", UTC)?.rule, "month");
});

Deno.test("relativeOnly leaves calendar dates out; a day is not its month", () => {
  const relative = { ...UTC, relativeOnly: true };
  assert.equal(findTimePhrase("what did John attend in March 2023?", relative), undefined);
  assert.equal(findTimePhrase("Q3 2023 上周 2024年3月", relative)?.phrase, "上周");
  assert.equal(findTimePhrase("2024年 的计划", relative), undefined);
  assert.equal(findTimePhrase("a camping trip last year", relative)?.rule, "last_year");
  assert.equal(findTimePhrase("What did Gina find on 1 February, 2023?", UTC), undefined);
  assert.equal(findTimePhrase("on the 7th of July 2023", UTC), undefined);
});

Deno.test("the time argument must be a phrase and nothing else", () => {
  assert.equal(readTimePhrase("  last week ", UTC)?.rule, "last_week");
  assert.equal(readTimePhrase("昨天？", UTC)?.rule, "yesterday");
  assert.equal(readTimePhrase("what happened last week", UTC), undefined);
  assert.equal(readTimePhrase("the other day", UTC), undefined);
  assert.equal(readTimePhrase("Q5 2023", UTC), undefined);
  assert.equal(readTimePhrase("2024-13", UTC), undefined);
  assert.equal(readTimePhrase("past 0 days", UTC), undefined);
});

Deno.test("midnight belongs to the day it starts", () => {
  const midnight = { now: Date.UTC(2024, 2, 14), timeZone: "UTC" };
  assert.deepEqual(reads("today", midnight).slice(0, 2), [day("2024-03-14"), day("2024-03-15")]);
  assert.deepEqual(reads("yesterday", midnight).slice(0, 2), [
    day("2024-03-13"),
    day("2024-03-14"),
  ]);
  const lastMoment = { now: Date.UTC(2024, 2, 14) - 1, timeZone: "UTC" };
  assert.deepEqual(reads("today", lastMoment).slice(0, 2), [day("2024-03-13"), day("2024-03-14")]);
});

Deno.test("weeks start on Monday, on a Monday and on a Sunday", () => {
  const monday = { now: Date.UTC(2024, 2, 11, 8), timeZone: "UTC" };
  assert.deepEqual(reads("this week", monday).slice(0, 2), [day("2024-03-11"), day("2024-03-18")]);
  assert.deepEqual(reads("last week", monday).slice(0, 2), [day("2024-03-04"), day("2024-03-11")]);
  assert.deepEqual(reads("since Monday", monday).slice(0, 2), [
    day("2024-03-11"),
    "2024-03-11T08:00:00.000Z",
  ]);
  const sunday = { now: Date.UTC(2024, 2, 17, 23), timeZone: "UTC" };
  assert.deepEqual(reads("this week", sunday).slice(0, 2), [day("2024-03-11"), day("2024-03-18")]);
  assert.deepEqual(reads("上周", sunday).slice(0, 2), [day("2024-03-04"), day("2024-03-11")]);
});

Deno.test("month ends, year ends and the leap day", () => {
  const leapDay = { now: Date.UTC(2024, 1, 29, 12), timeZone: "UTC" };
  assert.deepEqual(reads("today", leapDay).slice(0, 2), [day("2024-02-29"), day("2024-03-01")]);
  assert.deepEqual(reads("this month", leapDay).slice(0, 2), [
    day("2024-02-01"),
    day("2024-03-01"),
  ]);
  assert.deepEqual(reads("past 1 month", leapDay).slice(0, 2), [
    "2024-01-29T12:00:00.000Z",
    "2024-02-29T12:00:00.000Z",
  ]);
  const marchFirst = { now: Date.UTC(2024, 2, 1, 9), timeZone: "UTC" };
  assert.deepEqual(reads("yesterday", marchFirst).slice(0, 2), [
    day("2024-02-29"),
    day("2024-03-01"),
  ]);
  // A month back from 31 March is the last day of February.
  const endOfMarch = { now: Date.UTC(2023, 2, 31, 9), timeZone: "UTC" };
  assert.deepEqual(reads("past month", endOfMarch).slice(0, 2), [
    "2023-02-28T09:00:00.000Z",
    "2023-03-31T09:00:00.000Z",
  ]);
  assert.deepEqual(reads("2024年2月", UTC).slice(0, 2), [day("2024-02-01"), day("2024-03-01")]);
  const newYear = { now: Date.UTC(2024, 0, 1, 1), timeZone: "UTC" };
  assert.deepEqual(reads("last month", newYear).slice(0, 2), [
    day("2023-12-01"),
    day("2024-01-01"),
  ]);
  assert.deepEqual(reads("last week", newYear).slice(0, 2), [day("2023-12-25"), day("2024-01-01")]);
});

Deno.test("a non-UTC zone: local midnights, and a DST change inside the interval", () => {
  // 02:00 UTC on 14 March is still 13 March in New York (UTC−4 since 10 March).
  const newYork = { now: Date.UTC(2024, 2, 14, 2), timeZone: "America/New_York" };
  assert.deepEqual(reads("today", newYork).slice(0, 2), [
    "2024-03-13T04:00:00.000Z",
    "2024-03-14T04:00:00.000Z",
  ]);
  // Last week in New York spans the spring-forward of 10 March: its start is at UTC−5,
  // its end at UTC−4, and the day of the change is 23 hours long.
  const week = { now: Date.UTC(2024, 2, 14, 15), timeZone: "America/New_York" };
  assert.deepEqual(reads("last week", week).slice(0, 2), [
    "2024-03-04T05:00:00.000Z",
    "2024-03-11T04:00:00.000Z",
  ]);
  const dayAfter = { now: Date.UTC(2024, 2, 11, 15), timeZone: "America/New_York" };
  const [start, end] = reads("yesterday", dayAfter);
  assert.deepEqual([start, end], ["2024-03-10T05:00:00.000Z", "2024-03-11T04:00:00.000Z"]);
  assert.equal(Date.parse(end) - Date.parse(start), 23 * 3600_000);
  // Berlin falls back on 27 October 2024: that day lasts 25 hours.
  const berlin = { now: Date.UTC(2024, 9, 28, 12), timeZone: "Europe/Berlin" };
  const [from, to] = reads("昨天", berlin);
  assert.deepEqual([from, to], ["2024-10-26T22:00:00.000Z", "2024-10-27T23:00:00.000Z"]);
  // A rolling span keeps the local clock time across the change.
  // 11:00 in New York on 14 March (UTC−4) goes back to 11:00 on 7 March (UTC−5).
  assert.equal(reads("past 7 days", week)[0], "2024-03-07T16:00:00.000Z");
  const rollBack = { now: Date.UTC(2024, 2, 12, 15), timeZone: "America/New_York" };
  assert.equal(reads("past 3 days", rollBack)[0], "2024-03-09T16:00:00.000Z");
});

Deno.test("Shanghai: a month and a year in local time", () => {
  const shanghai = { now: NOW, timeZone: "Asia/Shanghai" };
  assert.deepEqual(reads("2024年3月", shanghai).slice(0, 2), [
    "2024-02-29T16:00:00.000Z",
    "2024-03-31T16:00:00.000Z",
  ]);
  assert.deepEqual(reads("去年", shanghai).slice(0, 2), [
    "2022-12-31T16:00:00.000Z",
    "2023-12-31T16:00:00.000Z",
  ]);
});

Deno.test("time zone names are checked", () => {
  assert.equal(isTimeZone("Europe/Berlin"), true);
  assert.equal(isTimeZone("UTC"), true);
  assert.equal(isTimeZone("Mars/Olympus"), false);
});
