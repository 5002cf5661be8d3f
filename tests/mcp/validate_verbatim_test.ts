import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { MEMORY_ACTIONS } from "../../src/mcp/memory_schemas.ts";
import { validateData } from "../../src/mcp/validate.ts";
import { METADATA_MAX_DEPTH } from "../../src/memory/limits.ts";
import {
  checkContentSize,
  checkVerbatimText,
  checkVerbatimValue,
  normalizeTags,
} from "../../src/memory/normalize.ts";

function refusal(run: () => unknown): MemaError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof MemaError, String(error));
    assert.equal(error.code, "invalid_input");
    return error;
  }
  throw new Error("expected invalid_input");
}

function nested(levels: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

const remember = MEMORY_ACTIONS.remember.schema;
const update = MEMORY_ACTIONS.update.schema;
const base = { content: "c", subject: "s", workspace: "w" };

Deno.test("the central walk names the field path and UTF-16 offset of NUL and lone surrogates", () => {
  const cases: { schema: typeof remember | typeof update; data: unknown; field: string }[] = [
    { schema: remember, data: { ...base, content: "ab\u0000" }, field: "content" },
    { schema: remember, data: { ...base, subject: "ab\ud800" }, field: "subject" },
    { schema: remember, data: { ...base, tags: ["x", "ab\udc00"] }, field: "tags.1" },
    {
      schema: remember,
      data: { ...base, metadata: { k: ["x", "ab\u0000"] } },
      field: "metadata.k.1",
    },
    { schema: remember, data: { ...base, metadata: { "ab\u0000": 1 } }, field: "metadata" },
    {
      schema: update,
      data: { memory_id: 1, patches: [{ old_text: "ab\ud83d", new_text: "y" }] },
      field: "patches.0.old_text",
    },
  ];
  for (const { schema, data, field } of cases) {
    const error = refusal(() => validateData(schema, data, { verb: "test" }));
    assert.equal(error.field, field, error.reason);
    assert.equal(error.details?.offset, 2, error.reason);
    assert.match(error.reason, /offset 2\b/);
  }
  const key = refusal(() =>
    validateData(remember, { ...base, metadata: { "ab\u0000": 1 } }, { verb: "remember" })
  );
  assert.match(key.reason, /a key in metadata/);
});

Deno.test("well-formed text passes; ignored unknown fields are not walked", () => {
  const ok = validateData(remember, {
    ...base,
    content: "pair \u{1F600} bell \u0007 tab \t",
    metadata: { "ключ": ["漢字", { deep: true }] },
    mood: "a\u0000b",
  }, { verb: "remember" });
  assert.deepEqual(ok.warnings, ["unknown field ignored: mood"]);
});

Deno.test("the first bad string in document order is the one reported", () => {
  const error = refusal(() =>
    checkVerbatimValue({ a: "x\ud800", b: { "y\u0000": 1 } }, "metadata")
  );
  assert.equal(error.field, "metadata.a");
  const first = refusal(() => checkVerbatimText("a\ud800\u0000", "content"));
  assert.equal(first.details?.offset, 1);
  assert.equal(first.details?.code_unit, "U+D800");
  const trailing = refusal(() => checkVerbatimText("ok \ud83d\ude00 then \ud83d", "content"));
  assert.equal(trailing.details?.offset, 11);
});

Deno.test("nesting deeper than the limit is invalid_input on the top-level field", () => {
  checkVerbatimValue(nested(METADATA_MAX_DEPTH), "metadata");
  for (const levels of [METADATA_MAX_DEPTH + 1, 1_000, 1_000_000]) {
    const error = refusal(() => checkVerbatimValue(nested(levels), "metadata"));
    assert.equal(error.field, "metadata");
    assert.equal(error.details?.max_depth, METADATA_MAX_DEPTH);
  }
  const viaSchema = refusal(() =>
    validateData(remember, { ...base, metadata: nested(40) }, { verb: "remember" })
  );
  assert.equal(viaSchema.field, "metadata");
});

Deno.test("service-level checks refuse the same text without the MCP layer", () => {
  assert.equal(refusal(() => checkContentSize("a\u0000", "new_content")).field, "new_content");
  assert.equal(refusal(() => normalizeTags(["ok", "b\ud800"], "tags")).field, "tags.1");
});
