import { seededRandom } from "../helpers/random.ts";
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { ROW_MAX_CHARS } from "../../src/evidence/constants.ts";
import { type ContentRow, segmentContent, segmentMemory } from "../../src/evidence/segment.ts";

function texts(content: string): string[] {
  return segmentContent(content).map((row) => row.text);
}

function kinds(content: string): string[] {
  return segmentContent(content).map((row) => `${row.kind}:${row.text}`);
}

/** The invariants every segmentation must keep, whatever the input. */
function assertRowInvariants(content: string, rows: ContentRow[]): void {
  let previousEnd = 0;
  rows.forEach((row, index) => {
    const where = `row ${index} ${JSON.stringify(row)} of ${JSON.stringify(content.slice(0, 200))}`;
    strictEqual(content.slice(row.startOffset, row.endOffset), row.text, `slice: ${where}`);
    strictEqual(row.rowIndex, index, `rowIndex: ${where}`);
    ok(row.startOffset >= previousEnd, `order/overlap: ${where}`);
    ok(row.text.length > 0, `empty: ${where}`);
    ok(row.text.length <= ROW_MAX_CHARS, `over cap: ${where}`);
    ok(!/^\s|\s$/.test(row.text), `untrimmed: ${where}`);
    ok(!/\n[^\S\n]*\n/.test(row.text), `spans a blank line: ${where}`);
    ok(["sentence", "table_row", "heading"].includes(row.kind), `kind: ${where}`);
    if (row.kind !== "sentence") ok(!row.text.includes("\n"), `multi-line ${row.kind}: ${where}`);
    const first = row.text.charCodeAt(0);
    const last = row.text.charCodeAt(row.text.length - 1);
    ok(!(first >= 0xdc00 && first <= 0xdfff), `starts mid surrogate pair: ${where}`);
    ok(!(last >= 0xd800 && last <= 0xdbff), `ends mid surrogate pair: ${where}`);
    previousEnd = row.endOffset;
  });
}

// ---------------------------------------------------------------- property test

const WORDS = (
  "deploy server monday config cache user prefers dark mode editor vim tests pass the a of " +
  "release branch review budget meeting notes database index vector lexical recall agent"
).split(" ");
const CAPITALIZED = ["We", "The", "Alice", "Deploys", "Tests", "Our", "Bob", "Memory"];
const INLINE_TOKENS = [
  "e.g.",
  "i.e.",
  "Dr. Smith",
  "Mr. Jones",
  "Mrs. Lee",
  "vs.",
  "etc. and more",
  "the U.S. office",
  "3.14",
  "v1.2.3",
  "0.5",
  "https://example.com/a.b?x=1",
  "src/main.ts",
  "dev@example.org",
  "🎉",
  "👨‍👩‍👧",
  "👍🏽",
  "wait... then",
  "hmm… okay",
  "J. R. R. Tolkien",
  '"quoted"',
  "(see above)",
  "C#",
  "部署",
  "x,y",
];
const HAN = "我们周一部署周二开会数据库索引向量检索记忆代理配置缓存用户偏好深色模式";
const CJK_ENDS = ["。", "！", "？", "；", "…", "……", "。」", "！？"];
const EN_ENDS = [".", "!", "?", "?!", "...", '."', ".)", "…"];

interface Piece {
  text: string;
  /** Markup (heading markers, bullets, separator lines, fences) need not be in any row. */
  markup: boolean;
}

class DocBuilder {
  pieces: Piece[] = [];
  constructor(readonly random: () => number) {}
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
  add(text: string, markup = false): void {
    this.pieces.push({ text, markup });
  }
  newline(): void {
    this.add(this.chance(0.2) ? "\r\n" : "\n");
  }
  indent(): string {
    return this.pick(["", "", "", " ", "  ", "\t", "\u3000"]);
  }

  englishSentence(end = true): string {
    let text = this.pick(CAPITALIZED);
    const count = this.int(1, 12);
    for (let i = 0; i < count; i++) {
      const plain = this.chance(0.7);
      // A soft line break only before a plain word, which can never read as a bullet or heading.
      const gap = plain && this.chance(0.1) ? "\n" : this.pick([" ", " ", " ", "  ", "\t"]);
      text += gap + (plain ? this.pick(WORDS) : this.pick(INLINE_TOKENS));
    }
    return end ? text + this.pick(EN_ENDS) : text;
  }

  cjkSentence(end = true): string {
    let text = "";
    const count = this.int(2, 14);
    for (let i = 0; i < count; i++) {
      text += this.chance(0.08) ? this.pick(["🎉", "v1.2", "AI", "，"]) : this.pick([...HAN]);
    }
    return end ? text + this.pick(CJK_ENDS) : text;
  }

  sentence(end = true): string {
    return this.chance(0.6) ? this.englishSentence(end) : this.cjkSentence(end);
  }

  paragraph(): void {
    this.add(this.indent());
    const count = this.int(1, 4);
    for (let i = 0; i < count; i++) {
      if (i > 0) this.add(this.pick([" ", "", "\n", "  "]));
      this.add(this.sentence(i < count - 1 || this.chance(0.7)));
    }
    this.newline();
  }

  heading(): void {
    this.add(this.indent() + "#".repeat(this.int(1, 6)) + this.pick([" ", "  ", "\t"]), true);
    this.add(this.chance(0.5) ? this.englishSentence(false) : this.cjkSentence(false));
    if (this.chance(0.2)) this.add(" ##", true);
    this.newline();
  }

  tableRow(): string {
    const cells = this.int(1, 4);
    let row = "|";
    for (let i = 0; i < cells; i++) {
      row += ` ${this.chance(0.5) ? this.pick(WORDS) : this.pick(INLINE_TOKENS)} |`;
    }
    return row;
  }

  table(): void {
    this.add(this.indent() + this.tableRow());
    this.newline();
    this.add(this.pick(["|---|---|", "| :--- | ---: |", "|-|"]), true);
    this.newline();
    const rows = this.int(0, 4);
    for (let i = 0; i < rows; i++) {
      this.add(this.tableRow() + this.pick(["", " ", "\t"]));
      this.newline();
    }
  }

  list(): void {
    const items = this.int(1, 5);
    for (let i = 0; i < items; i++) {
      const bullet = this.pick(["- ", "* ", "+ ", `${i + 1}. `, `${i + 1}) `, "-\t"]);
      this.add(this.indent() + bullet, true);
      this.add(this.sentence(this.chance(0.5)));
      if (this.chance(0.3)) this.add(" " + this.sentence());
      // A continuation line belongs to the same item.
      if (this.chance(0.15)) this.add("\n  " + this.pick(WORDS) + " " + this.pick(WORDS));
      this.newline();
    }
  }

  codeFence(closed: boolean): void {
    const opener = this.pick(["```", "```ts", "~~~", "````bash"]);
    this.add(opener + "\n", true);
    const lines = this.int(0, 5);
    for (let i = 0; i < lines; i++) {
      this.add(this.pick(["# not a heading", "| not | a table |", "- not a bullet", "x = 3.14;"]));
      this.add(this.pick(["\n", "\n", "\n\n"]));
    }
    // The closing fence repeats the opening character, at least as many times.
    const fence = opener.match(/^(`+|~+)/)![1];
    if (closed) this.add(fence + fence[0].repeat(this.int(0, 2)) + "\n", true);
  }

  longSentence(): void {
    const style = this.int(0, 3);
    let text = "";
    const target = this.int(ROW_MAX_CHARS - 5, ROW_MAX_CHARS * 3);
    while (text.length < target) {
      if (style === 0) text += this.pick(WORDS) + this.pick([" ", ", ", " "]);
      else if (style === 1) text += this.pick([...HAN]);
      else if (style === 2) text += this.pick(["🎉", "👨‍👩‍👧", "👍🏽", "é", "x"]);
      else text += this.pick(WORDS) + ",";
    }
    this.add("Long " + text + ".");
    this.newline();
  }

  whitespace(): void {
    this.add(this.pick(["\n", "\n\n", "  \n\t\n", "\r\n", "\u3000\n", " "]));
  }

  build(): { content: string; mustCover: boolean[] } {
    const blocks = this.int(1, 14);
    for (let i = 0; i < blocks; i++) {
      const choice = this.random();
      if (choice < 0.35) this.paragraph();
      else if (choice < 0.47) this.heading();
      else if (choice < 0.57) this.table();
      else if (choice < 0.7) this.list();
      else if (choice < 0.75) this.codeFence(true);
      else if (choice < 0.78) this.add("---\n", true);
      else if (choice < 0.82) this.longSentence();
      else this.whitespace();
      if (this.chance(0.3)) this.whitespace();
    }
    if (this.chance(0.05)) this.codeFence(false);
    let content = "";
    const mustCover: boolean[] = [];
    for (const piece of this.pieces) {
      content += piece.text;
      for (let i = 0; i < piece.text.length; i++) mustCover.push(!piece.markup);
    }
    return { content, mustCover };
  }
}

Deno.test("property: rows are exact, ordered, trimmed, bounded slices that cover the content", () => {
  const random = seededRandom(20240611);
  const cases = 800;
  let rowsSeen = 0;
  for (let n = 0; n < cases; n++) {
    const { content, mustCover } = new DocBuilder(random).build();
    const rows = segmentContent(content);
    assertRowInvariants(content, rows);
    rowsSeen += rows.length;
    const covered = new Uint8Array(content.length);
    for (const row of rows) {
      covered.fill(1, row.startOffset, row.endOffset);
      let contentChars = 0;
      for (let i = row.startOffset; i < row.endOffset; i++) {
        if (mustCover[i] && !/\s/.test(content[i])) contentChars++;
      }
      // A row of markup only ("|---|", a bare bullet, a fence) means markup leaked into rows.
      ok(contentChars > 0, `case ${n}: markup-only row ${JSON.stringify(row.text)}`);
    }
    for (let i = 0; i < content.length; i++) {
      if (mustCover[i] && !/\s/.test(content[i]) && covered[i] === 0) {
        const around = JSON.stringify(content.slice(Math.max(0, i - 40), i + 40));
        throw new Error(`case ${n}: char ${i} ${JSON.stringify(content[i])} in no row: ${around}`);
      }
    }
  }
  ok(rowsSeen > cases * 5, `generator too thin: ${rowsSeen} rows`);
});

Deno.test("property: arbitrary character soup keeps the slice invariants", () => {
  const random = seededRandom(7);
  const alphabet = [..."ab. !?。！？；…\n\n \t|#-*1:`~,，🎉é\u200d\u3000'\")"];
  for (let n = 0; n < 500; n++) {
    let content = "";
    const length = Math.floor(random() * 400);
    for (let i = 0; i < length; i++) content += alphabet[Math.floor(random() * alphabet.length)];
    assertRowInvariants(content, segmentContent(content));
  }
});

// ---------------------------------------------------------------- examples

Deno.test("abbreviations, initials and ellipses inside a sentence do not split it", () => {
  for (
    const sentence of [
      "Use a cache, e.g. Redis, i.e. an in-memory store.",
      "Dr. Smith met Mr. Jones and Mrs. Lee.",
      "Tabs vs. spaces is settled.",
      "We moved to the U.S. office in May.",
      "Acme Inc. and Foo Ltd. signed, apples etc. were eaten.",
      "J. R. R. Tolkien wrote it.",
      "Wait... then it worked.",
      "Hmm… okay then.",
      "See No. 5 and fig. 3 on p. 12.",
    ]
  ) {
    deepStrictEqual(texts(sentence), [sentence]);
  }
});

Deno.test("decimals, versions, URLs, paths and emails do not split a sentence", () => {
  const content = "Pi is 3.14 and we run v1.2.3 at https://example.com/a.b?x=1 from src/main.ts, " +
    "mail dev@example.org. Next sentence.";
  deepStrictEqual(texts(content), [
    "Pi is 3.14 and we run v1.2.3 at https://example.com/a.b?x=1 from src/main.ts, " +
    "mail dev@example.org.",
    "Next sentence.",
  ]);
});

Deno.test("sentences end at . ! ? before whitespace, with closing quotes kept", () => {
  deepStrictEqual(texts('He said "Stop." Then he left! Why? Because.'), [
    'He said "Stop."',
    "Then he left!",
    "Why?",
    "Because.",
  ]);
  deepStrictEqual(texts("Apples, pears, etc. Then we left. So do I. We left."), [
    "Apples, pears, etc.",
    "Then we left.",
    "So do I.",
    "We left.",
  ]);
  deepStrictEqual(texts("Steps: 1. build 2. test. It rose 5. Then fell."), [
    "Steps: 1. build 2. test.",
    "It rose 5.",
    "Then fell.",
  ]);
});

Deno.test("CJK punctuation splits without following whitespace", () => {
  const content = "我们周一部署。周二开会！";
  const rows = segmentContent(content);
  deepStrictEqual(rows, [
    { kind: "sentence", text: "我们周一部署。", startOffset: 0, endOffset: 7, rowIndex: 0 },
    { kind: "sentence", text: "周二开会！", startOffset: 7, endOffset: 12, rowIndex: 1 },
  ]);
  deepStrictEqual(texts("他说：“好。”然后走了……真的吗？是的；明天见"), [
    "他说：“好。”",
    "然后走了……",
    "真的吗？",
    "是的；",
    "明天见",
  ]);
  // ASCII punctuation typed between CJK characters still ends the sentence.
  deepStrictEqual(texts("好的!我们走.明天见"), ["好的!", "我们走.", "明天见"]);
});

Deno.test("headings are rows of their text without the markers", () => {
  const content = "# Title\n\n  ## Setup steps ##\n###### Deep\n#hashtag stays text\n# C#\n#\n";
  const rows = segmentContent(content);
  assertRowInvariants(content, rows);
  deepStrictEqual(rows.map((row) => `${row.kind}:${row.text}`), [
    "heading:Title",
    "heading:Setup steps",
    "heading:Deep",
    "sentence:#hashtag stays text",
    "heading:C#",
  ]);
  strictEqual(rows[0].startOffset, 2);
  strictEqual(rows[1].startOffset, content.indexOf("Setup"));
});

Deno.test("table rows are trimmed lines and the separator line is skipped", () => {
  const content = "Intro line.\n| day | task |\n|:---|---:|\n  | Mon | deploy 🎉 |  \n\nAfter.";
  deepStrictEqual(kinds(content), [
    "sentence:Intro line.",
    "table_row:| day | task |",
    "table_row:| Mon | deploy 🎉 |",
    "sentence:After.",
  ]);
});

Deno.test("list bullets and blank lines start rows; a plain newline does not", () => {
  const content = "- first item\n* second. Third\n  continued\n10. tenth\n2) second\n\n" +
    "Wrapped line\nstill the same paragraph\n\nNew paragraph\n---\nAfter the rule";
  const rows = segmentContent(content);
  assertRowInvariants(content, rows);
  deepStrictEqual(rows.map((row) => row.text), [
    "first item",
    "second.",
    "Third\n  continued",
    "tenth",
    "second",
    "Wrapped line\nstill the same paragraph",
    "New paragraph",
    "After the rule",
  ]);
  strictEqual(rows[0].startOffset, 2);
});

Deno.test("fenced code is kept whole, never read as headings or tables", () => {
  const content =
    "Run this:\n```bash\n# install deps\nnpm i. done\n| x |\n```\nUse ```inline``` code. Ok.";
  deepStrictEqual(kinds(content), [
    "sentence:Run this:",
    "sentence:# install deps\nnpm i. done\n| x |",
    "sentence:Use ```inline``` code.",
    "sentence:Ok.",
  ]);
});

Deno.test("emoji and joined emoji stay whole", () => {
  const content = "Ship it 🎉! Family 👨‍👩‍👧 ok. Thumbs 👍🏽. 🚀";
  deepStrictEqual(texts(content), ["Ship it 🎉!", "Family 👨‍👩‍👧 ok.", "Thumbs 👍🏽.", "🚀"]);
  // A cap-long run with no whitespace or comma is hard-cut, never inside an emoji.
  const run = "x" + "👨‍👩‍👧".repeat(400);
  const rows = segmentContent(run);
  assertRowInvariants(run, rows);
  ok(rows.length > 1);
  deepStrictEqual(rows.map((row) => row.text).join(""), run);
  for (const row of rows.slice(1)) ok(row.text.startsWith("👨"), row.text.slice(0, 4));
});

Deno.test("sentences over the cap are cut at the last whitespace or comma below it", () => {
  const words = Array.from({ length: 700 }, (_, i) => `w${i}`).join(" ") + ".";
  const rows = segmentContent(words);
  assertRowInvariants(words, rows);
  ok(rows.length >= 3);
  deepStrictEqual(rows.map((row) => row.text).join(" "), words);
  ok(rows[0].text.length > ROW_MAX_CHARS - 6, "cut as late as the cap allows");
  const commas = "a,".repeat(800);
  const commaRows = segmentContent(commas);
  assertRowInvariants(commas, commaRows);
  ok(commaRows.every((row) => row.text.endsWith(",")));
  const han = "我".repeat(2500);
  deepStrictEqual(segmentContent(han).map((row) => row.text.length), [1000, 1000, 500]);
});

Deno.test("blank content has no rows; CRLF lines are trimmed", () => {
  deepStrictEqual(segmentContent(""), []);
  deepStrictEqual(segmentContent(" \n\t\r\n\u3000 "), []);
  deepStrictEqual(texts("# Title\r\n- item\r\n\r\nLine one.\r\nLine two."), [
    "Title",
    "item",
    "Line one.",
    "Line two.",
  ]);
});

Deno.test("segmentMemory returns the subject beside the content rows", () => {
  const result = segmentMemory("  Deploy schedule ", "We deploy on Monday. 周二开会！");
  deepStrictEqual(result.subjectRow, { kind: "subject", text: "Deploy schedule" });
  deepStrictEqual(result.rows, segmentContent("We deploy on Monday. 周二开会！"));
  strictEqual(segmentMemory(" \n", "x").subjectRow, null);
});

Deno.test("2 MiB inputs, including pathological ones, segment in linear time", () => {
  const size = 2 * 1024 * 1024;
  const fill = (unit: string): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const inputs = [
    fill("We deploy on Monday, e.g. at 9.30 via https://x.io/a.b. 周二开会！\n- item 🎉\n"),
    fill("x"),
    fill(". "),
    fill("|"),
    fill("\n"),
    fill("e.g. "),
    fill("```\n"),
  ];
  const started = performance.now();
  for (const content of inputs) segmentContent(content);
  const elapsed = performance.now() - started;
  // A generous bound: it only has to catch a quadratic regression, not measure speed (bench/ does).
  ok(elapsed < 5000, `took ${elapsed.toFixed(0)} ms`);
});
