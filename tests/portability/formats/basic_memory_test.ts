/** basic-memory notes: what is an observation, a relation or neither, and how a note maps. */
import assert from "node:assert/strict";
import {
  basicMemoryUnit,
  readNoteSemantics,
} from "../../../src/portability/formats/basic_memory.ts";
import { SourceError } from "../../../src/portability/import_types.ts";

const source = { path: "kb/x.md", ref: "notes/x.md", workspacePer: "project" as const };

Deno.test("observations: category, #tags and (context); task boxes and fenced lines are not", () => {
  const semantics = readNoteSemantics([
    "- [decision] Use REST over GraphQL #api #design (Q1 review)",
    "* [risk] Rate limiting needed",
    "- [ ] write the migration",
    "- [x] pick a database",
    "```",
    "- [example] inside a fence",
    "```",
    "Plain prose with a [[Linked Note]] inside.",
  ].join("\n"));
  assert.deepEqual(semantics.observations, [
    {
      category: "decision",
      text: "Use REST over GraphQL #api #design",
      tags: ["api", "design"],
      context: "Q1 review",
    },
    { category: "risk", text: "Rate limiting needed", tags: [] },
  ]);
  assert.deepEqual(semantics.relations, [{ type: "links_to", target: "Linked Note" }]);
});

Deno.test("relations: a type of several words, an optional context", () => {
  const semantics = readNoteSemantics(
    "- depends on [[Auth Service]] (login only)\n- implements [[API Spec]]\n",
  );
  assert.deepEqual(semantics.relations, [
    { type: "depends on", target: "Auth Service", context: "login only" },
    { type: "implements", target: "API Spec" },
  ]);
});

Deno.test("a note without frontmatter: its heading names it, its path is its source_ref", () => {
  const [item] = basicMemoryUnit("# Meeting 2025-01-10\n\n- [action] Send the draft\n", source)
    .items;
  assert.equal(item.subject, "Meeting 2025-01-10");
  assert.equal(item.sourceRef, "basic-memory:notes/x");
  assert.equal(item.eventTime, undefined);
  assert.deepEqual(item.metadata, {
    basic_memory: { type: "note", path: "notes/x.md", categories: ["action"] },
  });
});

Deno.test("more tags than a memory holds: the frontmatter's first, then the observations' up to 32", () => {
  const tags = Array.from({ length: 30 }, (_, i) => `t${i}`);
  const body = Array.from({ length: 5 }, (_, i) => `- [fact] fact ${i} #o${i}`).join("\n");
  const [item] = basicMemoryUnit(`---\ntags: [${tags.join(", ")}]\n---\n${body}\n`, source).items;
  assert.equal(item.tags!.length, 32);
  assert.deepEqual(item.tags!.slice(28), ["t28", "t29", "o0", "o1"]);
});

Deno.test("an empty note is reported at the line its body starts", () => {
  assert.throws(
    () => basicMemoryUnit("---\ntitle: Nothing\n---\n\n", source),
    (error: unknown) => error instanceof SourceError && error.line === 4,
  );
});
