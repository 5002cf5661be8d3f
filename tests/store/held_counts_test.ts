/**
 * The word index's document counts for the newest memories wait in `memories_terms_pending`
 * until {@link PENDING_FOLD_AT} of them are folded into `memories_terms_df`. Whatever waits,
 * every count a reader gets must equal what the index itself holds: the oracle here counts
 * each token's documents with an FTS5 MATCH, independently of both tables.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { purgeMemories } from "../../src/govern/purge.ts";
import { rememberInTransaction, rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openStore, type Store } from "../../src/store/mod.ts";
import { PENDING_FOLD_AT } from "../../src/store/terms_sql.ts";
import { indexTokens } from "../../src/text/index_terms.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";
import { indexCounts } from "../helpers/index_counts.ts";

const WORDS = [
  "harbour",
  "ferry",
  "glaze",
  "kiln",
  "orchard",
  "violin",
  "meadow",
  "lantern",
  "copper",
  "thistle",
  "saddle",
  "quarry",
];

/** A sentence of three library words, different for each `n`. */
function sentence(n: number): string {
  const pick = (k: number) => WORDS[(n * (k + 3) + k * k) % WORDS.length];
  return `The ${pick(0)} near the ${pick(1)} holds a ${pick(2)} number ${n}`;
}

function waiting(dbPath: string): { rows: number; folded: Set<string> } {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const rows = db.prepare("SELECT count(*) AS n FROM memories_terms_pending").get() as {
      n: number;
    };
    const folded = new Set(
      db.prepare("SELECT term FROM memories_terms_df WHERE docs > 0").all().map((row) =>
        String(row.term)
      ),
    );
    return { rows: Number(rows.n), folded };
  } finally {
    db.close();
  }
}

/** Every token's count as `store` answers it equals the index's own count. */
async function assertCountsExact(store: Store, dbPath: string, step: string): Promise<void> {
  const expected = indexCounts(dbPath);
  const tokens = [...expected.keys()];
  const answered = await store.read(async () => await store.tokenFrequencies(tokens));
  for (const token of tokens) {
    assert.equal(answered.get(token), expected.get(token), `${step}: "${token}"`);
  }
  // A token no memory holds is 0, not absent.
  assert.equal(
    (await store.read(async () => await store.tokenFrequencies(["unheardof"]))).get("unheardof"),
    0,
  );
}

async function remember(t: TestContext, content: string): Promise<number> {
  const { memoryId } = await rememberMemory(t.ctx, {
    subject: "notes",
    content,
    workspace: "village",
  });
  return memoryId;
}

Deno.test("a new memory's word counts wait beside the vocabulary, count at once, and fold in at the bound", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const [rare] = indexTokens("zanzibarian");
    const ids: number[] = [];
    for (let n = 0; n < PENDING_FOLD_AT - 2; n++) ids.push(await remember(t, sentence(n)));
    await assertCountsExact(t.store, t.dbPath, "before the rare word");
    // The cache holds this stamp's waiting counts now; the next remember carries them.
    const rareId = await remember(t, "Tea with the zanzibarian merchant by the harbour");
    const held = waiting(t.dbPath);
    assert.equal(held.rows, PENDING_FOLD_AT - 1, "no count folded in yet");
    assert.equal(held.folded.has(rare), false, "the rare word is only in the waiting rows");
    await assertCountsExact(t.store, t.dbPath, "counted while waiting");
    // A misspelt query word finds the library's words among the waiting ones too.
    const near = await t.store.read(async () =>
      await t.store.vocabularyByPrefix("za", { min: 8, max: 14 }, 5000)
    );
    assert.equal(near.get(rare), 1);

    // A waiting memory's new content, and a purged one: their waiting rows follow them.
    await updateMemory(t.ctx, {
      memoryId: ids[3],
      edit: { kind: "new_content", content: "The quarry lantern glows copper" },
      reason: "reworded",
    });
    await assertCountsExact(t.store, t.dbPath, "after an update of a waiting memory");
    await purgeMemories(t.ctx, { memoryId: ids[5], reason: "test purge", authorized: true });
    await assertCountsExact(t.store, t.dbPath, "after a purge of a waiting memory");
    const before = waiting(t.dbPath).rows;
    assert.equal(before, PENDING_FOLD_AT - 2, "the purged memory's waiting row left with it");

    // Two more reach the bound: that write folds every waiting count into the table.
    await remember(t, "Fresh thistle honey from the meadow");
    assert.equal(waiting(t.dbPath).rows, PENDING_FOLD_AT - 1);
    await remember(t, "An orchard saddle hangs in the quarry");
    const after = waiting(t.dbPath);
    assert.equal(after.rows, 0, "folded at the bound");
    assert.equal(after.folded.has(rare), true);
    await assertCountsExact(t.store, t.dbPath, "after the fold");

    // A folded memory changed or purged takes its counts out of the table.
    await updateMemory(t.ctx, {
      memoryId: rareId,
      edit: { kind: "new_content", content: "Tea with the merchant by the harbour" },
      reason: "fewer words",
    });
    await assertCountsExact(t.store, t.dbPath, "after an update of a folded memory");
    assert.equal(
      (await t.store.read(async () => await t.store.tokenFrequencies([rare]))).get(rare),
      0,
    );
    await purgeMemories(t.ctx, { memoryId: ids[7], reason: "test purge", authorized: true });
    await assertCountsExact(t.store, t.dbPath, "after a purge of a folded memory");

    // Another process reading the same file gets the same counts, waiting ones included.
    await remember(t, "A violin case on the ferry");
    const other = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache`, skipVec: true });
    try {
      // The new memory, and the updated one: a changed memory's new counts wait too.
      assert.equal(waiting(t.dbPath).rows, 2);
      await assertCountsExact(other, t.dbPath, "another process");
    } finally {
      other.close();
    }
  } finally {
    t.cleanup();
  }
});

Deno.test("a write rolled back leaves no waiting count behind", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await remember(t, "The ferry leaves the harbour at nine");
    await assertCountsExact(t.store, t.dbPath, "warm");
    await assert.rejects(async () =>
      await t.store.write(async () => {
        await rememberInTransaction(t.ctx, {
          subject: "notes",
          content: "A zanzibarian lantern",
          workspace: "village",
        });
        throw new Error("changed my mind");
      })
    );
    assert.equal(waiting(t.dbPath).rows, 1);
    await assertCountsExact(t.store, t.dbPath, "after the rollback");
    const [rare] = indexTokens("zanzibarian");
    assert.equal(
      (await t.store.read(async () => await t.store.tokenFrequencies([rare]))).get(rare),
      0,
    );
  } finally {
    t.cleanup();
  }
});
