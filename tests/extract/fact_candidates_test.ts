/**
 * Fact candidates (src/extract/fact_candidates.ts): verbatim clauses of the text, notes split at
 * line breaks and bullets dropped, a sentence split at "while", talk about the talk and
 * questions left out, dates read relative to the given instant.
 */
import assert from "node:assert/strict";
import { extractFacts } from "../../src/extract/fact_candidates.ts";

const NOW = Date.UTC(2024, 2, 14, 12); // Thursday 14 March 2024

Deno.test("fact candidates: verbatim clauses, notes and bullets, dates, talk left out", () => {
  const text = [
    "- Deploy freeze for Kestrel started last week",
    "* Omar owns the Kestrel rollback runbook",
    "Lena was going to review the Falcon budget, while Omar planned to visit the Leeds office.",
    "Lena thanked Omar for his help. Can Omar send the numbers?",
  ].join("\n");
  const facts = extractFacts(text, { now: NOW, timeZone: "UTC" });
  const texts = facts.map((f) => f.text);
  for (const fact of facts) assert.equal(text.slice(fact.start, fact.end), fact.text);
  assert.ok(texts.includes("Deploy freeze for Kestrel started last week"), texts.join(" | "));
  assert.ok(texts.includes("Omar owns the Kestrel rollback runbook"), texts.join(" | "));
  assert.ok(texts.includes("Lena was going to review the Falcon budget"), texts.join(" | "));
  assert.ok(texts.includes("Omar planned to visit the Leeds office"), texts.join(" | "));
  assert.ok(!texts.some((t) => /thanked|numbers/.test(t)), texts.join(" | "));
  const freeze = facts.find((f) => f.text.startsWith("Deploy freeze"))!;
  assert.equal(freeze.eventTime, "2024-03-04T00:00:00.000Z", "last week began Monday 4 March");
  assert.deepEqual(freeze.tags, ["kestrel"]);
  const leeds = facts.find((f) => f.text.startsWith("Omar planned"))!;
  assert.equal(leeds.subject.split(" ")[0], "Omar");
  assert.deepEqual(extractFacts("Hi! Thanks. Ok?", { now: NOW, timeZone: "UTC" }), []);
  assert.equal(extractFacts(text, { now: NOW, timeZone: "UTC", limit: 1 }).length, 1);
});
