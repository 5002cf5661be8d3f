import assert from "node:assert/strict";
import { buildOutline } from "../../src/recall/outline.ts";
import { estimateTokens } from "../../src/recall/size.ts";
import { queryTerms } from "../../src/recall/query_terms.ts";

Deno.test("query terms drop function words and keep CJK runs", () => {
  assert.deepEqual(queryTerms("What is the deploy day of Ada's team?"), [
    "deploy",
    "day",
    "ada",
    "team",
  ]);
  assert.deepEqual(queryTerms("我们 周二 部署"), ["我们", "周二", "部署"]);
  assert.deepEqual(queryTerms("北京的部署"), ["北京", "京部", "部署"]);
  assert.deepEqual(queryTerms("ＦＵＬＬ width"), ["full", "width"]);
});

Deno.test("outline lists headings with offsets, or paragraph starts", () => {
  const md = "# Setup\nInstall it.\n\n## Usage\nRun it.";
  const outline = buildOutline(md);
  assert.deepEqual(outline.entries, [{ head: "Setup", offset: 0 }, {
    head: "Usage",
    offset: md.indexOf("## Usage"),
  }]);
  const plain =
    "First paragraph here.\n\nSecond one, which is much longer than forty characters in total.";
  const entries = buildOutline(plain).entries;
  assert.equal(entries.length, 2);
  assert.equal(entries[1].offset, plain.indexOf("Second"));
  assert.ok(entries[1].head.length <= 40);
  const many = Array.from({ length: 12 }, (_, i) => `# H${i}\ntext`).join("\n");
  assert.equal(buildOutline(many).entries.length, 8);
  assert.equal(buildOutline(many).more, 4);
});

Deno.test("token estimates count CJK characters as tokens", () => {
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("部署时间"), 4);
});
