/**
 * Reading the JSON exports of other memory tools: the file parsed once, its list of records
 * found under the keys the tool uses, each field read with a clear reason when it is not what
 * the tool writes, and every record named by its JSON path (`$.results[3]`) so a bad one can be
 * reported and skipped while the rest is imported.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isoTime, recordList } from "./records.ts";
 *
 * const { records, at } = recordList({ results: [{ memory: "Likes tea" }] }, ["results"]);
 * assert.equal(records.length, 1);
 * assert.equal(at, "$.results");
 * assert.equal(isoTime(1700000000), "2023-11-14T22:13:20.000Z");
 * ```
 * @module
 */

/** A record (or a field of one) that is not what its format says, at a JSON path. */
export class RecordError extends Error {
  /** Where, as a JSON path (`$[2].chat_messages[0]`). */
  readonly at: string;
  constructor(at: string, message: string) {
    super(message);
    this.at = at;
  }
}

/** A JSON object. */
export type JsonRecord = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses a whole export. A file that is not JSON throws a {@linkcode RecordError} at `$` with
 * the parser's reason (it names the position where reading stopped).
 */
export function parseExport(text: string): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new RecordError("$", `not JSON: ${(error as Error).message}`);
  }
}

/**
 * The records of an export: the array itself, or the array under the first of `keys` the
 * object holds. Throws a {@linkcode RecordError} when there is none.
 */
export function recordList(
  value: unknown,
  keys: readonly string[],
): { records: unknown[]; at: string } {
  if (Array.isArray(value)) return { records: value, at: "$" };
  if (isRecord(value)) {
    for (const key of keys) {
      if (Array.isArray(value[key])) return { records: value[key] as unknown[], at: `$.${key}` };
    }
  }
  throw new RecordError(
    "$",
    `expected a JSON array of records, or an object with ${keys.map((k) => `"${k}"`).join(" or ")}`,
  );
}

/**
 * The fields of one record, each read with the JSON path of the field in its errors
 * (`$.results[3].created_at`).
 */
export class RecordFields {
  /** The record itself. */
  readonly record: JsonRecord;
  /** Where it is in the export. */
  readonly at: string;
  constructor(record: JsonRecord, at: string) {
    this.record = record;
    this.at = at;
  }

  /** A text field: undefined when absent or null; a RecordError when it is something else. */
  text(key: string): string | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
    throw new RecordError(`${this.at}.${key}`, `"${key}" must be text`);
  }

  /** A text field that must be there and say something: a RecordError otherwise. */
  requiredText(key: string): string {
    const value = this.record[key];
    if (typeof value !== "string" || value.trim() === "") {
      const what = value === undefined || value === null || value === ""
        ? "is missing or empty"
        : `must be text, not ${Array.isArray(value) ? "an array" : typeof value}`;
      throw new RecordError(`${this.at}.${key}`, `"${key}" ${what}`);
    }
    return value;
  }

  /** A list of tags: an array of texts, or one comma-separated text. */
  tags(key: string): string[] {
    const value = this.record[key];
    if (value === undefined || value === null) return [];
    if (typeof value === "string") {
      return value.split(",").map((tag) => tag.trim()).filter((tag) => tag !== "");
    }
    if (Array.isArray(value) && value.every((tag) => typeof tag === "string")) {
      return (value as string[]).map((tag) => tag.trim()).filter((tag) => tag !== "");
    }
    throw new RecordError(`${this.at}.${key}`, `"${key}" must be a list of tags`);
  }

  /** A map field: empty when absent or null; a RecordError when it is not an object. */
  map(key: string): JsonRecord {
    const value = this.record[key];
    if (value === undefined || value === null) return {};
    if (!isRecord(value)) throw new RecordError(`${this.at}.${key}`, `"${key}" must be an object`);
    return value;
  }

  /** A time field as ISO 8601 (see {@linkcode isoTime}). */
  time(key: string): string | undefined {
    return isoTime(this.record[key], `${this.at}.${key}`);
  }
}

/** The fields of a record; a RecordError naming `what` when it is not an object. */
export function fieldsOf(value: unknown, at: string, what: string): RecordFields {
  if (!isRecord(value)) throw new RecordError(at, `${what} must be an object`);
  return new RecordFields(value, at);
}

/**
 * Unix times past this are milliseconds, not seconds: 1e11 seconds is the year 5138, while
 * 1e11 milliseconds is 1973, before any of these tools existed.
 */
const UNIX_MILLISECONDS_FROM = 1e11;

/**
 * A time as ISO 8601 (UTC): an ISO text (an offset kept, none read as UTC, microseconds
 * allowed as Python writes them) or Unix seconds (milliseconds past 1e11) as a number.
 * Undefined when absent; a RecordError at `path` (the field's JSON path) when it is not a time.
 */
export function isoTime(value: unknown, path = "$"): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let ms = Number.NaN;
  if (typeof value === "number" && Number.isFinite(value)) {
    ms = value > UNIX_MILLISECONDS_FROM ? value : value * 1000;
  } else if (typeof value === "string") {
    // Python's isoformat() writes microseconds; Date.parse wants at most milliseconds.
    const trimmed = value.trim().replace(/(\.\d{3})\d+/, "$1");
    const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) || !/T|\s\d/.test(trimmed)
      ? trimmed
      : `${trimmed}Z`;
    ms = Date.parse(zoned.replace(" ", "T"));
  }
  if (Number.isNaN(ms)) {
    const field = path.slice(path.lastIndexOf(".") + 1);
    throw new RecordError(path, `"${field}" is not a time: ${JSON.stringify(value)}`);
  }
  return new Date(ms).toISOString();
}
