import assert from "node:assert/strict";
import { walkRecords } from "../../../src/portability/formats/record_walk.ts";
import { fieldsOf, RecordError } from "../../../src/portability/formats/records.ts";

const options = { path: "export.json", keys: ["memories"] };

function noteReader(record: unknown, at: string) {
  const text = fieldsOf(record, at, "a note").requiredText("text");
  return {
    unit: { path: "export.json", line: 1, items: [{ subject: text, content: text, line: 1, at }] },
    passedOver: 1,
  };
}

Deno.test("a bad record is reported at its path and the walk goes on", () => {
  const read = walkRecords(
    JSON.stringify({ memories: [{ text: "one" }, { text: 4 }, { text: "three" }] }),
    options,
    noteReader,
  );
  assert.deepEqual(read.units.map((unit) => unit.items[0].content), ["one", "three"]);
  assert.deepEqual(read.skipped.map((s) => [s.path, s.at]), [[
    "export.json",
    "$.memories[1].text",
  ]]);
  assert.equal(read.passedOver, 2, "a skipped record's passed-over parts do not count");
});

Deno.test("a file that is not JSON or holds no list is reported once at $", () => {
  for (const text of ["{not json", JSON.stringify({ other: [] })]) {
    const read = walkRecords(text, options, noteReader);
    assert.deepEqual(read.units, []);
    assert.deepEqual(read.skipped.map((s) => s.at), ["$"]);
  }
});

Deno.test("a reader reports a part with skip and keeps the record; other errors escape", () => {
  const read = walkRecords('[{"text": "kept"}]', options, (record, at, walk) => {
    walk.skip(new RecordError(`${at}.part`, "an unreadable part"));
    return noteReader(record, at);
  });
  assert.equal(read.units.length, 1);
  assert.deepEqual(read.skipped.map((s) => s.reason), ["an unreadable part"]);
  assert.throws(() =>
    walkRecords("[1]", options, () => {
      throw new TypeError("a bug, not a bad record");
    }), TypeError);
});
