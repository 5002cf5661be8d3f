/**
 * Export to real files under real limits: names longer than a file system allows (255 bytes
 * per name; a CJK character is 3 bytes in UTF-8) and a disk that fills up mid-export (a small
 * tmpfs; mounting needs root, so that test is ignored elsewhere).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import { withHomeStore } from "../helpers/home_store.ts";
import { makeTempHome, runCli, type TempHome } from "../helpers/server.ts";
import { canMountTmpfs, mountTmpfs, unmount } from "../helpers/tmpfs.ts";

async function seed(
  home: TempHome,
  memories: { subject: string; content: string; workspace: string }[],
): Promise<void> {
  await withHomeStore(home, async (ctx) => {
    for (const memory of memories) await rememberMemory(ctx, memory);
  });
}

function facts(dbPath: string): { subject: string; workspace: string; content: string }[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare(
      "SELECT subject, workspace, content FROM memories WHERE status = 'active' ORDER BY content",
    ).all() as { subject: string; workspace: string; content: string }[];
  } finally {
    db.close();
  }
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) found.push(...filesUnder(`${dir}/${entry.name}`, path));
    else found.push(path);
  }
  return found.sort();
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

Deno.test("export fits names of 128-character CJK workspaces and long subjects in the file system's 255 bytes, distinct, and they import back with their real names", async () => {
  const source = makeTempHome();
  const target = makeTempHome();
  try {
    const longA = "项".repeat(128);
    const longB = "项".repeat(127) + "目";
    const longSubject = "😀".repeat(70);
    await seed(source, [
      { subject: "Short one", content: "A fact in the default workspace.", workspace: "default" },
      { subject: "项目 A", content: "A fact in the first long workspace.", workspace: longA },
      { subject: longSubject, content: "A fact with a long subject.", workspace: longA },
      { subject: "项目 B", content: "A fact in the second long workspace.", workspace: longB },
    ]);
    const out = `${source.dir}/out`;
    const run = await runCli(source, ["export", out]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /File name too long|\n\s+at /);
    assert.match(run.stdout, /exported 4 memories/);
    const files = filesUnder(out);
    assert.equal(files.length, 4, files.join("\n"));
    for (const file of files) {
      for (const name of file.split("/")) assert.ok(bytes(name) <= 255, `${name}: too long`);
    }
    const folders = new Set(files.map((file) => file.split("/")[0]));
    assert.equal(folders.size, 3, "two long workspaces sharing a prefix keep distinct folders");

    // The same library exports under the same names (hash suffixes are stable).
    const again = `${source.dir}/again`;
    assert.equal((await runCli(source, ["export", again])).code, 0);
    assert.deepEqual(filesUnder(again), files);

    const imported = await runCli(target, ["import", out]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(facts(target.dbPath), facts(source.dbPath));
  } finally {
    source.cleanup();
    target.cleanup();
  }
});

Deno.test({
  name:
    "an export that runs out of disk space says so plainly, without a stack trace, and leaves the directory as it was",
  ignore: !canMountTmpfs(),
  async fn() {
    const home = makeTempHome();
    const disk = `${home.dir}/disk`;
    Deno.mkdirSync(disk);
    mountTmpfs(disk, "256k");
    try {
      const chunk = "Forty kilobytes of notes about the deploy process. ".repeat(800);
      await seed(
        home,
        Array.from({ length: 12 }, (_, i) => ({
          subject: `Part ${i}`,
          content: `${i}: ${chunk}`,
          workspace: i % 2 === 0 ? "even" : "odd",
        })),
      );
      Deno.writeTextFileSync(`${disk}/keep.txt`, "already here\n");
      for (const format of ["md", "jsonl"]) {
        const run = await runCli(home, ["export", disk, "--format", format]);
        assert.equal(run.code, 1, format);
        assert.match(
          run.stderr,
          /mema: error: cannot write the export into .*No space left on device.*nothing was exported/,
        );
        assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
        assert.deepEqual(filesUnder(disk), ["keep.txt"], `${format}: nothing partial is left`);
      }
    } finally {
      await unmount(disk);
      home.cleanup();
    }
  },
});
