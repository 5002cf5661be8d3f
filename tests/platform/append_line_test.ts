/**
 * `appendLineDurable` (the JSONL backup and the scan log): a line is either
 * wholly on disk, newline included, or not there at all, and a torn tail left by
 * an earlier crash never swallows the next line (issue 12 item 5).
 */
import assert from "node:assert/strict";
import { appendLineDurable } from "../../src/platform/durable_lines.ts";
import { canMountTmpfs, fillDisk, mountTmpfs, unmount } from "../helpers/tmpfs.ts";

Deno.test("appendLineDurable starts a fresh line after a torn tail", () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-append-" });
  try {
    const path = `${dir}/log.jsonl`;
    appendLineDurable(path, '{"n":1}');
    Deno.writeTextFileSync(path, '{"n":2,"torn', { append: true });
    appendLineDurable(path, '{"n":3}');
    appendLineDurable(path, '{"n":4}');
    assert.equal(Deno.readTextFileSync(path), '{"n":1}\n{"n":2,"torn\n{"n":3}\n{"n":4}\n');
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test({
  name: "appendLineDurable cuts its own half-written line when the disk fills mid-append",
  ignore: !canMountTmpfs(),
  async fn() {
    const dir = Deno.makeTempDirSync({ prefix: "mema-append-" });
    mountTmpfs(dir, "64k");
    try {
      const path = `${dir}/log.jsonl`;
      appendLineDurable(path, '{"n":1}');
      fillDisk(dir);
      // The file's last page still has room for part of the line, then the disk is full.
      const long = JSON.stringify({ n: 2, text: "x".repeat(20_000) });
      assert.throws(() => appendLineDurable(path, long), /No space left/);
      const left = Deno.readTextFileSync(path);
      assert.ok(left === '{"n":1}\n', `a half line is left behind (${left.length} bytes)`);

      Deno.removeSync(`${dir}/filler`);
      appendLineDurable(path, '{"n":3}');
      assert.equal(Deno.readTextFileSync(path), '{"n":1}\n{"n":3}\n');
    } finally {
      await unmount(dir);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
