/**
 * A text's reading (src/entities/text_graph.ts) is what extraction and the relation reader give
 * for the subject and content joined as the graph joins them, and survives a structured clone
 * (the way it crosses from a worker) with its relations still naming its mentions' words.
 */
import assert from "node:assert/strict";
import { extractMentions } from "../../src/entities/extract.ts";
import { readRelations } from "../../src/entities/relations.ts";
import { graphText, readTextGraph } from "../../src/entities/text_graph.ts";

const CASES = [
  ["deps", "The Payments API depends on PostgreSQL 16. Bob reports to Carol Diaz."],
  ["团队", "张伟负责支付服务。"],
  ["", "Kubernetes (K8s), also known as kube, runs the cart service."],
];

Deno.test("a reading is extraction and relations over subject and content", () => {
  for (const [subject, content] of CASES) {
    const text = graphText(subject, content);
    const { mentions, aliases } = extractMentions(text);
    const { relations, phrases } = readRelations(text, mentions);
    const reading = readTextGraph(subject, content);
    assert.deepEqual(reading, { text, mentions, aliases, relations, phrases });
    const copy = structuredClone(reading);
    assert.deepEqual(copy, reading);
    for (const relation of copy.relations) {
      assert.ok([...copy.mentions, ...copy.phrases].some((m) => m.words === relation.from.words));
    }
  }
});
