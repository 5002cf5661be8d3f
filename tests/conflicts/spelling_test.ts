/**
 * A value spelled two ways is one value (src/conflicts/spelling.ts): two versions of the
 * content-type README say "parameter name is always lower case" and "name of the parameter will
 * be lower-cased", and write-time detection opened a conflict between them. Spaces, hyphens
 * and regular inflection ("lower case", "lowercase", "lower-cased", "lower cased") do not make
 * a different value; a different word still does.
 */
import assert from "node:assert/strict";
import { groupValues, sameStatedValue } from "../../src/conflicts/events.ts";
import { assessPair } from "../../src/conflicts/rules.ts";
import { sameSpelling } from "../../src/conflicts/spelling.ts";
import { detectOnPair } from "../helpers/conflict_pair.ts";
import { openTestContext } from "../helpers/context.ts";

// content-type 2.1.0 and 1.0.5, the `parse` and `format` entries of their README.
const NEWER = "- `parameters`: An object of the parameters in the media type (parameter name " +
  "is always lower case). Example: `{charset: 'utf-8'}`.";
const OLDER = " - `parameters`: An object of the parameters in the media type (name of the\n" +
  "   parameter will be lower-cased). Example: `{charset: 'utf-8'}`";

const SPELLINGS = ["lower case", "lowercase", "lower-cased", "lower cased", "lowercased"];

Deno.test("the two content-type README lines open no conflict through the real check", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const report = await detectOnPair(t, NEWER, OLDER);
    assert.deepEqual(report.recorded, [], "one value spelled two ways is no conflict");
  } finally {
    t.cleanup();
  }
});

Deno.test("every spelling of one value against every other is a restatement", async () => {
  for (const a of SPELLINGS) {
    for (const b of SPELLINGS) {
      if (a === b) continue;
      const first = `The header name is always ${a}.`;
      const second = `The name of the header will be ${b}.`;
      assert.equal(assessPair({ text: first }, { text: second }).candidate, false, `${a} / ${b}`);
      assert.ok(sameSpelling(a, b), `${a} = ${b}`);
      assert.ok(sameStatedValue(a, b), `${a} = ${b} as a stated value`);
    }
  }
  // As conflict values, the spellings fall in one group.
  assert.equal(
    groupValues(SPELLINGS.map((value, i) => ({ memoryId: i + 1, value }))).length,
    1,
  );
  // And through the real check, one pair of them.
  const t = await openTestContext({ skipVec: true });
  try {
    const report = await detectOnPair(
      t,
      "Keys in the export are always lowercase.",
      "Keys in the export are always lower-cased.",
    );
    assert.deepEqual(report.recorded, []);
  } finally {
    t.cleanup();
  }
});

Deno.test("a different word is still a different value", async () => {
  const still: [string, string][] = [
    ["The header name is always lower case.", "The header name is always upper case."],
    ["The header name is always lowercase.", "The header name is always upper-cased."],
    ["Compression is enabled for the export.", "Compression is disabled for the export."],
    [
      "The export endpoint is served under /api/v1.",
      "The export endpoint is served under /api/v2.",
    ],
    ["The client speaks protocol v1.", "The client speaks protocol v2."],
  ];
  for (const [a, b] of still) {
    assert.equal(assessPair({ text: a }, { text: b }).candidate, true, `${a} / ${b}`);
  }
  assert.equal(sameSpelling("lower case", "upper case"), false);
  assert.equal(sameSpelling("enabled", "disabled"), false);
  assert.equal(sameSpelling("v1", "v2"), false);
  assert.equal(sameStatedValue("v1", "v2"), false);
  // Through the real check as well.
  const t = await openTestContext({ skipVec: true });
  try {
    const report = await detectOnPair(
      t,
      "Keys in the export are always lower case.",
      "Keys in the export are always upper case.",
    );
    assert.equal(report.recorded.length, 1);
  } finally {
    t.cleanup();
  }
});
