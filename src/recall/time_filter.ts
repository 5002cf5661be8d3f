/**
 * Which time phrase a `find` call filters on: the `time` argument when given ("off" turns the
 * filter off), else a phrase recognized inside the query (src/text/time_phrases.ts).
 *
 * Inside a query only phrases relative to now filter ("last week", "昨天"). A calendar date a
 * query names ("in March 2023", "Q3 2023", "2024年3月") does not: people mention an event in a
 * later conversation ("last week I…" said in April about March), so a hard month filter lost
 * those turns (LoCoMo dev R@10 0.778 → 0.770, 23 of its 383 questions name a month); dates in
 * the query still rank memories from that time higher (src/recall/dates.ts). As the `time`
 * argument every phrase filters.
 *
 * The interval is compared with the memory's validity window where it has one (the window
 * overlaps the interval; an unknown edge is open), else with its `event_time`, else when it was
 * stored (`ingest_time`), the field `after_time`/`before_time` filter on. {@linkcode
 * TIME_FILTER_FIELD} is the one name answers report.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chooseTimeFilter } from "./time_filter.ts";
 *
 * const clock = { now: Date.UTC(2024, 2, 14, 10), timeZone: "UTC" };
 * const chosen = chooseTimeFilter({ query: "what did we decide yesterday?" }, clock);
 * assert.equal(chosen?.source, "query");
 * assert.equal(chosen?.start, Date.UTC(2024, 2, 13));
 * assert.equal(chooseTimeFilter({ query: "yesterday", time: "off" }, clock), undefined);
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import {
  findTimePhrase,
  readTimePhrase,
  type TimePhrase,
  type TimePhraseOptions,
} from "../text/time_phrases.ts";

/** The memory time a phrase filters on, as answers name it (window, else event/ingest time). */
export const TIME_FILTER_FIELD = "valid_window_or_event_time";

/** The value of `time` that turns phrase recognition off. */
export const TIME_FILTER_OFF = "off";

/** A phrase `find` filters on, and where it came from. */
export interface TimeFilter extends TimePhrase {
  source: "argument" | "query";
}

/**
 * The phrase to filter on, or undefined for none. An explicit `time` that reads as no phrase is
 * `invalid_input` naming it; a query without a phrase is no filter.
 */
export function chooseTimeFilter(
  input: { time?: string; query?: string },
  options: TimePhraseOptions,
): TimeFilter | undefined {
  const time = input.time?.trim();
  if (time !== undefined && time.toLowerCase() === TIME_FILTER_OFF) return undefined;
  if (time !== undefined && time !== "") {
    const read = readTimePhrase(time, options);
    if (!read) {
      throw new MemaError(
        "invalid_input",
        `time: "${input.time}" is not a time phrase mema reads`,
        {
          field: "time",
          hint: 'for example "yesterday", "last week", "past 7 days", "since Monday", ' +
            '"March 2024", "Q3 2023", "上周", "最近三天", or "off"',
        },
      );
    }
    return { ...read, source: "argument" };
  }
  const found = input.query
    ? findTimePhrase(input.query, { ...options, relativeOnly: true })
    : undefined;
  return found ? { ...found, source: "query" } : undefined;
}

/**
 * The query with a recognized phrase taken out, so its words ("last", "week") do not count as
 * search words once the phrase has become a filter.
 */
export function queryWithoutPhrase(query: string, filter: TimeFilter): string {
  if (filter.source !== "query") return query;
  const at = query.indexOf(filter.phrase);
  if (at < 0) return query;
  return `${query.slice(0, at)} ${query.slice(at + filter.phrase.length)}`.replace(/\s+/g, " ")
    .trim();
}
