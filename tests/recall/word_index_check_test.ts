/**
 * The word index's check, run by a serving process after its first answer: it counts the
 * library a slice of ids at a time and rebuilds an index that lost rows, so the memories a
 * broken index hid are found again.
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { checkWordIndex } from "../../src/recall/word_index_check.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

const CITIES = ["Lisbon", "Osaka", "Quito", "Tromsø", "Accra", "Hobart", "Tbilisi"];

async function library(t: TestContext): Promise<number[]> {
  const ids: number[] = [];
  for (let k = 0; k < 20; k++) {
    const city = CITIES[k % CITIES.length];
    const { memoryId } = await rememberMemory(t.ctx, {
      subject: `trip ${k}`,
      content: `Trip number ${k} went to ${city} and stayed ${k + 2} nights.`,
      workspace: "travel",
    });
    ids.push(memoryId);
  }
  return ids;
}

/** Drops index rows behind the store's back, as a hand edit or a torn copy would. */
function dropIndexRows(t: TestContext, ids: number[]): void {
  const db = new DatabaseSync(t.dbPath);
  try {
    for (const id of ids) db.prepare("DELETE FROM memories_terms WHERE rowid = ?").run(id);
  } finally {
    db.close();
  }
}

async function foundIds(t: TestContext, query: string): Promise<number[]> {
  const page = await findMemories(t.ctx, { query, workspace: "travel", limit: 50 });
  return page.items.map((item) => item.memory.id);
}

Deno.test("a sound word index is counted slice by slice and left alone", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await library(t);
    let turns = 0;
    const outcome = await checkWordIndex(t.store, {
      between: () => Promise.resolve(void turns++),
      span: 6,
    });
    assert.deepEqual(outcome, { checked: 20, rebuilt: false, stopped: false });
    // 20 ids in slices of 6: four slices, a turn for requests between each two.
    assert.equal(turns, 3);
  } finally {
    t.cleanup();
  }
});

Deno.test("a word index that lost rows is rebuilt, and what it hid is found again", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids = await library(t);
    const osaka = [ids[1], ids[8], ids[15]];
    dropIndexRows(t, [ids[8], ids[15]]);
    assert.deepEqual(await foundIds(t, "Osaka"), [ids[1]]);
    const outcome = await checkWordIndex(t.store, { between: () => Promise.resolve(), span: 6 });
    assert.equal(outcome.rebuilt, true);
    assert.deepEqual((await foundIds(t, "Osaka")).sort((a, b) => a - b), osaka);
    // Rebuilt whole: a second check finds nothing to do.
    const again = await checkWordIndex(t.store, { between: () => Promise.resolve(), span: 6 });
    assert.deepEqual(again, { checked: 20, rebuilt: false, stopped: false });
  } finally {
    t.cleanup();
  }
});

Deno.test("a stopped check ends between slices and changes nothing", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids = await library(t);
    dropIndexRows(t, [ids[19]]);
    let stopping = false;
    const outcome = await checkWordIndex(t.store, {
      between: () => Promise.resolve(void (stopping = true)),
      stopped: () => stopping,
      span: 6,
    });
    assert.deepEqual(outcome, { checked: 6, rebuilt: false, stopped: true });
    assert.ok(!(await foundIds(t, "Hobart")).includes(ids[19]));
  } finally {
    t.cleanup();
  }
});
