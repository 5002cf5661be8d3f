import assert from "node:assert/strict";
import { stemTerm } from "../../src/recall/stem.ts";

Deno.test("stems are prefixes every inflection shares", () => {
  const cases: [string, string][] = [
    ["painting", "paint"],
    ["painted", "paint"],
    ["running", "run"],
    ["stories", "stor"],
    ["boxes", "box"],
    ["camps", "camp"],
    ["quickly", "quick"],
  ];
  for (const [word, stem] of cases) {
    assert.equal(stemTerm(word), stem, word);
    assert.ok(word.startsWith(stem));
  }
});

Deno.test("short words, names and non-Latin terms are left alone", () => {
  for (const word of ["bus", "class", "news", "Ada", "部署", "v1.2", "is", "pass"]) {
    assert.equal(stemTerm(word), word, word);
  }
});
