import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { readMemories, readMemory } from "../../src/memory/read.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("read returns the whole content or an exact UTF-16 span", async () => {
  const t = await openTestContext();
  try {
    const content = "emoji 🚀 then 部署 and more";
    const { memoryId } = await rememberMemory(t.ctx, { content, subject: "s", workspace: "w" });
    assert.equal((await readMemory(t.ctx, { memoryId })).content, content);
    const start = content.indexOf("🚀");
    const part = await readMemory(t.ctx, { memoryId, span: { start, end: start + 2 } });
    assert.equal(part.content, "🚀");
    assert.deepEqual(part.span, { start, end: start + 2, totalChars: content.length });
  } finally {
    t.cleanup();
  }
});

Deno.test("read rejects spans outside the content and unknown ids", async () => {
  const t = await openTestContext();
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: "0123456789",
      subject: "s",
      workspace: "w",
    });
    for (
      const span of [{ start: 5, end: 5 }, { start: 6, end: 2 }, { start: 0, end: 11 }, {
        start: -1,
        end: 3,
      }]
    ) {
      await assert.rejects(
        async () => await readMemory(t.ctx, { memoryId, span }),
        (e: unknown) => e instanceof MemaError && e.code === "invalid_input",
      );
    }
    await assert.rejects(
      async () => await readMemory(t.ctx, { memoryId: 42 }),
      (e: unknown) => e instanceof MemaError && e.code === "not_found",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("batch read reports missing ids per entry and rejects spans of absent ids", async () => {
  const t = await openTestContext();
  try {
    const a = (await rememberMemory(t.ctx, { content: "first fact", subject: "a", workspace: "w" }))
      .memoryId;
    const entries = await readMemories(t.ctx, {
      memoryIds: [a, 77],
      spans: { [a]: { start: 0, end: 5 } },
    });
    assert.equal(entries[0].ok && entries[0].result.content, "first");
    assert.equal(entries[1].ok, false);
    await assert.rejects(
      async () =>
        await readMemories(t.ctx, { memoryIds: [a], spans: { "9": { start: 0, end: 1 } } }),
      (e: unknown) => e instanceof MemaError && e.field === "spans.9",
    );
  } finally {
    t.cleanup();
  }
});
