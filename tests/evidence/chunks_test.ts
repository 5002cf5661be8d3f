import assert from "node:assert/strict";
import { embeddingChunks } from "../../src/evidence/chunks.ts";
import { EMBED_CHUNK_CHARS } from "../../src/evidence/constants.ts";
import type { EvidenceRowRecord } from "../../src/store/mod.ts";

function row(id: number, rowIndex: number, text: string, kind = "sentence"): EvidenceRowRecord {
  return {
    id,
    memoryId: 1,
    memoryVersion: 1,
    rowIndex,
    kind: kind as EvidenceRowRecord["kind"],
    text,
    startOffset: kind === "subject" ? null : 0,
    endOffset: kind === "subject" ? null : text.length,
    embeddingSpace: null,
  };
}

Deno.test("chunks: a short fact is one vector for all its rows, the subject included", () => {
  const chunks = embeddingChunks([
    row(3, 1, "It runs on Tuesdays."),
    row(1, -1, "deploy schedule", "subject"),
    row(2, 0, "Deploys go out after the 14:00 UTC standup."),
  ]);
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0].headRowId, 2, "the first content row holds the vector");
  assert.equal(chunks[0].text, "Deploys go out after the 14:00 UTC standup. It runs on Tuesdays.");
  assert.deepEqual(chunks[0].rowIds, [1, 2, 3]);
});

Deno.test("chunks: a long document is one vector per passage, every row in one chunk", () => {
  const sentence = "A sentence of about sixty characters for the chunking test.";
  const rows = Array.from({ length: 40 }, (_, i) => row(i + 1, i, sentence));
  const chunks = embeddingChunks(rows);
  assert.ok(chunks.length > 1);
  assert.ok(chunks.every((chunk) => chunk.text.length <= EMBED_CHUNK_CHARS));
  assert.deepEqual(chunks.flatMap((chunk) => chunk.rowIds), rows.map((r) => r.id));
});

Deno.test("chunks: a memory with only a subject row embeds the subject", () => {
  const chunks = embeddingChunks([row(7, -1, "empty note", "subject")]);
  assert.deepEqual(chunks, [{ headRowId: 7, text: "empty note", rowIds: [7] }]);
});
