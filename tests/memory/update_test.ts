import assert from "node:assert/strict";
import { MemaError } from "../../src/errors/mod.ts";
import { contentSha } from "../../src/memory/content_hash.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openTestContext, snapshotDatabase } from "../helpers/context.ts";

async function rejects(fn: () => Promise<unknown>, code: string, field?: string): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof MemaError, String(error));
    assert.equal(error.code, code, error.reason);
    if (field !== undefined) assert.equal(error.field, field, error.reason);
    return true;
  });
}

Deno.test("each content mode bumps the version and keeps the old text in history", async () => {
  const t = await openTestContext();
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: "Deploys on Tuesday. Freeze in December.",
      subject: "deploys",
      workspace: "w",
      tags: ["ops"],
    });
    let r = await updateMemory(t.ctx, {
      memoryId,
      edit: { kind: "replace_text", oldText: "Tuesday", newText: "Wednesday" },
      reason: "moved",
    });
    assert.equal(r.version, 2);
    r = await updateMemory(t.ctx, {
      memoryId,
      edit: {
        kind: "patches",
        patches: [{ oldText: "Wednesday", newText: "Thursday" }, {
          oldText: "December",
          newText: "August",
        }],
      },
      expectedVersion: 2,
    });
    assert.equal(r.version, 3);
    r = await updateMemory(t.ctx, {
      memoryId,
      edit: { kind: "new_content", content: "No deploys at all." },
      expectedContentHash: contentSha("Deploys on Thursday. Freeze in August."),
      newSubject: "deploy policy",
    });
    assert.equal(r.version, 4);
    const current = (await t.store.getMemory(memoryId))!;
    assert.equal(current.content, "No deploys at all.");
    assert.equal(current.subject, "deploy policy");
    const history = await t.store.listHistory(memoryId);
    assert.deepEqual(history.map((h) => [h.version, h.content]), [
      [1, "Deploys on Tuesday. Freeze in December."],
      [2, "Deploys on Wednesday. Freeze in December."],
      [3, "Deploys on Thursday. Freeze in August."],
    ]);
    assert.equal(history[0].reason, "moved");
    assert.equal(history[0].changedBy, "unit-agent");
  } finally {
    t.cleanup();
  }
});

Deno.test("tags_only changes tags without history or a version bump, but audits", async () => {
  const t = await openTestContext();
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: "Write the release notes",
      subject: "release notes",
      workspace: "w",
      tags: ["todo", "release"],
    });
    const r = await updateMemory(t.ctx, {
      memoryId,
      edit: { kind: "tags_only", addTags: ["Done"], removeTags: ["TODO"] },
    });
    assert.equal(r.version, 1);
    assert.deepEqual((await t.store.getMemory(memoryId))!.tags, ["release", "done"]);
    assert.equal((await t.store.listHistory(memoryId)).length, 0);
    const audit = snapshotDatabase(t.dbPath).split("\n")[2];
    assert.match(audit, /update_tags/);
  } finally {
    t.cleanup();
  }
});

Deno.test("an update that changes nothing writes nothing", async () => {
  const t = await openTestContext();
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: "same",
      subject: "s",
      workspace: "w",
    });
    const before = snapshotDatabase(t.dbPath);
    const r = await updateMemory(t.ctx, {
      memoryId,
      edit: { kind: "new_content", content: "same" },
    });
    assert.equal(r.unchanged, true);
    assert.equal(r.version, 1);
    assert.equal(snapshotDatabase(t.dbPath), before);
  } finally {
    t.cleanup();
  }
});

Deno.test("failed updates leave the database unchanged", async () => {
  const t = await openTestContext();
  try {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: "alpha beta alpha",
      subject: "s",
      workspace: "w",
    });
    await rememberMemory(t.ctx, { content: "taken", subject: "t", workspace: "w" });
    const before = snapshotDatabase(t.dbPath);
    await rejects(
      () => updateMemory(t.ctx, { memoryId: 999, edit: { kind: "new_content", content: "x" } }),
      "not_found",
      "memory_id",
    );
    await rejects(
      () =>
        updateMemory(t.ctx, {
          memoryId,
          edit: { kind: "new_content", content: "x" },
          expectedVersion: 2,
        }),
      "version_conflict",
      "expected_version",
    );
    await rejects(
      () =>
        updateMemory(t.ctx, {
          memoryId,
          edit: { kind: "new_content", content: "x" },
          expectedContentHash: "0".repeat(64),
        }),
      "version_conflict",
      "expected_content_hash",
    );
    await rejects(
      () =>
        updateMemory(t.ctx, {
          memoryId,
          edit: { kind: "replace_text", oldText: "gamma", newText: "x" },
        }),
      "invalid_input",
      "old_text",
    );
    await rejects(
      () =>
        updateMemory(t.ctx, {
          memoryId,
          edit: { kind: "replace_text", oldText: "alpha", newText: "x" },
        }),
      "invalid_input",
      "old_text",
    );
    await rejects(
      () =>
        updateMemory(t.ctx, {
          memoryId,
          edit: {
            kind: "patches",
            patches: [{ oldText: "beta", newText: "B" }, { oldText: "missing", newText: "x" }],
          },
        }),
      "invalid_input",
      "patches.1.old_text",
    );
    await rejects(
      () => updateMemory(t.ctx, { memoryId, edit: { kind: "new_content", content: "taken" } }),
      "duplicate_content",
    );
    await rejects(
      () => updateMemory(t.ctx, { memoryId, edit: { kind: "new_content", content: "  " } }),
      "invalid_input",
    );
    await rejects(
      () =>
        updateMemory(t.ctx, {
          memoryId,
          edit: { kind: "new_content", content: "x".repeat(2 * 1024 * 1024 + 1) },
        }),
      "resource_limit_exceeded",
      "new_content",
    );
    assert.equal(snapshotDatabase(t.dbPath), before);
  } finally {
    t.cleanup();
  }
});
