/**
 * How an imported note's subject is read from its text, on the shapes real READMEs use: ATX,
 * setext and HTML headings, badge lines, code fences, generic file names, run-on titles.
 */
import assert from "node:assert/strict";
import { noteTitle, visibleText } from "../../src/portability/markdown.ts";
import { markdownUnit, type NoteSource } from "../../src/portability/sources.ts";
import { IMPORT_SUBJECT_MAX_CHARS } from "../../src/portability/constants.ts";
import { SUBJECT_MAX_CHARS } from "../../src/memory/limits.ts";

function subjectOf(text: string, source: Partial<NoteSource> = {}): string {
  return markdownUnit(text, {
    path: "x/README.md",
    sourceRef: "x/README.md",
    fileTitle: "README",
    split: "file",
    ...source,
  }).items[0].subject;
}

Deno.test("visibleText drops badges and images, keeps link text, strips tags and decodes entities", () => {
  assert.equal(visibleText("qs <sup>[![Version Badge][npm-version-svg]][package-url]</sup>"), "qs");
  assert.equal(
    visibleText(
      "ipaddr.js — a library [![Build Status](https://travis-ci.org/x.svg)](https://travis-ci.org/x)",
    ),
    "ipaddr.js — a library",
  );
  assert.equal(
    visibleText("[Hono](https://hono.dev) &amp; `friends` &#x263A;"),
    "Hono & friends ☺",
  );
  assert.equal(visibleText("<code>express-rate-limit</code>"), "express-rate-limit");
  assert.equal(visibleText("**Bold** move <!-- hidden -->"), "Bold move");
  assert.equal(visibleText("[![ci][ci-image]][ci-url] [![npm][npm-image]][npm-url]"), "");
});

Deno.test("noteTitle: ATX, setext and multi-line HTML headings; badge headings and fences skipped", () => {
  assert.deepEqual(noteTitle("@protobufjs/pool\n================\n\nA pool.\n"), {
    text: "@protobufjs/pool",
    level: 1,
  });
  assert.deepEqual(noteTitle("semver(1)\n---------\n\ntext\n"), { text: "semver(1)", level: 2 });
  assert.deepEqual(
    noteTitle(
      '<p align="center">\n  <img src="logo.png">\n</p>\n<h1 align="center">\n  <code>rate</code>\n</h1>\n',
    ),
    { text: "rate", level: 1 },
  );
  assert.deepEqual(
    noteTitle("### [![Build](https://x/badge.svg)](https://x)\n\n## Usage\n\n# winkNLP\n"),
    { text: "winkNLP", level: 1 },
    "a level-1 heading further down wins over earlier smaller ones",
  );
  assert.deepEqual(noteTitle("```md\n# not a title\n```\n\n## Setup\n"), {
    text: "Setup",
    level: 2,
  });
  assert.equal(noteTitle("Just text.\nMore text.\n"), undefined);
  // A list item or table followed by a rule is not a setext heading.
  assert.equal(noteTitle("- item\n---\n"), undefined);
  assert.equal(noteTitle("#hashtag is not a heading\n"), undefined);
});

Deno.test("subjects: folder names a generic file, never just README; declared titles win", () => {
  assert.equal(subjectOf("# qs <sup>[![v][v]][p]</sup>\n", { folder: "qs" }), "qs");
  assert.equal(
    subjectOf("# Installation\n> npm install\n", { folder: "@types/node" }),
    "@types/node — Installation",
  );
  assert.equal(subjectOf("No heading here.\n", { folder: "inherits" }), "inherits — README");
  assert.equal(subjectOf("# Encode URL\n", { folder: "encodeurl" }), "Encode URL");
  assert.equal(
    subjectOf("# Deploys\nFridays.\n", { fileTitle: "ops", folder: "notes" }),
    "Deploys",
    "a file name that says something leaves the heading alone",
  );
  assert.equal(subjectOf("Fridays.\n", { fileTitle: "ops", folder: "notes" }), "ops");
  assert.equal(
    subjectOf("---\ntitle: My own title\n---\n# Heading\n", { folder: "qs" }),
    "My own title",
  );
});

Deno.test("subjects: an over-long title is cut at a word, never a reason to skip the note", () => {
  const words = "lorem ipsum dolor sit amet consectetur adipiscing elit ".repeat(12).trim();
  const derived = subjectOf(`# ${words}\n\nBody.\n`, { fileTitle: "guide" });
  assert.ok(derived.length <= IMPORT_SUBJECT_MAX_CHARS, `${derived.length}`);
  assert.ok(derived.endsWith("…"));
  assert.ok(words.startsWith(derived.slice(0, -1)) && words[derived.length - 1] === " ");
  const declared = subjectOf(`---\ntitle: ${words} ${words}\n---\nBody.\n`);
  assert.ok(declared.length <= SUBJECT_MAX_CHARS && declared.length > IMPORT_SUBJECT_MAX_CHARS);
  assert.ok(declared.endsWith("…"));
  const sections = markdownUnit(`# Guide\n\n## ${words} ${words}\nText.\n`, {
    path: "guide.md",
    sourceRef: "guide.md",
    fileTitle: "guide",
    split: "headings",
  }).items;
  assert.ok(sections.every((item) => item.subject.length <= SUBJECT_MAX_CHARS));
});
