import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openTestContext } from "../helpers/context.ts";

async function invalidField(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof MemaError, String(error));
    assert.equal(error.code, "invalid_input", error.reason);
    return error.field;
  }
  throw new Error("expected invalid_input");
}

Deno.test("remember and update refuse unstorable text and deep metadata for any caller", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const base = { content: "clean", subject: "clean", workspace: "w" };
    const { memoryId } = await rememberMemory(t.ctx, base);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) deep = { a: deep };
    const cases: [() => Promise<unknown>, string][] = [
      [() => rememberMemory(t.ctx, { ...base, content: "x\u0000y" }), "content"],
      [() => rememberMemory(t.ctx, { ...base, subject: "x\ud800" }), "subject"],
      [() => rememberMemory(t.ctx, { ...base, tags: ["\udfff"] }), "tags.0"],
      [() => rememberMemory(t.ctx, { ...base, metadata: { k: "\u0000" } }), "metadata.k"],
      [() => rememberMemory(t.ctx, { ...base, metadata: deep }), "metadata"],
      [
        () => updateMemory(t.ctx, { memoryId, edit: { kind: "new_content", content: "\u0000" } }),
        "new_content",
      ],
      [
        () =>
          updateMemory(t.ctx, { memoryId, edit: { kind: "metadata_only" }, newSubject: "\ud800" }),
        "new_subject",
      ],
      [
        () =>
          updateMemory(t.ctx, {
            memoryId,
            edit: { kind: "replace_text", oldText: "clean", newText: "c\u0000" },
          }),
        "content",
      ],
    ];
    for (const [run, field] of cases) assert.equal(await invalidField(run), field);
    assert.equal((await t.store.getMemory(memoryId))!.version, 1);
    assert.equal(await t.store.getMemory(memoryId + 1), undefined);
  } finally {
    t.cleanup();
  }
});
