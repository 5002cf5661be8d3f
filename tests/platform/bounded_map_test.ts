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

Deno.test("a bounded map keeps dropping its oldest entry through many evictions, deletions and a clear", () => {
  const map = new BoundedMap<number, number>(3);
  // The live list, oldest first, as a plain array does it.
  let expected: number[] = [];
  const set = (key: number) => {
    if (!map.has(key) && expected.length >= 3) expected.shift();
    if (!map.has(key)) expected.push(key);
    map.set(key, key);
  };
  for (let key = 0; key < 1_000; key++) {
    set(key);
    // Now and then an entry leaves by hand, or a known key is set again in place.
    if (key % 7 === 0) {
      map.delete(key - 1);
      expected = expected.filter((k) => k !== key - 1);
    }
    if (key % 11 === 0) set(expected[0]);
    assert.deepEqual([...map.keys()], expected);
  }
  map.clear();
  expected = [];
  for (let key = 0; key < 10; key++) set(key);
  assert.deepEqual([...map.keys()], [7, 8, 9]);
});
