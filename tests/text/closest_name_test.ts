import assert from "node:assert/strict";
import { closestName } from "../../src/text/closest_name.ts";

Deno.test("near-misses find the real name, unrelated names find nothing", () => {
  const fields = ["memory_id", "span", "include_history", "limit", "tags_filter"];
  assert.equal(closestName("memoryId", fields), "memory_id");
  assert.equal(closestName("MEMORY-ID", fields), "memory_id");
  assert.equal(closestName("limt", fields), "limit");
  assert.equal(closestName("tags_filtr", fields), "tags_filter");
  assert.equal(closestName("include_hist", fields), "include_history");
  assert.equal(closestName("colour", fields), undefined);
  assert.equal(closestName("x", fields), undefined);
});
