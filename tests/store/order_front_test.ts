/**
 * The word lookups put only their first pages in order (src/store/terms_sql.ts `orderFront`):
 * whatever the front's size, its entries are the best ones in exactly the order a full sort
 * gives (weight, then newest first among ties), and nothing is lost or repeated.
 */
import assert from "node:assert/strict";
import { orderFront } from "../../src/store/terms_sql.ts";

Deno.test("ordering the front of a lookup's hits gives the full sort's first entries", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let trial = 0; trial < 2_000; trial++) {
    const count = Math.floor(random() * 400);
    // Few distinct weights: ties are the common case (sums of a few words' weights).
    const weights = Float64Array.from({ length: count }, () => Math.floor(random() * 6) * 0.5);
    const ids = Float64Array.from({ length: count }, (_, i) => (i * 7_919) % 10_007);
    const better = (a: number, b: number) => weights[b] - weights[a] || ids[b] - ids[a];
    const full = Uint32Array.from({ length: count }, (_, i) => i).sort(better);
    const order = Uint32Array.from({ length: count }, (_, i) => i);
    const front = Math.floor(random() * (count + 1));
    const ordered = orderFront(order, front, better);
    assert.ok(ordered >= front);
    assert.deepEqual([...order.subarray(0, ordered)], [...full.subarray(0, ordered)]);
    assert.deepEqual([...order].sort((a, b) => a - b), [...full].sort((a, b) => a - b));
  }
});
