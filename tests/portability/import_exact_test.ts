/**
 * Import keeps numbers as written or says which one it cannot keep: a JSONL line or a note's
 * frontmatter whose number has more digits (or range) than a 64-bit float holds is skipped
 * with the field named, instead of being stored rounded.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeTempHome, runCli } from "../helpers/server.ts";

Deno.test("import refuses numbers it cannot keep exactly, naming file, line and field; exact ones come back as written", async () => {
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
    assert.match(
      run.stderr,
      /ticket\.md:\d+: metadata\.frontmatter\.ticket is the number 12345678901234567891/,
    );
    const db = new DatabaseSync(home.dbPath, { readOnly: true });
    try {
      const rows = db.prepare("SELECT subject, metadata FROM memories ORDER BY subject").all() as {
        subject: string;
        metadata: string;
      }[];
      assert.deepEqual(rows.map((row) => row.subject), ["98765432109876543210", "kept"]);
      assert.deepEqual(JSON.parse(rows[1].metadata), { n: 3, r: 0.25, big: 9007199254740991 });
      assert.deepEqual(JSON.parse(rows[0].metadata).frontmatter, { count: 3, ratio: 0.5 });
    } finally {
      db.close();
    }
  } finally {
    home.cleanup();
  }
});
