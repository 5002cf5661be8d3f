/**
 * The write path's announcements: listeners run in the order they subscribed, each awaited, inside
 * the write's unit of work, so a write and what its listeners queue commit or roll back together.
 * @module
 */
import assert from "node:assert/strict";
import { MemoryEvents } from "../../src/core/memory_events.ts";
import { rememberInTransaction, rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openTestContext } from "../helpers/context.ts";

Deno.test("listeners run one after another, in the order they subscribed", async () => {
  const { ctx, cleanup } = await openTestContext({ skipVec: true });
  try {
    const seen: string[] = [];
    const events = new MemoryEvents();
    events.onWritten(async (_store, fact) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(`first ${fact.memoryId}@${fact.version}`);
    });
    events.onWritten((_store, fact) => {
      seen.push(`second ${fact.memoryId}@${fact.version}`);
      return Promise.resolve();
    });
    const writer = { ...ctx, events };
    const { memoryId } = await rememberMemory(writer, {
      subject: "deploy day",
      content: "Deploys run on Fridays.",
      workspace: "infra",
    });
    await updateMemory(writer, {
      memoryId,
      edit: { kind: "new_content", content: "Deploys run on Mondays." },
    });
    assert.deepEqual(seen, [
      `first ${memoryId}@1`,
      `second ${memoryId}@1`,
      `first ${memoryId}@2`,
      `second ${memoryId}@2`,
    ]);
  } finally {
    cleanup();
  }
});

Deno.test("a listener that fails takes the write back with it", async () => {
  const { ctx, store, cleanup } = await openTestContext({ skipVec: true });
  try {
    const events = new MemoryEvents();
    events.onWritten(() => Promise.reject(new Error("the listener broke")));
    await assert.rejects(
      rememberMemory({ ...ctx, events }, {
        subject: "editor",
        content: "The team uses Helix.",
        workspace: "tools",
      }),
      /the listener broke/,
    );
    assert.equal(await store.getMemory(1), undefined);
  } finally {
    cleanup();
  }
});

Deno.test("a bulk writer's batch hands its facts to batched listeners once, when it settles", async () => {
  const { ctx, cleanup } = await openTestContext({ skipVec: true });
  try {
    const seen: string[] = [];
    const events = new MemoryEvents();
    events.onWritten((_store, fact) => {
      seen.push(`each ${fact.memoryId}`);
      return Promise.resolve();
    });
    events.onWritten((_store, fact) => {
      seen.push(`planned alone ${fact.memoryId}`);
      return Promise.resolve();
    }, {
      batched: (_store, facts) => {
        seen.push(`planned batch ${facts.map((fact) => fact.memoryId).join(",")}`);
        return Promise.resolve();
      },
    });
    const ids = await ctx.store.write(async () => {
      const batch = events.batch();
      const written: number[] = [];
      for (const content of ["Deploys run on Fridays.", "The staging database is PostgreSQL 14."]) {
        written.push(
          (await rememberInTransaction({ ...ctx, events: batch }, {
            subject: "ops",
            content,
            workspace: "infra",
          })).memoryId,
        );
      }
      assert.deepEqual(seen, written.map((id) => `each ${id}`), "held until the batch settles");
      await batch.settleBatch(ctx.store);
      return written;
    });
    // Outside a batch the same listener sees each fact as it is written.
    const { memoryId } = await rememberMemory({ ...ctx, events }, {
      subject: "ops",
      content: "Backups run nightly.",
      workspace: "infra",
    });
    assert.deepEqual(seen, [
      `each ${ids[0]}`,
      `each ${ids[1]}`,
      `planned batch ${ids.join(",")}`,
      `each ${memoryId}`,
      `planned alone ${memoryId}`,
    ]);
  } finally {
    cleanup();
  }
});
