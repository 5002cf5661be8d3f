import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeTempHome, runCli } from "../helpers/server.ts";

function activeSubjects(dbPath: string): string[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return (db.prepare(
      "SELECT subject FROM memories WHERE status IN ('active', 'pending') ORDER BY subject",
    ).all() as { subject: string }[]).map((row) => row.subject);
  } finally {
    db.close();
  }
}

Deno.test("import follows a symbolic link only inside the folder and only once: loops, parents, outside and dangling links end and are reported", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/notes`;
    Deno.mkdirSync(`${notes}/sub`, { recursive: true });
    Deno.mkdirSync(`${notes}/.hidden`, { recursive: true });
    Deno.mkdirSync(`${home.dir}/outside`, { recursive: true });
    Deno.writeTextFileSync(`${notes}/a.md`, "# Alpha\nThe first note.\n");
    Deno.writeTextFileSync(`${notes}/sub/b.md`, "# Beta\nThe second note.\n");
    Deno.writeTextFileSync(`${notes}/.hidden/h.md`, "# Hidden\nReached only through a link.\n");
    Deno.writeTextFileSync(`${home.dir}/outside/o.md`, "# Outside\nNot part of the folder.\n");
    // Two links to the folder itself: walking them blindly never ends.
    Deno.symlinkSync(".", `${notes}/loop1`);
    Deno.symlinkSync(".", `${notes}/loop2`);
    Deno.symlinkSync("..", `${notes}/sub/up`);
    Deno.symlinkSync("..", `${notes}/parent`);
    Deno.symlinkSync("../outside", `${notes}/out`);
    Deno.symlinkSync("nowhere", `${notes}/dangling.md`);
    Deno.symlinkSync("a.md", `${notes}/alias.md`);
    Deno.symlinkSync(".hidden", `${notes}/shown`);

    const run = await runCli(home, ["import", notes]);
    // Links that led to notes outside the folder or to nothing are skipped: exit 1.
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /imported 3 file\(s\): 3 new, .*; 3 skipped/);
    assert.deepEqual(activeSubjects(home.dbPath), ["Alpha", "Beta", "Hidden"]);
    const lines = run.stderr.trim().split("\n");
    const about = (name: string) => lines.filter((line) => line.includes(`/${name} -> `));
    assert.match(about("loop1")[0], /did not follow link .*: it leads to a folder already read/);
    assert.match(about("loop2")[0], /did not follow link .*: it leads to a folder already read/);
    assert.match(about("up")[0], /did not follow link .*sub\/up -> \.\.: .*already read/);
    assert.match(about("parent")[0], /skipped link .*: it leads out of the imported folder/);
    assert.match(about("out")[0], /skipped link .*: it leads out of the imported folder/);
    assert.match(about("dangling.md")[0], /skipped link .* -> nowhere: it points to nothing/);
    assert.match(about("alias.md")[0], /did not follow link .*: it leads to a file already read/);
    assert.deepEqual(about("shown"), [], "a link to an unread folder inside is followed quietly");
    assert.equal(lines.length, 7, run.stderr);

    // The same run again finds the same files and stores nothing new.
    const again = await runCli(home, ["import", notes]);
    assert.match(again.stdout, /imported 3 file\(s\): 0 new, 0 updated, 3 unchanged/);
  } finally {
    home.cleanup();
  }
});
