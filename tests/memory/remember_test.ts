import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { AuthorizationRequired } from "../../src/core/authorization.ts";
import { contentSha } from "../../src/memory/content_hash.ts";
import { replayBackup } from "../../src/memory/backup.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openTestContext, snapshotDatabase } from "../helpers/context.ts";

Deno.test("remember stores content verbatim with provenance", async () => {
  const t = await openTestContext();
  try {
    const content = "  Deploys run on Tuesdays.\n\n| env | day |\n";
    const result = await rememberMemory(t.ctx, {
      content,
      subject: " deploy day ",
      workspace: "My_Project",
      tags: ["Ops", "ops", " Deploy "],
      eventTime: "2025-03-14",
      sourceRef: "README.md#deploy",
    });
    assert.equal(result.version, 1);
    assert.equal(result.duplicateReplay, false);
    const stored = (await t.store.getMemory(result.memoryId))!;
    assert.equal(stored.content, content);
    assert.equal(stored.contentSha, contentSha(content));
    assert.equal(stored.subject, " deploy day ", "the subject is stored as sent, spaces included");
    assert.deepEqual(stored.tags, ["ops", "deploy"]);
    assert.equal(stored.workspace, "My_Project");
    assert.equal(stored.workspaceCanonical, "my-project");
    assert.equal(stored.eventTime, "2025-03-14T00:00:00.000Z");
    assert.equal(stored.agentId, "unit-agent");
    assert.equal(stored.client, "unit");
    assert.equal(stored.sourceType, "agent_generated");
    assert.equal(stored.sourceRef, "README.md#deploy");
  } finally {
    t.cleanup();
  }
});

Deno.test("identical content in the same workspace replays the existing id", async () => {
  const t = await openTestContext();
  try {
    const first = await rememberMemory(t.ctx, { content: "A fact.", subject: "a", workspace: "w" });
    const before = snapshotDatabase(t.dbPath);
    const again = await rememberMemory(t.ctx, {
      content: "A fact.",
      subject: "other",
      workspace: "W",
    });
    assert.equal(again.memoryId, first.memoryId);
    assert.equal(again.duplicateReplay, true);
    assert.equal(snapshotDatabase(t.dbPath), before);
    const elsewhere = await rememberMemory(t.ctx, {
      content: "A fact.",
      subject: "a",
      workspace: "x",
    });
    assert.notEqual(elsewhere.memoryId, first.memoryId);
  } finally {
    t.cleanup();
  }
});

Deno.test("user_confirmed memories need authorization and are locked", async () => {
  const t = await openTestContext();
  try {
    const before = snapshotDatabase(t.dbPath);
    await assert.rejects(
      () =>
        rememberMemory(t.ctx, {
          content: "The user's name is Ada.",
          subject: "name",
          workspace: "default",
          sourceType: "user_confirmed",
        }),
      (error: unknown) =>
        error instanceof AuthorizationRequired && /user_confirmed/.test(error.message),
    );
    assert.equal(snapshotDatabase(t.dbPath), before);
    const { memoryId } = await rememberMemory(t.ctx, {
      authorized: true,
      content: "The user's name is Ada.",
      subject: "name",
      workspace: "default",
      sourceType: "user_confirmed",
      protectionLevel: "normal",
    });
    assert.equal((await t.store.getMemory(memoryId))!.protectionLevel, "locked");
  } finally {
    t.cleanup();
  }
});

Deno.test("remember rejects bad input and writes nothing", async () => {
  const t = await openTestContext();
  try {
    await rememberMemory(t.ctx, { content: "seed", subject: "seed", workspace: "w" });
    const before = snapshotDatabase(t.dbPath);
    const cases: [Parameters<typeof rememberMemory>[1], string, string][] = [
      [{ content: "   ", subject: "s", workspace: "w" }, "invalid_input", "content"],
      [{ content: "x", subject: "  ", workspace: "w" }, "invalid_input", "subject"],
      [
        { content: "x".repeat(2 * 1024 * 1024 + 1), subject: "s", workspace: "w" },
        "resource_limit_exceeded",
        "content",
      ],
      [
        { content: "é".repeat(1024 * 1024 + 1), subject: "s", workspace: "w" },
        "resource_limit_exceeded",
        "content",
      ],
      [
        { content: "x", subject: "s".repeat(513), workspace: "w" },
        "resource_limit_exceeded",
        "subject",
      ],
      [
        {
          content: "x",
          subject: "s",
          workspace: "w",
          tags: Array.from({ length: 33 }, (_, i) => `t${i}`),
        },
        "resource_limit_exceeded",
        "tags",
      ],
      [{ content: "x", subject: "s", workspace: "w", tags: [""] }, "invalid_input", "tags.0"],
      [
        { content: "x", subject: "s", workspace: "w", eventTime: "last tuesday" },
        "invalid_input",
        "event_time",
      ],
      [
        { content: "x", subject: "s", workspace: "w", eventTime: "2025-13-40" },
        "invalid_input",
        "event_time",
      ],
      [
        { content: "x", subject: "s", workspace: "w", metadata: { big: "m".repeat(70_000) } },
        "resource_limit_exceeded",
        "metadata",
      ],
    ];
    for (const [input, code, field] of cases) {
      await assert.rejects(
        () => rememberMemory(t.ctx, input),
        (error: unknown) =>
          error instanceof MemaError && error.code === code && error.field === field,
        `${code} on ${field}`,
      );
    }
    assert.equal(snapshotDatabase(t.dbPath), before);
  } finally {
    t.cleanup();
  }
});

Deno.test("a backed-up remember whose follows no longer resolves is replayed without the link", async () => {
  const t = await openTestContext();
  try {
    const backupPath = `${t.dir}/mema.sqlite3.backup.jsonl`;
    t.ctx.settings.backupPath = backupPath;
    const entry = {
      id: "entry-1",
      at: "2025-01-01T00:00:00.000Z",
      caller: t.ctx.caller,
      action: "remember",
      input: { content: "Melanie: Lake Tahoe.", subject: "chat", workspace: "w", follows: 4242 },
    };
    Deno.writeTextFileSync(backupPath, JSON.stringify(entry) + "\n");
    const report = await replayBackup(t.ctx, {
      dryRun: false,
      authorized: true,
      limit: 10,
      offset: 0,
    });
    assert.deepEqual([report.applied, report.rejected], [1, 0]);
    const stored = await t.store.getMemory(report.items[0].memoryId!);
    assert.equal(stored?.content, "Melanie: Lake Tahoe.");
    assert.equal(stored?.follows, null);
  } finally {
    t.cleanup();
  }
});
