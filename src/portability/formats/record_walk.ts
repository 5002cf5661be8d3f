/**
 * The walk every JSON export reader shares: parse the file, find its list of records, read each
 * one; a record that is not what the format says is reported with its JSON path and skipped,
 * and the walk goes on with the next (a file that is not JSON, or holds no list, is reported
 * once at `$`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { walkRecords } from "./record_walk.ts";
 * import { fieldsOf } from "./records.ts";
 *
 * const read = walkRecords('[{"memory": "Likes tea"}, 7]', { path: "m.json", keys: ["results"] }, (record, at) => {
 *   const memory = fieldsOf(record, at, "a memory").requiredText("memory");
 *   return { unit: { path: "m.json", line: 1, items: [{ subject: memory, content: memory, line: 1, at }] } };
 * });
 * assert.equal(read.units.length, 1);
 * assert.deepEqual(read.skipped.map((s) => s.at), ["$[1]"]);
 * ```
 * @module
 */
import type { ImportUnit } from "../import_types.ts";
import { parseExport, RecordError, recordList } from "./records.ts";
import type { FormatRead } from "./types.ts";

/** What a reader made of one record. */
export interface RecordReading {
  /** Its memories; none when nothing in it was worth one. */
  unit?: ImportUnit;
  /** Parts of it left out on purpose (messages of a conversation). */
  passedOver?: number;
}

/** What a reader may use beside the record. */
export interface RecordWalk {
  /** The whole parsed file (a header some formats keep beside the list). */
  parsed: unknown;
  /** Reports a part of the record and goes on with the rest of it. */
  skip(error: RecordError): void;
}

/**
 * Reads each record of the list under the first of `keys` (or the file's own array) with
 * `readRecord`; a {@linkcode RecordError} it throws skips that record only.
 */
export function walkRecords(
  text: string,
  options: { path: string; keys: readonly string[] },
  readRecord: (record: unknown, at: string, walk: RecordWalk) => RecordReading,
): FormatRead {
  const read: FormatRead = { units: [], skipped: [], passedOver: 0 };
  const skip = (error: RecordError) =>
    read.skipped.push({ path: options.path, line: 1, at: error.at, reason: error.message });
  let parsed: unknown;
  let list: { records: unknown[]; at: string };
  try {
    parsed = parseExport(text);
    list = recordList(parsed, options.keys);
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    skip(error);
    return read;
  }
  list.records.forEach((record, index) => {
    try {
      const reading = readRecord(record, `${list.at}[${index}]`, { parsed, skip });
      if (reading.unit) read.units.push(reading.unit);
      read.passedOver += reading.passedOver ?? 0;
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      skip(error);
    }
  });
  return read;
}
