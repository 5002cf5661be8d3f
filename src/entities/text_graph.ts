/**
 * What a memory's text alone says about the entity graph: its names (extract.ts), the aliases
 * it states and the relations its wording gives (relations.ts). A pure function of the text,
 * so it may be read anywhere (a bulk import reads it on a worker for the next batch while this
 * one is written) and handed to graph.ts, which uses it only for the very text it was read
 * from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTextGraph } from "./text_graph.ts";
 *
 * const reading = readTextGraph("db", "The Payments API depends on Postgres.");
 * assert.equal(reading.text, "db\nThe Payments API depends on Postgres.");
 * assert.deepEqual(reading.relations.map((r) => [r.from.words, r.type, r.to.words]), [
 *   ["Payments API", "depends_on", "Postgres"],
 * ]);
 * ```
 * @module
 */
import { extractMentions, type Mention } from "./extract.ts";
import { type ReadRelation, readRelations } from "./relations.ts";

/** A text's reading (plain data: it crosses to and from a worker as it is). */
export interface TextGraph {
  /** The text read: a memory's subject and content, joined as graph.ts joins them. */
  text: string;
  mentions: Mention[];
  aliases: [string, string][];
  relations: ReadRelation[];
  /** The plain phrases the relations needed as ends ("the cart service"). */
  phrases: Mention[];
}

/** The text graph.ts reads for a memory. */
export function graphText(subject: string, content: string): string {
  return `${subject}\n${content}`;
}

/** Reads the names, aliases and relations of a memory's subject and content. */
export function readTextGraph(subject: string, content: string): TextGraph {
  const text = graphText(subject, content);
  const { mentions, aliases } = extractMentions(text);
  const { relations, phrases } = readRelations(text, mentions);
  return { text, mentions, aliases, relations, phrases };
}
