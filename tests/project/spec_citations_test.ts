/**
 * The design of record lives in the repository (docs/SPEC.md), and every comment, test and doc
 * that cites it names the file, so a reader of the code can follow each reference: a citation
 * "docs/SPEC.md §N" points at a section that exists, and no citation of a spec outside the
 * repository (a bare "SPEC" followed by a section sign) is left.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

/** This file quotes the bare form on purpose, to describe it. */
const SELF = "tests/project/spec_citations_test.ts";

/** Text files that may cite the spec, relative to the repository, the spec itself excluded. */
function citingFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && !["tests/fixtures", "bench/results"].includes(path)) {
      files.push(...citingFiles(path));
    }
    if (entry.isFile && /\.(ts|md)$/.test(entry.name) && path !== SELF) files.push(path);
  }
  return files;
}

function sourcesAndDocs(): string[] {
  const files = ["src", "tests", "bench", "scripts"].flatMap((dir) => citingFiles(dir));
  const docs = [...Deno.readDirSync(`${ROOT}/docs`)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".md") && entry.name !== "SPEC.md")
    .map((entry) => `docs/${entry.name}`);
  return [...files, ...docs, "main.ts", "README.md"];
}

/** The numbers of the spec's sections ("## 6. Recall (`find`)" is §6). */
function specSections(): Set<number> {
  const spec = Deno.readTextFileSync(`${ROOT}/docs/SPEC.md`);
  return new Set([...spec.matchAll(/^## (\d+)\. /gm)].map((match) => Number(match[1])));
}

/**
 * A citation and the sections it names: "docs/SPEC.md §5/§8", "docs/SPEC.md §8, §11" and one
 * wrapped onto the next comment line all count.
 */
const CITATION = /docs\/SPEC\.md((?:(?:\s|\*|\/\/|,|\/|and)*§\d+)+)/g;
/** "SPEC §N" without the path, also when a comment wraps between the two. */
const BARE = /(?<!docs\/)\bSPEC(?:\s|\*|\/\/)*§/;

Deno.test("the design of record is in the repository with its numbered sections", () => {
  const sections = specSections();
  for (let n = 1; n <= 16; n++) assert.ok(sections.has(n), `docs/SPEC.md lacks §${n}`);
});

Deno.test("every docs/SPEC.md §N citation names a section that exists", () => {
  const sections = specSections();
  const wrong: string[] = [];
  let cited = 0;
  for (const path of sourcesAndDocs()) {
    const text = Deno.readTextFileSync(`${ROOT}/${path}`);
    for (const match of text.matchAll(CITATION)) {
      for (const number of match[1].matchAll(/§(\d+)/g)) {
        cited++;
        if (!sections.has(Number(number[1]))) wrong.push(`${path}: §${number[1]}`);
      }
    }
  }
  assert.deepEqual(wrong, [], `citations of sections docs/SPEC.md does not have`);
  // The code cites the spec in many places; finding none means the pattern broke, not the code.
  assert.ok(cited >= 50, `only ${cited} citations found`);
});

Deno.test("no comment or doc cites a spec outside the repository", () => {
  const bare: string[] = [];
  for (const path of sourcesAndDocs()) {
    const lines = Deno.readTextFileSync(`${ROOT}/${path}`).split("\n");
    lines.forEach((line, index) => {
      const withNext = `${line}\n${lines[index + 1] ?? ""}`;
      const at = withNext.search(BARE);
      if (at >= 0 && at < line.length) bare.push(`${path}:${index + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(bare, [], 'write "docs/SPEC.md §N", the file a reader can open');
});
