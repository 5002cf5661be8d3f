/**
 * The text work of storing a new memory that depends on its words alone: the entity reading
 * (src/entities/text_graph.ts), the evidence rows (src/evidence/rows.ts) and the word index's
 * tokens of subject and content (src/text/index_terms.ts). A bulk writer may
 * compute it elsewhere, ahead of the write (an import's worker reads the next batch while this
 * one is written: src/portability/text_preparer.ts), and hand it to the write path, which uses
 * it only for the subject and content it was computed from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prepareText, preparedFor } from "./prepared_text.ts";
 *
 * const prepared = prepareText("deploys", "Alice runs deploys on Fridays.");
 * assert.deepEqual(prepared.rows.map((row) => row.kind), ["subject", "sentence"]);
 * assert.equal(preparedFor(prepared, "deploys", "Alice runs deploys on Fridays."), prepared);
 * assert.equal(preparedFor(prepared, "deploys", "Bob runs deploys."), undefined);
 * ```
 * @module
 */
import { readTextGraph, type TextGraph } from "../entities/text_graph.ts";
import { evidenceRowsFor } from "../evidence/rows.ts";
import type { FieldTokens, NewEvidenceRow } from "../store/mod.ts";
import { indexTokens } from "../text/index_terms.ts";

/** A memory text's prepared work (plain data: it crosses from a worker as it is). */
export interface PreparedText {
  subject: string;
  content: string;
  graph: TextGraph;
  rows: NewEvidenceRow[];
  tokens: FieldTokens;
}

/** Prepares the text work of a memory with this subject and content. */
export function prepareText(subject: string, content: string): PreparedText {
  return {
    subject,
    content,
    graph: readTextGraph(subject, content),
    rows: evidenceRowsFor(subject, content),
    tokens: { subject: indexTokens(subject), content: indexTokens(content) },
  };
}

/** `prepared` when it was computed from exactly this subject and content, else undefined. */
export function preparedFor(
  prepared: PreparedText | undefined,
  subject: string,
  content: string,
): PreparedText | undefined {
  return prepared !== undefined && prepared.subject === subject && prepared.content === content
    ? prepared
    : undefined;
}
