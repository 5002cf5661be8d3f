/**
 * What gets a vector. Embedding every row (subject, each sentence) gave LoCoMo turns 4.3
 * vectors each: at 100k memories a nearest-neighbour scan over 428k vectors took 137 ms and
 * the vectors 1.7 KB per memory; one vector per chunk brought that to 32 ms and 410 bytes.
 * A chunk is the consecutive content rows of one memory up to {@linkcode EMBED_CHUNK_CHARS}:
 * a short fact is one vector, a long document one per passage. The vector is stored under
 * the chunk's first row; its other rows (and the subject row) are marked embedded without.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embeddingChunks } from "./chunks.ts";
 *
 * const row = { memoryId: 7, memoryVersion: 1, embeddingSpace: null, kind: "sentence" as const };
 * const chunks = embeddingChunks([
 *   { ...row, id: 11, rowIndex: 0, text: "Deploys run Fridays.", startOffset: 0, endOffset: 20 },
 *   { ...row, id: 12, rowIndex: 1, text: "Not in December.", startOffset: 21, endOffset: 37 },
 * ]);
 * assert.deepEqual(chunks.flatMap((chunk) => chunk.rowIds), [11, 12]);
 * ```
 * @module
 */
import type { EvidenceRowRecord } from "../store/mod.ts";
import { EMBED_CHUNK_CHARS } from "./constants.ts";

/** One text to embed and the rows it stands for. */
export interface EmbeddingChunk {
  /** The row that holds the vector: the chunk's first content row (the subject alone otherwise). */
  headRowId: number;
  text: string;
  rowIds: number[];
}

/** The chunks of one memory's rows (any order; they are sorted by row index). */
export function embeddingChunks(rows: readonly EvidenceRowRecord[]): EmbeddingChunk[] {
  const sorted = [...rows].sort((a, b) => a.rowIndex - b.rowIndex);
  const subject = sorted.find((row) => row.kind === "subject");
  const content = sorted.filter((row) => row.kind !== "subject");
  if (content.length === 0) {
    return subject ? [{ headRowId: subject.id, text: subject.text, rowIds: [subject.id] }] : [];
  }
  const chunks: EmbeddingChunk[] = [];
  let current: EmbeddingChunk | undefined;
  for (const row of content) {
    if (current && current.text.length + 1 + row.text.length <= EMBED_CHUNK_CHARS) {
      current.text += ` ${row.text}`;
      current.rowIds.push(row.id);
      continue;
    }
    current = { headRowId: row.id, text: row.text, rowIds: [row.id] };
    chunks.push(current);
  }
  // The subject gets no vector: the lexical channel scores it (BM25 weight 4), and in the
  // chunk's text it diluted the content (LoCoMo dev hybrid R@10 through MCP: 0.725 with the
  // subject leading the first chunk, 0.732 without).
  if (subject) chunks[0].rowIds.unshift(subject.id);
  return chunks;
}
