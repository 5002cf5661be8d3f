/**
 * Importing real npm READMEs (node_modules, written by their authors) reads well: each
 * subject is the package's title, never "README", with no badge or HTML markup, within the
 * subject limit, and the import exits 0. Checked through `mema import` and the real server.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { IMPORT_SUBJECT_MAX_CHARS } from "../../src/portability/constants.ts";
import { hardReadmes, type Readme, writeCorpus } from "../helpers/readme_corpus.ts";
import { runCli, type ServerSession, startServer } from "../helpers/server.ts";

type Row = { memory_id: number; subject: string; source_ref?: string; content_chars?: number };

async function allRows(server: ServerSession, workspace: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let offset = 0;; offset += 100) {
    const page = await server.call("find", { workspace, limit: 100, offset });
    assert.ok(page.ok, JSON.stringify(page.data));
    rows.push(...page.data.results);
    if (!page.data.has_more) return rows;
  }
}

/**
 * A README whose first heading runs on for 600 characters: real prose (the first lines of
 * another package's README) written as one `#` line, as some authors do.
 */
function runOnReadme(source: Readme): Readme {
  const prose = source.text.replace(/[#<>[\]!()`*_|=-]/g, " ").replace(/\s+/g, " ").trim();
  const heading = prose.slice(0, 600);
  assert.ok(heading.length === 600, "the source README is long enough");
  return {
    name: "run-on",
    ref: "node_modules/run-on/README.md",
    text: `# ${heading}\n\nThe rest of the README.\n`,
    style: "plain",
  };
}

onBothBackends(
  "import of ~40 real npm READMEs: readable subjects, none skipped, exit 0",
  async (home) => {
    const corpus = `${home.dir}/npm-docs`;
    const readmes = hardReadmes(40);
    assert.ok(readmes.length >= 30, `node_modules holds ${readmes.length} READMEs`);
    for (const style of ["html", "setext", "badges"]) {
      assert.ok(readmes.some((readme) => readme.style === style), `the corpus has ${style} titles`);
    }
    const runOn = runOnReadme(readmes.find((readme) => readme.text.length > 5_000)!);
    writeCorpus(corpus, [...readmes, runOn]);
    const imported = await runCli(home, ["import", corpus, "--workspace", "npm-docs"]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.doesNotMatch(imported.stderr, /skipped/);
    assert.match(imported.stdout, /0 skipped/);

    const server = await startServer(home);
    try {
      const rows = await allRows(server, "npm-docs");
      const byRef = new Map(rows.map((row) => [row.source_ref, row]));
      for (const readme of [...readmes, runOn]) {
        assert.ok(byRef.has(readme.ref), `${readme.ref} was imported and its row names it`);
      }
      for (const row of rows) {
        const where = `${row.source_ref}: ${JSON.stringify(row.subject)}`;
        assert.doesNotMatch(row.subject, /^(readme|index|notes)$/i, where);
        assert.ok(!row.subject.includes("[!["), where);
        assert.ok(!row.subject.includes("<"), where);
        assert.ok(!row.subject.includes("]["), where);
        assert.ok(row.subject.length <= IMPORT_SUBJECT_MAX_CHARS, where);
      }
      const subjectOf = (name: string) => byRef.get(`node_modules/${name}/README.md`)?.subject;
      // An HTML title (a banner image, then `<h1>` further down, or `# qs <sup>badge</sup>`).
      if (subjectOf("qs") !== undefined) assert.equal(subjectOf("qs"), "qs");
      if (subjectOf("protobufjs") !== undefined) {
        assert.equal(
          subjectOf("protobufjs"),
          "protobuf.js",
        );
      }
      if (subjectOf("express-rate-limit") !== undefined) {
        assert.equal(subjectOf("express-rate-limit"), "express-rate-limit");
      }
      // A setext title, and a README whose first heading does not name its package.
      if (subjectOf("@protobufjs/pool") !== undefined) {
        assert.equal(subjectOf("@protobufjs/pool"), "@protobufjs/pool");
      }
      for (const readme of readmes.filter((r) => r.style === "setext")) {
        assert.notEqual(subjectOf(readme.name), "README", readme.ref);
      }
      // The run-on heading is cut at a word, marked, and the note is stored whole.
      const long = byRef.get(runOn.ref)!;
      assert.ok(long.subject.startsWith("run-on — "), "the heading does not name its package");
      assert.ok(long.subject.endsWith("…"), long.subject);
      const kept = long.subject.slice("run-on — ".length, -1);
      assert.ok(runOn.text.includes(`# ${kept} `), `cut at a word: ${long.subject}`);
      const read = await server.call("read", { memory_id: long.memory_id });
      assert.equal(read.data.content, runOn.text);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "import of a README with no heading names it by its package folder",
  async (home) => {
    const dir = `${home.dir}/docs/node_modules/inherits-like`;
    Deno.mkdirSync(dir, { recursive: true });
    // Real README text with no heading at all (inherits' opening lines).
    Deno.writeTextFileSync(
      `${dir}/README.md`,
      "Browser-friendly inheritance fully compatible with standard node.js\n" +
        "[inherits](http://nodejs.org/api/util.html#util_util_inherits_constructor_superconstructor).\n",
    );
    const imported = await runCli(home, ["import", `${home.dir}/docs`, "--workspace", "d"]);
    assert.equal(imported.code, 0, imported.stderr);
    const server = await startServer(home);
    try {
      const rows = await allRows(server, "d");
      assert.deepEqual(rows.map((row) => row.subject), ["inherits-like — README"]);
    } finally {
      await server.close();
    }
  },
);
