import assert from "node:assert/strict";
import { OpenUnit } from "../../src/store/open_unit.ts";

Deno.test("a call from inside the open unit is admitted; one from elsewhere waits for its end", async () => {
  const gate = new OpenUnit();
  assert.equal(gate.admits(), true, "no unit open: everyone is admitted");
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const order: string[] = [];
  // Another request, chained here (outside the unit) and started from inside it.
  let start!: () => void;
  const other = new Promise<void>((resolve) => start = resolve).then(async () => {
    assert.equal(gate.admits(), false, "outside the open unit");
    await gate.turn();
    order.push("other");
  });
  const unit = gate.run(async () => {
    assert.equal(gate.inside(), true);
    start();
    await held;
    // Still inside after awaiting: the context follows the body.
    assert.equal(gate.admits(), true);
    order.push("unit");
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(order, [], "the other request waits while the unit is open");
  release();
  await Promise.all([unit, other]);
  assert.deepEqual(order, ["unit", "other"]);
  assert.equal(gate.inside(), false);
});

Deno.test("a unit that throws still ends, and the next caller is admitted", async () => {
  const gate = new OpenUnit();
  await assert.rejects(gate.run(() => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(gate.admits(), true);
  await gate.turn();
});
