/**
 * SQLite keeps an evidence row's text once: a sentence that is its slice of the content (and
 * a subject row that is the memory's subject) is stored empty and read back whole, by the
 * store and by a copy to another database; a row that is not (written for another text) keeps
 * its own. Offsets are UTF-16 units, so emoji and CJK cut where JavaScript cuts.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openStore } from "../../src/store/mod.ts";
import { UpgradeSource } from "../../src/store/upgrade_sql.ts";
import { testMemory } from "./memory_rows.ts";

const CONTENT = "Der Zug fährt um 7. 東京行き 🚄. Tickets: 🎫 42 €";

function sentences(content: string) {
  let offset = 0;
  return content.split(". ").map((text, index) => {
    const row = {
      kind: "sentence" as const,
      text,
      startOffset: offset,
      endOffset: offset + text.length,
      rowIndex: index + 1,
    };
    offset += text.length + 2;
    return row;
  });
}

Deno.test("rows cut from the content are stored once and read back whole", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-rows-" });
  try {
    const path = `${dir}/mema.sqlite3`;
    const store = await openStore(path, { cacheDir: `${dir}/cache`, skipVec: true });
    const rows = [
      { kind: "subject" as const, text: "trip", startOffset: null, endOffset: null, rowIndex: 0 },
      ...sentences(CONTENT),
    ];
    const [kept, other] = await store.write(async (tx) => {
      const kept = await tx.insertMemory(testMemory(CONTENT, { subject: "trip" }));
      await tx.replaceRows({ id: kept, version: 1 }, rows);
      // Rows written for a text the memory does not hold keep their own.
      const other = await tx.insertMemory(testMemory("Something else entirely."));
      await tx.replaceRows({ id: other, version: 1 }, sentences("Not. This one"));
      return [kept, other];
    });
    const expected = ["trip", "Der Zug fährt um 7", "東京行き 🚄", "Tickets: 🎫 42 €"];
    assert.deepEqual((await store.rowsOfMemory(kept)).map((row) => row.text), expected);
    assert.deepEqual((await store.rowsOfMemory(other)).map((row) => row.text), ["Not", "This one"]);
    store.close();

    const db = new DatabaseSync(path, { readOnly: true });
    const stored = db.prepare("SELECT memory_id, text FROM memory_rows ORDER BY id").all() as {
      memory_id: number;
      text: string;
    }[];
    db.close();
    assert.deepEqual(stored.filter((row) => row.memory_id === kept).map((row) => row.text), [
      "",
      "",
      "",
      "",
    ]);

    // A copy (to PostgreSQL, or another file) reads every row with its text.
    const source = new UpgradeSource(path);
    const copied = [...source.iterate("memory_rows", ["memory_id", "text"])];
    source.close();
    assert.deepEqual(copied.filter(([id]) => id === kept).map(([, text]) => text), expected);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
