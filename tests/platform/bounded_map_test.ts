import assert from "node:assert/strict";
import { BoundedMap } from "../../src/platform/bounded_map.ts";

Deno.test("a bounded map drops its oldest entry for a new key past the bound, never for a known one", () => {
  const map = new BoundedMap<string, number>(2);
  map.set("a", 1).set("b", 2);
  map.set("a", 10); // a known key: nothing is dropped
  assert.deepEqual([...map.entries()], [["a", 10], ["b", 2]]);
  map.set("c", 3); // a new key: the oldest ("a") goes
  assert.deepEqual([...map.entries()], [["b", 2], ["c", 3]]);
  assert.equal(map.size, 2);
});
