/**
 * Imported documents are compared claim by claim, not line by line: two packages' READMEs
 * (badges, install commands, version tables, copyright lines, links) open no conflict, while a
 * short fact still conflicts with a short imported note or a document's sentence. Notes go in
 * through the import's own reading and write path (`markdownUnit` + `importUnits`, as
 * `mema import DIR --workspace npm-docs` runs them) into a real SQLite file.
 */
import assert from "node:assert/strict";
import { detectConflicts } from "../../src/conflicts/detect.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { importUnits } from "../../src/portability/import.ts";
import { markdownUnit, type SplitMode } from "../../src/portability/sources.ts";
import { openTestContext, type TestContext } from "../helpers/context.ts";

/** Imports notes named by path (`qs/README.md`) and runs every write's check, in order. */
async function importNotes(
  t: TestContext,
  notes: Record<string, string>,
  split: SplitMode = "file",
): Promise<void> {
  const units = Object.entries(notes).map(([path, text]) =>
    markdownUnit(text, {
      path,
      sourceRef: path,
      fileTitle: path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/, ""),
      split,
    })
  );
  const report = await importUnits(t.ctx, units, { defaultWorkspace: "npm-docs" });
  for (let id = 1; id <= report.created; id++) {
    await detectConflicts(t.ctx, id, defaultStages());
  }
}

async function openConflicts(t: TestContext): Promise<string[][]> {
  return (await t.store.read(async () =>
    await t.store.conflicts.list({ statuses: ["open"], limit: 50, offset: 0 })
  ))
    .rows.map((row) => row.members.map((m) => m.row_text));
}

/** A README as packages write them: badges, install line, a usage paragraph, a table, links. */
function readme(name: string, version: string, year: number, extra: string): string {
  return `# ${name} <sup>[![Version Badge][npm-version-svg]][package-url]</sup>

[![github actions][actions-image]][actions-url]
[![npm badge][npm-badge-png]][package-url]

${extra}

## Install

\`\`\`
npm install --save ${name}
\`\`\`

This package requires Node.js ${version} or later; see [the changelog](https://github.com/ljharb/${name}/blob/main/CHANGELOG.md#v${version}) for details.

| Version | Supported |
| ------- | --------- |
| ${version} | yes |

See also: https://github.com/ljharb/${name}#readme

## License

Copyright ${year} Jordan Harband and contributors.

[package-url]: https://npmjs.org/package/${name}
[npm-version-svg]: https://versionbadg.es/ljharb/${name}.svg
[actions-url]: https://github.com/ljharb/${name}/actions
`;
}

const ES_ERRORS = readme(
  "es-errors",
  "1.0.0",
  2024,
  "A simple cache for a few of the JS Error constructors.",
);
const QS = readme(
  "qs",
  "2.0.0",
  2014,
  "A querystring parser. The parser limits nesting to 5 levels by default.",
);

Deno.test("two packages' READMEs imported together open no conflict", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await importNotes(t, { "es-errors/README.md": ES_ERRORS, "qs/README.md": QS });
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
});

Deno.test("sections of READMEs (--split headings) open no conflict between packages or within one", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await importNotes(
      t,
      {
        "es-errors/README.md": ES_ERRORS,
        "qs/README.md": QS,
        "iconv-lite/README.md": `# iconv-lite

## UTF-16 Encodings

Encoding: uses UTF-16LE and writes BOM by default.

## UTF-32 Encodings

Encoding: uses UTF-32LE and writes BOM by default.
`,
      },
      "headings",
    );
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
});

Deno.test("markup, commands and commit-log lines are never read as claims", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const a = await rememberMemory(t.ctx, {
      subject: "tools",
      workspace: "npm-docs",
      content:
        "npm install --save tar-fs\n\n[actions-url]: https://github.com/mafintosh/tar-fs/actions",
    });
    const b = await rememberMemory(t.ctx, {
      subject: "tools",
      workspace: "npm-docs",
      content:
        "npm install --save tar-stream\n\n[actions-url]: https://github.com/mafintosh/tar-stream/actions",
    });
    await detectConflicts(t.ctx, a.memoryId, defaultStages());
    await detectConflicts(t.ctx, b.memoryId, defaultStages());
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
});

Deno.test("a fact still conflicts with an imported note and with a document's sentence", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await importNotes(t, {
      "ops/database.md": "# Database\n\nThe staging database runs PostgreSQL 14.\n",
      "qs/README.md": QS,
    });
    const short = await rememberMemory(t.ctx, {
      subject: "Database",
      workspace: "npm-docs",
      content: "The staging database runs PostgreSQL 16.",
    });
    await detectConflicts(t.ctx, short.memoryId, defaultStages());
    const nesting = await rememberMemory(t.ctx, {
      subject: "qs",
      workspace: "npm-docs",
      content: "The parser limits nesting to 10 levels by default.",
    });
    await detectConflicts(t.ctx, nesting.memoryId, defaultStages());
    const rows = (await openConflicts(t)).map((members) => members.sort().join(" | "));
    assert.ok(rows.some((row) => row.includes("PostgreSQL 14") && row.includes("PostgreSQL 16")));
    assert.ok(rows.some((row) => row.includes("5 levels") && row.includes("10 levels")), `${rows}`);
  } finally {
    t.cleanup();
  }
});

Deno.test("a value that names the memory's own subject is an identifier, not a differing value", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids = [];
    for (
      const [subject, content] of [
        [
          "@img/sharp-libvips-linux-x64",
          "Prebuilt libvips and dependencies for use with sharp on Linux (glibc) x64.",
        ],
        [
          "@img/sharp-libvips-linuxmusl-x64",
          "Prebuilt libvips and dependencies for use with sharp on Linux (musl) x64.",
        ],
        ["es-errors", "The package is published on npm as es-errors."],
        ["qs", "The package is published on npm as qs."],
      ]
    ) {
      ids.push((await rememberMemory(t.ctx, { subject, content, workspace: "npm-docs" })).memoryId);
    }
    for (const id of ids) await detectConflicts(t.ctx, id, defaultStages());
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
});

Deno.test("two URLs that differ only by an anchor name one page; two pages still conflict", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const remember = async (content: string) =>
      (await rememberMemory(t.ctx, { subject: "qs docs", content, workspace: "npm-docs" }))
        .memoryId;
    await remember("The qs documentation lives at https://github.com/ljharb/qs#readme for now.");
    const anchor = await remember(
      "The qs documentation lives at https://github.com/ljharb/qs#usage for now.",
    );
    await detectConflicts(t.ctx, anchor, defaultStages());
    assert.deepEqual(await openConflicts(t), []);
    const moved = await remember(
      "The qs documentation lives at https://qs.js.org/guide for now.",
    );
    await detectConflicts(t.ctx, moved, defaultStages());
    assert.equal((await openConflicts(t)).length, 1);
  } finally {
    t.cleanup();
  }
});

Deno.test("instructions that start like code keywords and facts with an issue link stay claims", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const remember = async (content: string) =>
      (await rememberMemory(t.ctx, { subject: "reports", content, workspace: "acme" })).memoryId;
    await remember("Export the sales report every Monday.");
    await detectConflicts(
      t.ctx,
      await remember("Export the sales report every Friday."),
      defaultStages(),
    );
    await remember("The login bug (https://github.com/acme/app/issues/42) affects 3 customers.");
    await detectConflicts(
      t.ctx,
      await remember("The login bug affects 12 customers now."),
      defaultStages(),
    );
    assert.equal((await openConflicts(t)).length, 2, JSON.stringify(await openConflicts(t)));
  } finally {
    t.cleanup();
  }
});

Deno.test("headings and fenced code of imported files are never claims; their sentences still are", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    // Two example pages of one package under one title: their headings name different commands
    // and their code blocks carry comments, none of which is a fact about the same thing.
    const page = (command: string, event: string, extra: string) =>
      `# socks examples\n\n## Example for SOCKS '${command}' command\n\n${extra}` +
      `### Using createConnection with ${command === "bind" ? "async/await" : "Promises"}\n\n` +
      "```typescript\nconst client = new SocksClient(options);\n\n" +
      `// This event is fired when the SOCKS server has ${event} on the newly bound port.\n` +
      "client.on('bound', (info) => {\n  console.log(info);\n});\n```\n";
    await importNotes(t, {
      "socks/docs/examples/bindExample.md": page("bind", "started listening", ""),
      "socks/docs/examples/associateExample.md": page(
        "associate",
        "accepted a connection",
        "The example proxy listens on port 1081.\n\n",
      ),
    });
    assert.deepEqual(await openConflicts(t), []);
    const fact = await rememberMemory(t.ctx, {
      subject: "socks examples",
      workspace: "npm-docs",
      content: "The example proxy listens on port 1080.",
    });
    await detectConflicts(t.ctx, fact.memoryId, defaultStages());
    assert.deepEqual((await openConflicts(t)).map((members) => members.sort().join(" | ")), [
      "The example proxy listens on port 1080. | The example proxy listens on port 1081.",
    ]);
  } finally {
    t.cleanup();
  }
});

Deno.test("the part of a split file before its first heading is about that file's topic", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    // With --split headings the lines before the first "##" are a memory without an anchor, and
    // often short: its sentences are still about its own page, not about another page's section.
    await importNotes(t, {
      "api/webstreams.md": "# Web Streams API\n\n> Stability: 1 - Experimental.\n\n" +
        "## Overview\n\nThe WHATWG Streams Standard defines an API for streaming data.\n",
      "api/events.md": "# Events\n\n## EventTarget\n\n> Stability: 3 - Legacy.\n\n" +
        "The EventTarget class is the base class of every emitter in the browser.\n",
    }, "headings");
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
  // Two short notes (no sections) still conflict with each other.
  const notes = await openTestContext({ skipVec: true });
  try {
    await importNotes(notes, {
      "ops/staging.md": "# Staging\n\nThe staging database runs PostgreSQL 14.\n",
      "ops/upgrade.md": "# Upgrade\n\nThe staging database runs PostgreSQL 16.\n",
    });
    assert.equal((await openConflicts(notes)).length, 1);
  } finally {
    notes.cleanup();
  }
});

Deno.test("two versions of one README that both state two lines hold no conflict between those lines", async () => {
  // accepts 1.3.8 and 2.0.0 both document `charsets` and `encodings` with the same sentence
  // frame; each version's `charsets` line against the other's `encodings` line looked like
  // two values of one attribute.
  const methods = (wrap: string) =>
    `### .charsets()\n\nReturn the charsets that the request accepts, in the order of the${wrap}` +
    "client's preference (most preferred first).\n\n### .encodings()\n\n" +
    `Return the encodings that the request accepts, in the order of the${wrap}` +
    "client's preference (most preferred first).\n";
  const t = await openTestContext({ skipVec: true });
  try {
    await importNotes(t, {
      "accepts/README.md": `# accepts\n\nHigher level content negotiation.\n\n${methods("\n")}`,
      "node_modules/accepts/README.md":
        `# accepts\n\nHigher-level content negotiation, for Node.js 18 and up.\n\n${methods(" ")}`,
    });
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
  // A line the other version does not state still conflicts (debug 2.6.9 / 4.4.3).
  const u = await openTestContext({ skipVec: true });
  try {
    const stdout = (method: string) =>
      `When stdout is not a TTY, \`Date#${method}()\` is used, making it more useful for ` +
      "logging the debug information as shown below:\n";
    await importNotes(u, {
      "debug/README.md": `# debug\n\nA tiny debugging utility.\n\n${stdout("toUTCString")}`,
      "node_modules/debug/README.md": `# debug\n\nA tiny JavaScript debugging utility.\n\n${
        stdout("toISOString")
      }`,
    });
    assert.equal((await openConflicts(u)).length, 1);
  } finally {
    u.cleanup();
  }
});

Deno.test("a README line that grows a clause, and 'no need' for 'doesn't need', open no conflict", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    // body-parser 1.20 and 2.x: the newer line says all the older one says, then goes on.
    const populate = "All middlewares will populate the `req.body` property with the parsed " +
      "body when\nthe `Content-Type` request header matches the `type` option";
    // iconv-lite: the same feature in two wordings, each denying the need.
    await importNotes(t, {
      "body-parser/README.md":
        `# body-parser\n\nNode.js body parsing middleware.\n\n${populate}.\n`,
      "node_modules/body-parser/README.md":
        "# body-parser\n\nNode.js body parsing middleware.\n\n" +
        `${populate}, or an empty\nobject (\`{}\`) if there was no body to parse, the ` +
        "`Content-Type` was not matched,\nor an error occurred.\n",
      "iconv-lite/README.md": "# iconv-lite\n\nPure JS character encoding conversion.\n\n" +
        "Doesn't need native code compilation. Works on Windows and in sandboxed environments.\n",
      "node_modules/iconv-lite/README.md":
        "# iconv-lite: Pure JS character encoding conversion\n\n" +
        "No need for native code compilation. Quite fast.\n",
    });
    assert.deepEqual(await openConflicts(t), []);
  } finally {
    t.cleanup();
  }
  // A row that denies the other's words is not the other's statement plus a clause.
  const u = await openTestContext({ skipVec: true });
  try {
    await importNotes(u, {
      "office/hours.md": "# Office hours\n\nThe front office is open on Sundays from ten.\n",
      "office/update.md": "# Office update\n\nThe front office is not open on Sundays from ten, " +
        "since the move.\n",
    });
    assert.equal((await openConflicts(u)).length, 1);
  } finally {
    u.cleanup();
  }
});
