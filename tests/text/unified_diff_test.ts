import assert from "node:assert/strict";
import { unifiedDiff } from "../../src/text/unified_diff.ts";

const labels = { fromLabel: "v1", toLabel: "v2" };

Deno.test("a one-line change reads like git diff", () => {
  assert.equal(
    unifiedDiff("a\nb\nc\n", "a\nB\nc\n", labels),
    "--- v1\n+++ v2\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
  );
  assert.equal(unifiedDiff("same", "same", labels), "");
});

Deno.test("distant changes become separate hunks with three lines of context", () => {
  const from = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
  const to = from.replace("line 2\n", "line two\n").replace("line 19", "line nineteen");
  const diff = unifiedDiff(from, to, labels);
  const hunks = diff.split("\n").filter((line) => line.startsWith("@@"));
  assert.deepEqual(hunks, ["@@ -1,5 +1,5 @@", "@@ -16,5 +16,5 @@"]);
});

Deno.test("applying the diff's lines rebuilds both texts", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 200; round++) {
    const lines = Array.from(
      { length: Math.floor(random() * 12) },
      () => `w${Math.floor(random() * 5)}`,
    );
    const changed = lines.flatMap((line) =>
      random() < 0.2 ? [] : random() < 0.2 ? [line, `n${Math.floor(random() * 5)}`] : [line]
    );
    const from = lines.join("\n");
    const to = changed.join("\n");
    const diff = unifiedDiff(from, to, { ...labels, context: 1000 });
    if (from === to) continue;
    const body = diff.split("\n").slice(3, -1);
    assert.equal(body.filter((l) => l[0] !== "+").map((l) => l.slice(1)).join("\n"), from);
    assert.equal(body.filter((l) => l[0] !== "-").map((l) => l.slice(1)).join("\n"), to);
  }
});
