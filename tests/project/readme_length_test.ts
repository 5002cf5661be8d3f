/**
 * The README stays what a newcomer reads in the first hour (at most 400 lines) and sends them to
 * the reference in `docs/`: every relative link in the README and in the docs pages leads to a
 * file that exists and, with `#anchor`, to a heading of that file, as GitHub renders it.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

/** The longest README a newcomer is asked to finish (issue 37). */
const README_MAX_LINES = 400;

/** The docs pages, relative to the repository, in name order. */
function docsPages(): string[] {
  return [...Deno.readDirSync(`${ROOT}/docs`)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`)
    .sort();
}

/** The text outside fenced code blocks and inline code spans, where links and headings live. */
function outsideCode(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "")
    .replace(/`[^`\n]*`/g, "");
}

/**
 * The anchor GitHub gives a heading: its rendered text in lower case, punctuation dropped (letters,
 * digits, `_`, `-` and spaces stay), each space a hyphen; a repeated one gets `-1`, `-2`, ….
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const rendered = match[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "");
    const slug = rendered
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown file (inline links and images), outside code. */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of outsideCode(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    targets.push(target);
  }
  return targets;
}

/** Where a link written in `from` leads, as `[file relative to the repository, anchor?]`. */
function resolveLink(from: string, target: string): [string, string | undefined] {
  const [path, anchor] = target.split("#", 2) as [string, string | undefined];
  if (path === "") return [from, anchor];
  const folder = from.includes("/") ? from.slice(0, from.lastIndexOf("/")) : "";
  const parts = folder === "" ? [] : folder.split("/");
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return [parts.join("/"), anchor === undefined ? undefined : decodeURIComponent(anchor)];
}

/** Every link of `file` that leads nowhere, as readable lines. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(Deno.readTextFileSync(`${ROOT}/${file}`))) {
    const [path, anchor] = resolveLink(file, target);
    let exists = false;
    try {
      exists = Deno.statSync(`${ROOT}/${path}`).isFile;
    } catch {
      exists = false;
    }
    if (!exists) {
      broken.push(`${file}: ${target} (no file ${path})`);
      continue;
    }
    if (
      anchor !== undefined && !headingAnchors(Deno.readTextFileSync(`${ROOT}/${path}`)).has(anchor)
    ) {
      broken.push(`${file}: ${target} (${path} has no heading #${anchor})`);
    }
  }
  return broken;
}

Deno.test(`the README is at most ${README_MAX_LINES} lines`, () => {
  const lines = Deno.readTextFileSync(`${ROOT}/README.md`).replace(/\n$/, "").split("\n").length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move reference to docs/`);
});

Deno.test("every relative link in the README and the docs pages leads to a file and a heading", () => {
  const broken = ["README.md", ...docsPages()].flatMap(brokenLinks);
  assert.deepEqual(broken, []);
});

Deno.test("every docs page has a title and is linked from the README", () => {
  const readmeTargets = new Set(
    relativeLinks(Deno.readTextFileSync(`${ROOT}/README.md`)).map((target) =>
      resolveLink("README.md", target)[0]
    ),
  );
  for (const page of docsPages()) {
    const text = Deno.readTextFileSync(`${ROOT}/${page}`);
    assert.match(text, /^# \S/, `${page} starts with a "# Title" line`);
    // The design of record is for contributors, like the architecture notes, not a user's page.
    if (page === "docs/SPEC.md") continue;
    assert.ok(readmeTargets.has(page), `README.md links no ${page}`);
  }
});

Deno.test("a link checker that finds broken links and anchors", () => {
  // The checks above pass only if the checker can fail: a page with one good and two bad links.
  const markdown = "# A page\n\n## Setup (optional)\n\n[ok](#setup-optional) [bad](#nope)\n" +
    "```sh\n# not a heading\n```\n[gone](missing.md) `[code](not-a-link.md)`\n";
  assert.deepEqual([...headingAnchors(markdown)], ["a-page", "setup-optional"]);
  assert.deepEqual(relativeLinks(markdown), ["#setup-optional", "#nope", "missing.md"]);
  assert.deepEqual(resolveLink("docs/tools.md", "../README.md#quick-start"), [
    "README.md",
    "quick-start",
  ]);
  assert.deepEqual(
    headingAnchors("## Side by side with `@ai-devkit/memory`\n## Limits\n## Limits"),
    new Set([
      "side-by-side-with-ai-devkitmemory",
      "limits",
      "limits-1",
    ]),
  );
});
