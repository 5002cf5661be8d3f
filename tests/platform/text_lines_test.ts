import assert from "node:assert/strict";
import {
  decodeUtf8Text,
  firstInvalidUtf8,
  readTextLines,
  type TextLine,
} from "../../src/platform/text_lines.ts";

async function allLines(path: string, options = {}): Promise<TextLine[]> {
  const lines: TextLine[] = [];
  for await (const line of readTextLines(path, options)) lines.push(line);
  return lines;
}

Deno.test("lines far longer than the read buffer come back whole, multi-byte characters split across reads included", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const written = Array.from(
      { length: 300 },
      (_, k) => `${k}: ${"绿茶 — café 🍵 ".repeat(k % 17)}end`,
    );
    Deno.writeTextFileSync(`${dir}/big.jsonl`, `\uFEFF${written.join("\r\n")}\n`);
    let reads = 0;
    // 7-byte reads: every 3- and 4-byte character straddles a read somewhere.
    const lines = await allLines(`${dir}/big.jsonl`, { chunkBytes: 7, onBytes: () => reads++ });
    assert.deepEqual(lines.map((line) => line.text), written);
    assert.deepEqual(lines.map((line) => line.line), written.map((_, k) => k + 1));
    assert.ok(reads > 1000, `${reads} reads`);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a byte that is not UTF-8 is named with its line; the lines around it are read", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const encoder = new TextEncoder();
    const bytes = [
      ...encoder.encode("first\nsecond\nthird "),
      0xc3, // a lead byte with no continuation
      ...encoder.encode("x\n"),
      ...encoder.encode("fourth"),
    ];
    Deno.writeFileSync(`${dir}/mixed.txt`, new Uint8Array(bytes));
    const lines = await allLines(`${dir}/mixed.txt`, { chunkBytes: 4 });
    assert.deepEqual(lines, [
      { line: 1, text: "first" },
      { line: 2, text: "second" },
      { line: 3, error: "not UTF-8 text: byte 0xC3 at byte 7 of the line" },
      { line: 4, text: "fourth" },
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a line longer than the limit is reported, not held, and reading goes on", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/long.txt`, `short\n${"x".repeat(5000)}\nafter\n`);
    const lines = await allLines(`${dir}/long.txt`, { chunkBytes: 64, maxLineBytes: 1000 });
    assert.deepEqual(lines, [
      { line: 1, text: "short" },
      { line: 2, error: "the line is longer than 1000 bytes" },
      { line: 3, text: "after" },
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("lines are handed out while the file is still being written: the reader never waits for the whole file", async () => {
  const dir = Deno.makeTempDirSync();
  const fifo = `${dir}/pipe`;
  try {
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success);
    const events: string[] = [];
    let firstSeen!: () => void;
    const seen = new Promise<void>((resolve) => firstSeen = resolve);
    const writer = (async () => {
      const file = await Deno.open(fifo, { write: true });
      await file.write(new TextEncoder().encode("one\n"));
      // The second line is written only once the reader has the first, or after 10 s (a
      // reader that waits for the end of the file would see "writing two" before "read one").
      let timerId: ReturnType<typeof setTimeout> | undefined;
      const timer = new Promise<void>((resolve) => timerId = setTimeout(resolve, 10_000));
      await Promise.race([seen, timer]);
      clearTimeout(timerId);
      events.push("writing two");
      await file.write(new TextEncoder().encode("two\n"));
      file.close();
    })();
    for await (const line of readTextLines(fifo)) {
      events.push(`read ${line.text}`);
      if (line.text === "one") firstSeen();
    }
    await writer;
    assert.deepEqual(events, ["read one", "writing two", "read two"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("firstInvalidUtf8 finds overlong forms, surrogates and truncated sequences", () => {
  assert.equal(firstInvalidUtf8(new TextEncoder().encode("ok ✓ 🍵")), -1);
  assert.equal(firstInvalidUtf8(new Uint8Array([0x61, 0xc0, 0x80])), 1);
  assert.equal(firstInvalidUtf8(new Uint8Array([0xed, 0xa0, 0x80])), 0);
  assert.equal(firstInvalidUtf8(new Uint8Array([0x61, 0x62, 0xf0, 0x9f])), 2);
  assert.equal(firstInvalidUtf8(new Uint8Array([0xf4, 0x90, 0x80, 0x80])), 0);
});

Deno.test("decodeUtf8Text names the line of a bad byte in a whole note", () => {
  const bytes = new Uint8Array([...new TextEncoder().encode("# Title\n\nbody "), 0xff, 0x0a]);
  assert.deepEqual(decodeUtf8Text(bytes), {
    line: 3,
    error: "not UTF-8 text: byte 0xFF at byte 6 of the line",
  });
  assert.deepEqual(decodeUtf8Text(new TextEncoder().encode("fine")), { text: "fine" });
});
