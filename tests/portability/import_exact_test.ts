/**
 * Import keeps numbers as written or says which one it cannot keep: a JSONL line whose number
 * has more digits (or range) than a 64-bit float holds is skipped with the field named, instead
 * of being stored rounded; a note's frontmatter is text, so such a value keeps the note's
 * characters (a string) and the note is imported.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeTempHome, runCli } from "../helpers/server.ts";

Deno.test("import refuses JSONL numbers it cannot keep exactly, naming file, line and field; frontmatter keeps such a value as its text; exact ones come back as written", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/notes`;
    Deno.mkdirSync(notes);
    Deno.writeTextFileSync(
      `${notes}/facts.jsonl`,
      [
        '{"type":"memory","subject":"kept","content":"Exact numbers.","workspace":"w","metadata":{"n":3,"r":0.25,"big":9007199254740991}}',
        '{"type":"memory","subject":"rounded","content":"A big id.","workspace":"w","metadata":{"ticket":12345678901234567890}}',
        '{"type":"memory","subject":"overflow","content":"Too large.","workspace":"w","metadata":{"x":[1e400]}}',
      ].join("\n"),
    );
    Deno.writeTextFileSync(
      `${notes}/ticket.md`,
      "---\nticket: 12345678901234567891\n---\n# Ticket\nThe ticket number is long.\n",
    );
    Deno.writeTextFileSync(
      `${notes}/plain.md`,
      "---\ncount: +3\nratio: .5\ntitle: 98765432109876543210\n---\nA note titled by a long number.\n",
    );
    const run = await runCli(home, ["import", notes]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /facts\.jsonl:2: metadata\.ticket is the number 12345678901234567890, which has more digits/,
    );
    assert.match(run.stderr, /facts\.jsonl:3: metadata\.x\.0 is the number 1e400/);
    assert.doesNotMatch(run.stderr, /ticket\.md/);
    const db = new DatabaseSync(home.dbPath, { readOnly: true });
    try {
      const rows = db.prepare("SELECT subject, metadata FROM memories ORDER BY subject").all() as {
        subject: string;
        metadata: string;
      }[];
      assert.deepEqual(rows.map((row) => row.subject), ["98765432109876543210", "Ticket", "kept"]);
      assert.deepEqual(JSON.parse(rows[2].metadata), { n: 3, r: 0.25, big: 9007199254740991 });
      assert.deepEqual(JSON.parse(rows[0].metadata).frontmatter, { count: 3, ratio: 0.5 });
      // Rounded, it would read 12345678901234567000: the note's digits are kept as its text.
      assert.deepEqual(JSON.parse(rows[1].metadata).frontmatter, {
        ticket: "12345678901234567891",
      });
    } finally {
      db.close();
    }
  } finally {
    home.cleanup();
  }
});
