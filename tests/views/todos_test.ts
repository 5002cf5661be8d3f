/**
 * The todo list (`memory://todos`): open todos first, then todos completed in the last 7
 * days (their `todo` tag taken off), inside the token budget; older completions drop off.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { TODO_DONE_WINDOW_MS, todoList } from "../../src/views/todos.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("todo list: open first, recent completions after, older completions gone, budget kept", async () => {
  const t = await openTestContext();
  try {
    const remember = async (content: string, tags: string[], workspace = "infra") =>
      (await rememberMemory(t.ctx, { content, subject: "chores", tags, workspace })).memoryId;
    const open = await remember("Rotate the staging keys before the audit.", ["todo", "security"]);
    const done = await remember("Renew the TLS certificate for the docs site.", ["todo"]);
    const plain = await remember("The docs site runs on port 8443.", ["docs"]);
    const elsewhere = await remember("Buy milk.", ["todo"], "home");
    await updateMemory(t.ctx, {
      memoryId: done,
      edit: { kind: "tags_only", addTags: ["done"], removeTags: ["todo"] },
    });

    const list = await todoList(t.ctx, { workspace: "infra" });
    assert.deepEqual(list.pending.map((m) => m.id), [open]);
    assert.deepEqual(list.completed.map((c) => c.memory.id), [done]);
    assert.ok(list.text.indexOf(`[${open}]`) < list.text.indexOf(`[${done}]`), list.text);
    assert.match(list.text, /## Completed in the last 7 days/);
    assert.ok(!list.text.includes(`[${plain}]`), "a fact never tagged todo is not a todo");
    assert.ok(!list.text.includes(`[${elsewhere}]`), "another workspace stays out");

    const later = new Date(Date.now() + TODO_DONE_WINDOW_MS + 60_000);
    const week = await todoList(t.ctx, { workspace: "infra", now: later });
    assert.deepEqual(week.completed, [], "a completion older than 7 days drops off");
    assert.deepEqual(week.pending.map((m) => m.id), [open]);

    for (let i = 0; i < 60; i++) {
      await remember(`Open chore number ${i} with enough words to cost a few tokens.`, ["todo"]);
    }
    const small = await todoList(t.ctx, { workspace: "infra", budget: 200 });
    assert.ok(small.tokensEstimate <= 200, String(small.tokensEstimate));
    assert.ok(small.omitted > 0);
    assert.match(small.text, /left out for the 200-token budget/);

    await assert.rejects(() => todoList(t.ctx, { budget: 5 }), /tokens must be an integer/);
  } finally {
    t.cleanup();
  }
});
