/**
 * The labelled extraction set (tests/fixtures/entities/labelled.jsonl, written by hand for
 * issue 35): each sentence with the entities and relations a reader finds in it. Split in two by
 * a hash of the sentence id, never by hand: extraction is tuned on one half and reported on the
 * other (bench/entities.ts).
 * @module
 */
import { extractMentions } from "../../src/entities/extract.ts";
import { nameKey } from "../../src/entities/names.ts";
import { readRelations } from "../../src/entities/relations.ts";

/** One labelled sentence. */
export interface LabelledSentence {
  id: string;
  text: string;
  entities: string[];
  relations: [string, string, string][];
  half: "tune" | "held";
}

/** FNV-1a of the id: a sentence never changes half when others are added. */
function halfOf(id: string): "tune" | "held" {
  let hash = 0x811c9dc5;
  for (const char of id) hash = Math.imul(hash ^ char.codePointAt(0)!, 0x01000193) >>> 0;
  return hash % 2 === 0 ? "tune" : "held";
}

/** The set, each sentence with its half. */
export function loadLabelled(): LabelledSentence[] {
  const path = new URL("../fixtures/entities/labelled.jsonl", import.meta.url);
  return Deno.readTextFileSync(path).split("\n").filter((line) => line.trim() !== "").map(
    (line) => {
      const item = JSON.parse(line);
      return { ...item, half: halfOf(item.id) };
    },
  );
}

/** Precision and recall of one kind of answer. */
export interface Score {
  expected: number;
  found: number;
  correct: number;
  precision: number;
  recall: number;
}

/** A sentence's mistakes: what was missed and what was found wrongly. */
export interface Mistake {
  id: string;
  missed: string[];
  wrong: string[];
}

function score(expected: number, found: number, correct: number): Score {
  return {
    expected,
    found,
    correct,
    precision: found === 0 ? 1 : correct / found,
    recall: expected === 0 ? 1 : correct / expected,
  };
}

/** Scores extraction (entities by folded name, relations by ends and type) on `sentences`. */
export function scoreExtraction(sentences: readonly LabelledSentence[]): {
  entities: Score;
  relations: Score;
  mistakes: Mistake[];
} {
  const totals = { e: [0, 0, 0], r: [0, 0, 0] };
  const mistakes: Mistake[] = [];
  for (const sentence of sentences) {
    const { mentions } = extractMentions(sentence.text);
    const { relations, phrases } = readRelations(sentence.text, mentions);
    const found = new Set([...mentions, ...phrases].map((m) => nameKey(m.words)));
    const expected = new Set(sentence.entities.map(nameKey));
    const relationKey = (from: string, type: string, to: string) =>
      `${nameKey(from)} -${type}-> ${nameKey(to)}`;
    const foundRelations = new Set(
      relations.map((r) => relationKey(r.from.words, r.type, r.to.words)),
    );
    const expectedRelations = new Set(
      sentence.relations.map(([f, t, to]) => relationKey(f, t, to)),
    );
    const hits = [...found].filter((key) => expected.has(key)).length;
    const relationHits = [...foundRelations].filter((key) => expectedRelations.has(key)).length;
    totals.e[0] += expected.size;
    totals.e[1] += found.size;
    totals.e[2] += hits;
    totals.r[0] += expectedRelations.size;
    totals.r[1] += foundRelations.size;
    totals.r[2] += relationHits;
    const missed = [...expected, ...expectedRelations].filter((key) =>
      !found.has(key) && !foundRelations.has(key)
    );
    const wrong = [...found, ...foundRelations].filter((key) =>
      !expected.has(key) && !expectedRelations.has(key)
    );
    if (missed.length + wrong.length > 0) mistakes.push({ id: sentence.id, missed, wrong });
  }
  return {
    entities: score(totals.e[0], totals.e[1], totals.e[2]),
    relations: score(totals.r[0], totals.r[1], totals.r[2]),
    mistakes,
  };
}
