import assert from "node:assert/strict";
import {
  FrontmatterError,
  parseFrontmatter,
  renderFrontmatter,
} from "../../src/portability/frontmatter.ts";
import { headingSlug, readNoteSections } from "../../src/portability/markdown.ts";

Deno.test("frontmatter: the YAML notes use is read; what is written reads back equal", () => {
  const text = [
    "---",
    "title: Deploy plan # a comment",
    "tags:",
    "  - ops",
    "  - 'on call'",
    'aliases: [one, "two, three"]',
    "date: 2025-03-01",
    "count: 3",
    "draft: false",
    "summary: |",
    "  line one",
    "  line two",
    "---",
    "# Body",
  ].join("\n");
  const parsed = parseFrontmatter(text);
  assert.deepEqual(parsed.fields, {
    title: "Deploy plan",
    tags: ["ops", "on call"],
    aliases: ["one", "two, three"],
    date: "2025-03-01",
    count: 3,
    draft: false,
    summary: "line one\nline two\n",
  });
  assert.equal(parsed.body, "# Body");
  assert.equal(parsed.bodyLine, 14);
  assert.equal(parsed.lines.date, 7);
  const fields = {
    title: 'A "quoted"\ttitle: yes',
    tags: ["a", "b c"],
    n: 0.5,
    metadata: { k: ["v", 1] },
    none: null,
  };
  assert.deepEqual(parseFrontmatter(renderFrontmatter(fields) + "x").fields, fields);
});

Deno.test("frontmatter: a problem is reported with its line", () => {
  assert.throws(
    () => parseFrontmatter("---\ntitle: ok\n  nested: no\n---\n"),
    (error: unknown) => error instanceof FrontmatterError && error.line === 3,
  );
  assert.throws(
    () => parseFrontmatter("---\ntitle: ok\n"),
    (error: unknown) => error instanceof FrontmatterError && error.line === 1,
  );
  assert.throws(
    () => parseFrontmatter('---\ntitle: "open\n---\n'),
    (error: unknown) => error instanceof FrontmatterError && error.line === 2,
  );
  assert.equal(parseFrontmatter("no frontmatter\n---\n").body, "no frontmatter\n---\n");
});

Deno.test("markdown: sections by ## outside code fences, with unique slugs", () => {
  const outline = readNoteSections(
    "# Ops\nintro\n## Deploys\nFridays.\n```\n## not a heading\n```\n## Deploys\nagain\n## Backups!\n",
  );
  assert.equal(outline.title, "Ops");
  assert.equal(outline.preamble, "# Ops\nintro\n");
  assert.deepEqual(outline.sections.map((s) => [s.slug, s.line]), [
    ["deploys", 3],
    ["deploys-1", 8],
    ["backups", 10],
  ]);
  assert.equal(outline.sections[0].text, "## Deploys\nFridays.\n```\n## not a heading\n```\n");
  assert.equal(headingSlug("Café & 茶 Notes"), "café--茶-notes");
});
