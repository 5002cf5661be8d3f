import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { recordConflict } from "../../src/conflicts/scan.ts";
import { judgeConflict } from "../../src/conflicts/workflow.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { AuthorizationRequired } from "../../src/core/authorization.ts";
import { purgeMemories } from "../../src/govern/purge.ts";
import { contentSha } from "../../src/memory/content_hash.ts";
import { readBackup, replayBackup } from "../../src/memory/backup.ts";
import { readMemory } from "../../src/memory/read.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { findMemories } from "../../src/recall/find.ts";
import { MEMORY_STATUSES } from "../../src/store/types.ts";
import { appendLineDurable } from "../../src/platform/durable_lines.ts";
import { openTestContext, snapshotDatabase, type TestContext } from "../helpers/context.ts";

const SECRET = "zqxvaultcode";
const VECTOR = new Float32Array([1.2345678, 2.3456789, 3.4567891, 4.5678912]);

async function rejects(fn: () => Promise<unknown>, code: string, field?: string): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof MemaError, String(error));
    assert.equal(error.code, code, error.reason);
    if (field !== undefined) assert.equal(error.field, field, error.reason);
    return true;
  });
}

/** How often `needle` occurs in the bytes of the database file and its WAL. */
function occurrences(dbPath: string, needle: Uint8Array): number {
  let count = 0;
  for (const path of [dbPath, `${dbPath}-wal`]) {
    let bytes: Uint8Array;
    try {
      bytes = Deno.readFileSync(path);
    } catch {
      continue;
    }
    outer: for (let i = bytes.indexOf(needle[0]); i >= 0; i = bytes.indexOf(needle[0], i + 1)) {
      for (let j = 1; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
      count++;
    }
  }
  return count;
}

const text = (value: string) => new TextEncoder().encode(value);
const vectorBytes = new Uint8Array(VECTOR.buffer);

function checkpoint(dbPath: string): void {
  const db = new DatabaseSync(dbPath);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}

/** The index's own vocabulary (not mema's frequency table): terms still in its segments. */
function indexTerms(dbPath: string, prefix: string): string[] {
  const db = new DatabaseSync(dbPath);
  try {
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, memories_terms, row)");
    return (db.prepare("SELECT term FROM temp.vocab WHERE term >= ? AND term < ?").all(
      prefix,
      `${prefix}\uffff`,
    ) as { term: string }[]).map((row) => row.term);
  } finally {
    db.close();
  }
}

async function fill(t: TestContext, count: number, from = 0): Promise<number[]> {
  const ids: number[] = [];
  for (let i = from; i < from + count; i++) {
    const { memoryId } = await rememberMemory(t.ctx, {
      content: `Fact number ${i} says the build ${i % 7} runs on node ${i * 13 % 101}.`,
      subject: `fact ${i}`,
      workspace: "acme",
    });
    ids.push(memoryId);
  }
  return ids;
}

/** A secret with history, tags, a follower, vectors, conflicts, jobs and backup copies. */
async function plantSecret(t: TestContext, options: { vectors: boolean }) {
  const [first] = await fill(t, 120);
  const { memoryId: secret } = await rememberMemory(t.ctx, {
    content: `The vault code is ${SECRET}1 and nobody may know it.`,
    subject: `vault ${SECRET}subject`,
    workspace: "acme",
    tags: [`${SECRET}tag`],
  });
  await fill(t, 120, 120);
  await updateMemory(t.ctx, {
    memoryId: secret,
    edit: { kind: "new_content", content: `The vault code is ${SECRET}2 and nobody may know it.` },
  });
  await updateMemory(t.ctx, {
    memoryId: secret,
    edit: { kind: "replace_text", oldText: `${SECRET}2`, newText: `${SECRET}3` },
  });
  await updateMemory(t.ctx, {
    memoryId: secret,
    edit: { kind: "tags_only", addTags: [`${SECRET}extra`], removeTags: [] },
    reason: `tagged ${SECRET}reason`,
  });
  const { memoryId: follower } = await rememberMemory(t.ctx, {
    content: "The next step after the vault is the lobby.",
    subject: "lobby",
    workspace: "acme",
    follows: secret,
  });
  const pair = await recordConflict(t.ctx, {
    memoryIds: [secret, first],
    valueGroups: [
      { value: `${SECRET}3`, memory_ids: [secret] },
      { value: "other", memory_ids: [first] },
    ],
    status: "open",
    reason: `pair about ${SECRET}`,
  });
  const trio = await recordConflict(t.ctx, {
    memoryIds: [secret, first, first + 1],
    valueGroups: [
      { value: `${SECRET}value`, memory_ids: [secret] },
      { value: "red", memory_ids: [first] },
      { value: "blue", memory_ids: [first + 1] },
    ],
    status: "open",
    reason: `trio about ${SECRET}`,
  });
  await judgeConflict(t.ctx, {
    conflictId: trio.conflict_id as number,
    expectedRevision: 1,
    chosenValue: `${SECRET}value`,
    decidedBy: "agent",
    reason: `keep ${SECRET}`,
    applyPlan: [
      { memory_id: secret, action: "use_as_resolution" },
      { memory_id: first, action: "preserve_historical_record" },
      { memory_id: first + 1, action: "preserve_historical_record" },
    ],
  });
  // A resolution that left the other members carrying a replaced claim, held by the secret.
  await t.store.write(async () =>
    await t.store.conflicts.markStale({
      memoryId: first,
      conflictId: trio.conflict_id as number,
      memoryVersion: 1,
      holderIds: [secret],
      chosenValue: `${SECRET}value`,
      now: new Date().toISOString(),
    })
  );
  // Vectors: one marked row of the secret, plain ones elsewhere. (sqlite-vec is extracted
  // once per process into the first test's cache directory, so only one test uses it.)
  if (options.vectors) {
    await t.store.recreateVecTable(VECTOR.length);
    const rows = await t.store.read(async () => await t.store.rowsToEmbed("space", 100_000));
    await t.store.write(async () =>
      await t.store.writeRowVectors(
        "space",
        rows.map((row) => ({
          rowId: row.id,
          vector: row.memoryId === secret ? VECTOR : new Float32Array(4).fill(0.25 + row.id / 1e4),
        })),
      )
    );
  }
  // Saved writes: the remember that created it (replayed), an update not replayed yet, a
  // remember of the same text in another workspace, and an unrelated entry.
  const backup = t.ctx.settings.backupPath!;
  const caller = t.ctx.caller;
  const at = new Date().toISOString();
  const entry = (id: string, action: string, input: unknown) =>
    appendLineDurable(backup, JSON.stringify({ id, at, caller, action, input }));
  entry("e-created", "remember", {
    content: `The vault code is ${SECRET}1 and nobody may know it.`,
    subject: "vault",
    workspace: "acme",
  });
  entry("e-update", "update", {
    memoryId: secret,
    edit: { kind: "new_content", content: `The vault code is ${SECRET}4.` },
  });
  entry("e-copy", "remember", {
    content: `The vault code is ${SECRET}2 and nobody may know it.`,
    subject: "copy",
    workspace: "elsewhere",
  });
  entry("e-other", "remember", { content: "Lunch is at noon.", subject: "lunch", workspace: "x" });
  await t.store.write(async () =>
    await t.store.logReplay({
      entryId: "e-created",
      at,
      outcome: "applied",
      memoryId: secret,
      detail: { saved: `${SECRET}1` },
    })
  );
  return {
    secret,
    follower,
    first,
    pair: pair.conflict_id as number,
    trio: trio.conflict_id as number,
  };
}

async function openWithBackup(): Promise<TestContext> {
  const t = await openTestContext();
  t.ctx.settings.backupPath = `${t.dbPath}.backup.jsonl`;
  return t;
}

Deno.test("purge: every trace of the content leaves the tables, the index, the backup and the file bytes", async () => {
  const t = await openWithBackup();
  try {
    const planted = await plantSecret(t, { vectors: true });
    const { secret } = planted;
    checkpoint(t.dbPath);
    assert.ok(occurrences(t.dbPath, text(SECRET)) > 0, "the secret is in the file before");
    assert.ok(occurrences(t.dbPath, vectorBytes) > 0, "its vector is in the file before");
    assert.ok(indexTerms(t.dbPath, SECRET).length > 0);
    assert.equal((await findMemories(t.ctx, { query: `${SECRET}3` })).items[0]?.memory.id, secret);
    const liveBefore = await t.store.indexedMemories();
    // The process's copy of the vectors holds the secret's before the purge.
    const secretRows = new Set((await t.store.rowsOfMemory(secret)).map((row) => row.id));
    assert.ok((await t.store.nearestRows(VECTOR, 5)).some((n) => secretRows.has(n.rowId)));

    const result = await purgeMemories(t.ctx, {
      memoryId: secret,
      reason: "a code stored by mistake",
      authorized: true,
    });
    assert.deepEqual(result.purgedIds, [secret]);
    assert.equal(result.versionsPurged, 3);
    assert.deepEqual(result.conflictsRemoved, [planted.pair]);
    assert.deepEqual(result.conflictsUpdated, [planted.trio]);
    assert.equal(result.backupEntriesRemoved, 3);
    assert.equal(result.fileRebuilt, false, "a new file needs no rebuild");
    assert.equal(result.walTruncated, true);
    assert.deepEqual(result.warnings, []);

    // Gone from every view.
    await assert.rejects(
      async () => await readMemory(t.ctx, { memoryId: secret }),
      (error: unknown) => {
        assert.ok(error instanceof MemaError && error.code === "not_found");
        return true;
      },
    );
    assert.equal((await findMemories(t.ctx, { query: `${SECRET}3` })).items.length, 0);
    assert.equal(
      (await findMemories(t.ctx, { query: "nobody may know", status: "any" })).items.length,
      0,
    );
    assert.deepEqual(await t.store.listHistory(secret), []);
    assert.deepEqual(await t.store.rowsOfMemory(secret), []);
    const nearest = await t.store.nearestRows(VECTOR, 5);
    assert.ok(nearest.length > 0);
    assert.ok(nearest.every((n) => !secretRows.has(n.rowId)), "nor in the copy of the vectors");
    const owners = await t.store.currentRowOwners(nearest.map((n) => n.rowId), {
      statuses: MEMORY_STATUSES,
    });
    assert.ok(owners.size > 0 && [...owners.values()].every((id) => id !== secret));
    const tombstone = (await t.store.getMemory(secret))!;
    assert.deepEqual(
      [tombstone.status, tombstone.subject, tombstone.content, tombstone.tags],
      ["deleted", "", "", []],
    );
    assert.equal((await t.store.getMemory(planted.follower))!.follows, null);
    assert.equal(await t.store.conflicts.get(planted.pair), undefined);
    const trio = (await t.store.conflicts.get(planted.trio))!;
    assert.deepEqual(trio.members.map((m) => m.memory_id), [planted.first, planted.first + 1]);
    assert.equal(trio.status, "open", "the decision rested on the purged value");
    assert.equal(trio.chosenValue, null);
    assert.deepEqual(trio.plan, []);
    assert.ok(!JSON.stringify(trio).includes(SECRET), JSON.stringify(trio));
    assert.deepEqual(
      (await t.store.conflicts.staleClaimsOf([planted.first])).get(planted.first) ?? [],
      [],
      "the replaced claim quoted the purged value",
    );
    const notices = await t.store.conflicts.notices({
      statuses: ["pending", "delivered", "dismissed", "resolved"],
      limit: 100,
      offset: 0,
    });
    assert.ok(!JSON.stringify(notices).includes(SECRET));
    // Index and frequencies: no token left, and the document count dropped by one.
    assert.deepEqual(indexTerms(t.dbPath, SECRET), []);
    assert.equal((await t.store.tokenFrequencies([`${SECRET}tag`])).get(`${SECRET}tag`), 0);
    assert.equal(await t.store.indexedMemories(), liveBefore - 1);
    // Audit: ids, hashes and the purge's reason; earlier rows lost their text.
    const audit = (await t.store.listAudit({ limit: 100, offset: 0 })).rows;
    assert.ok(!JSON.stringify(audit).includes(SECRET), JSON.stringify(audit));
    const purgeRow = audit.find((row) => row.action === "purge")!;
    assert.equal(purgeRow.memoryId, secret);
    assert.equal(purgeRow.reason, "a code stored by mistake");
    assert.equal(
      purgeRow.detail.content_sha,
      contentSha(`The vault code is ${SECRET}3 and nobody may know it.`),
    );
    const tagRow = audit.find((row) => row.action === "update_tags")!;
    assert.equal(tagRow.reason, null);
    assert.equal(tagRow.detail.scrubbed_by_purge, true);
    // Backup: only the unrelated entry is left, and replay brings nothing back.
    const saved = readBackup(t.ctx.settings.backupPath!).entries;
    assert.deepEqual(saved.map((e) => e.id), ["e-other"]);
    assert.ok(!Deno.readTextFileSync(t.ctx.settings.backupPath!).includes(SECRET));
    // The database file and its WAL: not a byte of the text or the vector.
    assert.equal(occurrences(t.dbPath, text(SECRET)), 0);
    assert.equal(occurrences(t.dbPath, vectorBytes), 0);
    // Purging it again: it does not exist any more.
    await rejects(
      () => purgeMemories(t.ctx, { memoryId: secret, reason: "again", authorized: true }),
      "not_found",
      "memory_id",
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("purge: refusals, unknown ids and bad input change nothing", async () => {
  const t = await openWithBackup();
  try {
    const [a, b] = await fill(t, 3);
    const before = snapshotDatabase(t.dbPath);
    await assert.rejects(
      () => purgeMemories(t.ctx, { memoryIds: [a, b], reason: "secret" }),
      (error: unknown) => {
        assert.ok(error instanceof AuthorizationRequired);
        assert.deepEqual(error.request.memoryIds, [a, b]);
        assert.match(error.request.impact, /permanently/);
        return true;
      },
    );
    await rejects(
      () => purgeMemories(t.ctx, { memoryIds: [a, 999], reason: "x", authorized: true }),
      "not_found",
      "memory_ids.1",
    );
    await rejects(
      () => purgeMemories(t.ctx, { memoryId: a, memoryIds: [b], reason: "x", authorized: true }),
      "invalid_input",
      "memory_id",
    );
    await rejects(
      () => purgeMemories(t.ctx, { reason: "x", authorized: true }),
      "invalid_input",
      "memory_id",
    );
    await rejects(
      () => purgeMemories(t.ctx, { memoryId: a, reason: "  ", authorized: true }),
      "invalid_input",
      "reason",
    );
    await rejects(
      () => purgeMemories(t.ctx, { memoryIds: [a, -2], reason: "x", authorized: true }),
      "invalid_input",
      "memory_ids.1",
    );
    await rejects(
      () => purgeMemories(t.ctx, { memoryIds: [], reason: "x", authorized: true }),
      "invalid_input",
      "memory_ids",
    );
    assert.equal(snapshotDatabase(t.dbPath), before);
    assert.ok((await t.store.getMemory(a))!.status === "active");
  } finally {
    t.cleanup();
  }
});

Deno.test("purge: a database written before secure_delete is rebuilt once, then stays clean", async () => {
  const t = await openWithBackup();
  try {
    const secret = (await rememberMemory(t.ctx, {
      content: `Old build secret ${SECRET}9 here.`,
      subject: "old",
      workspace: "acme",
    })).memoryId;
    await fill(t, 40);
    // An older build: no secure_delete, so deleted text stayed in the file's free pages.
    const old = new DatabaseSync(t.dbPath);
    old.exec("PRAGMA secure_delete = OFF");
    old.exec("DELETE FROM meta WHERE key = 'secure_delete_since'");
    old.exec(`CREATE TABLE scratch(x); INSERT INTO scratch VALUES ('${SECRET}9 leftover');`);
    old.exec("DROP TABLE scratch");
    old.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    old.close();
    assert.ok(occurrences(t.dbPath, text(`${SECRET}9 leftover`)) > 0);
    const first = await purgeMemories(t.ctx, { memoryId: secret, reason: "old", authorized: true });
    assert.equal(first.fileRebuilt, true);
    assert.equal(occurrences(t.dbPath, text(SECRET)), 0);
    assert.ok((await findMemories(t.ctx, { query: "fact number 3" })).items.length > 0);
    const second = await purgeMemories(t.ctx, {
      memoryId: secret + 1,
      reason: "again",
      authorized: true,
    });
    assert.equal(second.fileRebuilt, false, "the rebuild happens once");
  } finally {
    t.cleanup();
  }
});

Deno.test("purge: replay after a purge does not bring the content back", async () => {
  const t = await openWithBackup();
  try {
    const { secret } = await plantSecret(t, { vectors: false });
    const backup = t.ctx.settings.backupPath!;
    await purgeMemories(t.ctx, { memoryIds: [secret], reason: "mistake", authorized: true });
    // A copy of an old backup file restored by the user still holds the lines.
    appendLineDurable(
      backup,
      JSON.stringify({
        id: "e-copy",
        at: new Date().toISOString(),
        caller: t.ctx.caller,
        action: "remember",
        input: {
          content: `The vault code is ${SECRET}2.`,
          subject: "copy",
          workspace: "elsewhere",
        },
      }),
    );
    const report = await replayBackup(t.ctx, {
      dryRun: false,
      authorized: true,
      limit: 100,
      offset: 0,
    });
    assert.equal(report.applied, 1, "only the unrelated entry applies");
    assert.equal(
      (await findMemories(t.ctx, { query: `${SECRET}2`, status: "any" })).items.length,
      0,
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("purge: under strict isolation another workspace's memory is not found", async () => {
  const t = await openWithBackup();
  try {
    const { memoryId: theirs } = await rememberMemory(t.ctx, {
      content: "Beta's deploy key is kept in the vault.",
      subject: "beta key",
      workspace: "beta",
    });
    const strict = {
      ...t.ctx,
      caller: { ...t.ctx.caller, workspace: "alpha" },
      settings: { ...t.ctx.settings, workspaceIsolation: "strict" as const },
    };
    await rejects(
      () => purgeMemories(strict, { memoryId: theirs, reason: "x", authorized: true }),
      "not_found",
      "memory_id",
    );
    assert.equal((await t.store.getMemory(theirs))!.status, "active");
  } finally {
    t.cleanup();
  }
});
