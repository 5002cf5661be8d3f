import assert from "node:assert/strict";
import { appendLineDurable, rewriteLinesDurable } from "../../src/platform/durable_lines.ts";

Deno.test("rewriteLinesDurable drops lines atomically and later appends land in the new file", () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-rewrite-" });
  try {
    const path = `${dir}/backup.jsonl`;
    assert.equal(rewriteLinesDurable(`${dir}/missing.jsonl`, () => false), 0);
    for (const line of ["keep 1", "drop secret", "keep 2"]) appendLineDurable(path, line);
    // A torn tail (crash mid-append) is kept as it is: nothing reads it as an entry.
    Deno.writeTextFileSync(path, "torn", { append: true });
    const before = Deno.statSync(path).ino;
    assert.equal(rewriteLinesDurable(path, (line) => !line.includes("secret")), 1);
    assert.equal(Deno.readTextFileSync(path), "keep 1\nkeep 2\ntorn");
    assert.notEqual(Deno.statSync(path).ino, before, "a new file took the name");
    appendLineDurable(path, "after");
    assert.equal(Deno.readTextFileSync(path), "keep 1\nkeep 2\ntorn\nafter\n");
    assert.equal(rewriteLinesDurable(path, () => true), 0, "nothing removed, nothing rewritten");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["backup.jsonl"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
