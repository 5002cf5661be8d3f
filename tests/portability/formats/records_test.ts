/** Reading other tools' JSON: times as each tool writes them, and where a bad value is. */
import assert from "node:assert/strict";
import {
  isoTime,
  parseExport,
  RecordError,
  recordList,
} from "../../../src/portability/formats/records.ts";

Deno.test("isoTime reads Python's isoformat, naive times as UTC, Unix seconds and milliseconds", () => {
  assert.equal(isoTime("2025-03-01T09:15:22.123456-08:00"), "2025-03-01T17:15:22.123Z");
  assert.equal(isoTime("2025-05-02T08:00:00.000000"), "2025-05-02T08:00:00.000Z");
  assert.equal(isoTime("2025-05-02 08:00:00"), "2025-05-02T08:00:00.000Z");
  assert.equal(isoTime("2025-05-02"), "2025-05-02T00:00:00.000Z");
  assert.equal(isoTime(1714550400.25), "2024-05-01T08:00:00.250Z");
  assert.equal(isoTime(1714550400250), "2024-05-01T08:00:00.250Z");
  assert.equal(isoTime(null), undefined);
  assert.equal(isoTime(""), undefined);
});

Deno.test("a value that is no time is reported at its JSON path", () => {
  assert.throws(
    () => isoTime("last tuesday", "$.results[4].created_at"),
    (error: unknown) =>
      error instanceof RecordError && error.at === "$.results[4].created_at" &&
      /"created_at" is not a time: "last tuesday"/.test(error.message),
  );
  assert.throws(() => isoTime(true), RecordError);
});

Deno.test("an export that is not JSON, or holds no list of records, is named at $", () => {
  assert.throws(
    () => parseExport('{"results": [}'),
    (error: unknown) =>
      error instanceof RecordError && error.at === "$" && /^not JSON/.test(error.message),
  );
  assert.throws(
    () => recordList({ items: [] }, ["results", "memories"]),
    (error: unknown) =>
      error instanceof RecordError && /"results" or "memories"/.test(error.message),
  );
  assert.deepEqual(recordList({ memories: [1] }, ["results", "memories"]), {
    records: [1],
    at: "$.memories",
  });
  // A byte-order mark (Windows editors) does not make the file unreadable.
  assert.deepEqual(parseExport("\uFEFF[]"), []);
});
