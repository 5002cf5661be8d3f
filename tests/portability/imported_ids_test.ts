import assert from "node:assert/strict";
import { ImportedIds } from "../../src/portability/imported_ids.ts";

Deno.test("imported ids answer like a Map, in order, out of order and replaced", () => {
  const ids = new ImportedIds();
  const expected = new Map<number, number>();
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let next = 1;
  for (let k = 0; k < 5_000; k++) {
    // Mostly ascending, as an export is; now and then an older id, or one seen before.
    const oldId = random() < 0.9
      ? (next += 1 + Math.floor(random() * 3))
      : Math.floor(random() * next);
    const newId = k + 1;
    ids.set(oldId, newId);
    expected.set(oldId, newId);
  }
  for (let oldId = 0; oldId <= next + 5; oldId++) {
    assert.equal(ids.get(oldId), expected.get(oldId), `old id ${oldId}`);
  }
});
