/**
 * Notes of one import that would share a `source_ref` (two README.md named on the command line,
 * two folders that both hold notes.md) stay separate memories: the shared name would have made
 * the second a new version of the first, taking the first out of recall.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeTempHome, runCli } from "../helpers/server.ts";

function activeRefs(dbPath: string): string[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const rows = db.prepare(
      "SELECT source_ref FROM memories WHERE status = 'active' ORDER BY source_ref",
    ).all() as { source_ref: string }[];
    return rows.map((row) => row.source_ref);
  } finally {
    db.close();
  }
}

Deno.test("import keeps notes with the same name apart, from files or folders, and stays idempotent", async () => {
  const home = makeTempHome();
  try {
    const root = `${home.dir}/docs`;
    for (const name of ["qs", "inherits"]) {
      Deno.mkdirSync(`${root}/${name}/guide`, { recursive: true });
      Deno.writeTextFileSync(`${root}/${name}/README.md`, `# ${name}\nThe ${name} package.\n`);
      Deno.writeTextFileSync(`${root}/${name}/guide/notes.md`, `Notes on ${name}.\n`);
      Deno.writeTextFileSync(`${root}/${name}/guide/only-${name}.md`, `Only in ${name}.\n`);
    }
    const files = await runCli(home, [
      "import",
      `${root}/qs/README.md`,
      `${root}/inherits/README.md`,
    ]);
    assert.equal(files.code, 0, files.stderr);
    assert.match(files.stdout, /2 new, 0 updated/);
    assert.deepEqual(activeRefs(home.dbPath), ["inherits/README.md", "qs/README.md"]);

    const folders = await runCli(home, ["import", `${root}/qs/guide`, `${root}/inherits/guide`]);
    assert.equal(folders.code, 0, folders.stderr);
    assert.match(folders.stdout, /4 new, 0 updated/);
    assert.deepEqual(activeRefs(home.dbPath), [
      "inherits/README.md",
      "inherits/guide/notes.md",
      "only-inherits.md",
      "only-qs.md",
      "qs/README.md",
      "qs/guide/notes.md",
    ]);

    const again = await runCli(home, ["import", `${root}/qs/guide`, `${root}/inherits/guide`]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /0 new, 0 updated, 4 unchanged/);
  } finally {
    home.cleanup();
  }
});
