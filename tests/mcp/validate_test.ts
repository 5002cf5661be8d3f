import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { MEMORY_ACTIONS } from "../../src/mcp/memory_schemas.ts";
import { validateData } from "../../src/mcp/validate.ts";

function failure(data: unknown, schema = MEMORY_ACTIONS.read.schema): MemaError {
  try {
    validateData(schema, data, { verb: "read" });
  } catch (error) {
    assert.ok(error instanceof MemaError);
    return error;
  }
  throw new Error("expected a validation error");
}

Deno.test("unknown fields warn, near-misses fail with did_you_mean", () => {
  const ok = validateData(MEMORY_ACTIONS.read.schema, { memory_id: 3, flavour: "x" }, {
    verb: "read",
  });
  assert.deepEqual(ok.value, { memory_id: 3 });
  assert.deepEqual(ok.warnings, ["unknown field ignored: flavour"]);
  const near = failure({ memory_id: 3, spn: { start: 0, end: 1 } });
  assert.equal(near.field, "spn");
  assert.equal(near.didYouMean, "span");
  const nested = failure({ memory_id: 3, span: { start: 0, edn: 1 } });
  assert.equal(nested.field, "span.edn");
  assert.equal(nested.didYouMean, "end");
});

Deno.test("wrong types and missing fields name the field", () => {
  assert.match(failure({}).reason, /memory_id is required/);
  const wrong = failure({ memory_id: "3" });
  assert.equal(wrong.field, "memory_id");
  assert.match(wrong.reason, /got string/);
  assert.equal(failure({ memory_id: 1.5 }).field, "memory_id");
  assert.equal(failure({ memory_id: 1, span: { start: -1, end: 2 } }).field, "span.start");
  assert.equal(failure("read 3").field, "data");
  assert.equal(failure([1]).field, "data");
});

Deno.test("identity fields in data are refused", () => {
  const error = failure({ memory_id: 1, agent_id: "someone-else" });
  assert.equal(error.code, "identity_mismatch");
});
