/**
 * The store contract for evidence rows, run on every backend (tests/store/backends.ts): a
 * memory's rows are replaced whole, read in order for its current version only, offered for
 * embedding in the queue's order and counted for status and doctor.
 */
import assert from "node:assert/strict";
import type { NewEvidenceRow, NewMemory } from "../../src/store/mod.ts";
import { backendTest } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const AT = "2026-03-01T00:00:00.000Z";

function memory(content: string): NewMemory {
  return testMemory(content, { subject: "subject" });
}

function rowsOf(content: string): NewEvidenceRow[] {
  const sentences = content.split(". ");
  let offset = 0;
  const rows: NewEvidenceRow[] = [
    { kind: "subject", text: "subject", startOffset: null, endOffset: null, rowIndex: 0 },
  ];
  sentences.forEach((text, index) => {
    rows.push({
      kind: "sentence",
      text,
      startOffset: offset,
      endOffset: offset + text.length,
      rowIndex: index + 1,
    });
    offset += text.length + 2;
  });
  return rows;
}

backendTest(
  "a memory's rows are replaced whole and read for its current version",
  async (store) => {
    const content = "Der Zug fährt um 7. 東京行き 🚄";
    const id = await store.write(async (tx) => {
      const id = await tx.insertMemory(memory(content));
      await tx.replaceRows({ id, version: 1 }, rowsOf(content));
      return id;
    });
    const rows = await store.rowsOfMemory(id);
    assert.deepEqual(rows.map((row) => [row.rowIndex, row.kind, row.text]), [
      [0, "subject", "subject"],
      [1, "sentence", "Der Zug fährt um 7"],
      [2, "sentence", "東京行き 🚄"],
    ]);
    for (const row of rows.slice(1)) {
      assert.equal(content.slice(row.startOffset!, row.endOffset!), row.text);
      assert.deepEqual([row.memoryId, row.memoryVersion, row.embeddingSpace], [id, 1, null]);
    }
    // An update: version 2's rows replace version 1's; until then the memory has none current.
    await store.write((tx) => tx.changeMemory(id, { version: 2, updatedAt: AT }));
    assert.deepEqual(await store.rowsOfMemory(id), []);
    assert.deepEqual(await store.memoriesMissingRows(10), [id]);
    await store.write((tx) => tx.replaceRows({ id, version: 2 }, rowsOf("One. Two. Three")));
    assert.deepEqual((await store.rowsOfMemory(id)).map((row) => row.text), [
      "subject",
      "One",
      "Two",
      "Three",
    ]);
    assert.deepEqual(await store.memoriesMissingRows(10), []);
    await store.write((tx) => tx.replaceRows({ id, version: 2 }, []));
    assert.deepEqual(await store.rowsOfMemory(id), []);
  },
);

backendTest(
  "the rows of many memories are read at once, each as it is read alone",
  async (store) => {
    const texts = ["First one. First two", "Second one", "Third one. Third two. Third three"];
    const ids = await store.write(async (tx) => {
      const ids: number[] = [];
      for (const content of texts) {
        const id = await tx.insertMemory(memory(content));
        await tx.replaceRows({ id, version: 1 }, rowsOf(content));
        ids.push(id);
      }
      return ids;
    });
    // The second moves to version 2 without rows yet: it has none current.
    await store.write((tx) => tx.changeMemory(ids[1], { version: 2, updatedAt: AT }));
    const unknown = ids[2] + 100;
    const many = await store.rowsOfMemories([ids[2], ids[0], ids[1], unknown]);
    assert.deepEqual([...many.keys()].sort((a, b) => a - b), [...ids, unknown]);
    for (const id of [...ids, unknown]) {
      assert.deepEqual(
        many.get(id),
        await store.rowsOfMemory(id),
      );
    }
    assert.equal(many.get(ids[2])!.length, 4);
    assert.deepEqual(many.get(ids[1]), []);
    assert.deepEqual(await store.rowsOfMemories([]), new Map());
  },
);

backendTest("rows to embed come in queue order and are counted", async (store) => {
  const ids = await store.write(async (tx) => {
    const ids: number[] = [];
    for (const content of ["B one. B two", "A one", "deleted one"]) {
      const id = await tx.insertMemory(memory(content));
      await tx.replaceRows({ id, version: 1 }, rowsOf(content));
      ids.push(id);
    }
    await tx.setStatus(ids[2], { status: "deleted", supersededBy: null, now: AT });
    return ids;
  });
  const queue = await store.rowsToEmbed("space-1", 10);
  assert.deepEqual(queue.map((row) => [row.memoryId, row.text]), [
    [ids[0], "subject"],
    [ids[0], "B one"],
    [ids[0], "B two"],
    [ids[1], "subject"],
    [ids[1], "A one"],
  ]);
  assert.deepEqual((await store.rowsToEmbed("space-1", 2)).map((row) => row.text), [
    "subject",
    "B one",
  ]);
  assert.deepEqual(await store.countRowsToEmbed("space-1"), { rows: 7, pending: 7 });
  assert.deepEqual(await store.countRowsToEmbed(undefined), { rows: 7, pending: 7 });
  assert.deepEqual(await store.countEvidence("space-1"), {
    memories: 2,
    memoriesWithRows: 3,
    rows: 7,
    embedded: 0,
  });
  assert.equal((await store.countEvidence(undefined)).embedded, 0);
  assert.deepEqual(await store.memoriesMissingRows(10), []);
});

backendTest(
  "many new memories' rows at once are the rows of one memory after another",
  async (store) => {
    const contents = Array.from({ length: 30 }, (_, i) => `First ${i}. Second ${i}. Third`);
    const ids = await store.write(async (tx) => {
      const out = [];
      for (const content of contents) out.push(await tx.insertMemory(memory(content)));
      return out;
    });
    const list = ids.map((id, i) => ({ memory: { id, version: 1 }, rows: rowsOf(contents[i]) }));
    await store.write((tx) => tx.replaceRowsOfMany(list));
    const read = await store.rowsOfMemories(ids);
    const rowIds: number[] = [];
    ids.forEach((id, i) => {
      const rows = read.get(id) ?? [];
      assert.deepEqual(
        rows.map((row) => [row.rowIndex, row.kind, row.text, row.startOffset, row.endOffset]),
        rowsOf(contents[i]).map((row) => [
          row.rowIndex,
          row.kind,
          row.text,
          row.startOffset,
          row.endOffset,
        ]),
      );
      rowIds.push(...rows.map((row) => row.id));
    });
    assert.deepEqual(rowIds, [...rowIds].sort((a, b) => a - b), "rows numbered in list order");
    // Replaced again (rows held now): the same texts, no row left twice.
    await store.write((tx) => tx.replaceRowsOfMany(list));
    const again = await store.rowsOfMemories(ids);
    assert.deepEqual(
      ids.map((id) => again.get(id)?.map((row) => row.text)),
      ids.map((id) => read.get(id)?.map((row) => row.text)),
    );
  },
);
