/**
 * A memory text's prepared work (src/memory/prepared_text.ts) is its entity reading, its
 * evidence rows and its word-index tokens, and is taken only for the subject and content it was prepared from.
 */
import assert from "node:assert/strict";
import { readTextGraph } from "../../src/entities/text_graph.ts";
import { evidenceRowsFor } from "../../src/evidence/rows.ts";
import { preparedFor, prepareText } from "../../src/memory/prepared_text.ts";
import { indexTokens } from "../../src/text/index_terms.ts";

Deno.test("prepared work is the reading and the rows, for its own text only", () => {
  const [subject, content] = [
    "relay",
    "Quillon Relay forwards events. It retries for ten minutes.",
  ];
  const prepared = prepareText(subject, content);
  assert.deepEqual(prepared.graph, readTextGraph(subject, content));
  assert.deepEqual(prepared.rows, evidenceRowsFor(subject, content));
  assert.deepEqual(prepared.tokens, {
    subject: indexTokens(subject),
    content: indexTokens(content),
  });
  assert.equal(preparedFor(prepared, subject, content), prepared);
  assert.equal(preparedFor(prepared, "other", content), undefined);
  assert.equal(preparedFor(prepared, subject, `${content} `), undefined);
  assert.equal(preparedFor(undefined, subject, content), undefined);
});
