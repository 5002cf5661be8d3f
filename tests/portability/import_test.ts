import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openStore } from "../../src/store/mod.ts";
import { snapshotDatabase } from "../helpers/context.ts";
import { makeTempHome, runCli, type TempHome } from "../helpers/server.ts";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";

type Row = Record<string, unknown>;

/** A library with every kind of field set, written through the write path. */
async function seedLibrary(home: TempHome): Promise<void> {
  Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
  const store = await openStore(home.dbPath, { cacheDir: `${home.dir}/cache`, skipVec: true });
  const as = (client: string, agentId: string) => ({
    store,
    caller: { client, agentId },
    settings: { workspaceIsolation: "none" as const, includeSize: true },
    events: composeMemoryEvents(),
  });
  try {
    const cursor = as("cursor", "cursor-main");
    const first = await rememberMemory(cursor, {
      subject: "Deploy window",
      content: "Deploys run on Fridays after 14:00.\n",
      workspace: "My_Infra",
      tags: ["ops", "deploy"],
      sourceRef: "docs/deploy.md",
      eventTime: "2025-03-01T09:30:00Z",
      confidence: 0.9,
    });
    await updateMemory(as("claude", "claude-code"), {
      memoryId: first.memoryId,
      edit: { kind: "new_content", content: "Deploys run on Mondays after 14:00.\n" },
      newTags: ["ops", "deploy", "changed"],
      reason: "the window moved",
    });
    await rememberMemory(cursor, {
      subject: "Rollback step",
      content: "Roll back with `make rollback`; it takes 4 minutes.",
      workspace: "my-infra",
      follows: first.memoryId,
      protectionLevel: "protected",
    });
    await rememberMemory(as("desktop", "claude-desktop"), {
      subject: "用户偏好：茶",
      content:
        "The user drinks green tea — 绿茶 — every morning.\n\n| day | tea |\n|---|---|\n| Mon | sencha |\n",
      workspace: "default",
      sourceType: "user_confirmed",
      authorized: true,
      metadata: { origin: "chat", turn: 3, nested: { ok: [1, "two"] } },
    });
    // Validity windows: one read from the words, one stated as none although the words name
    // one (an import must not read it back in).
    await rememberMemory(cursor, {
      subject: "Staging port",
      content: "The staging port is 5433 from 1 March 2025 until 30 June 2025.",
      workspace: "my-infra",
    });
    await rememberMemory(cursor, {
      subject: "Office",
      content: "We have rented the office since 2023.",
      workspace: "my-infra",
      validFrom: null,
      validTo: null,
    });
    await rememberMemory(cursor, {
      subject: "Draft idea",
      content: "---\nnot frontmatter: this content starts with a rule line\n",
      workspace: "notes",
      status: "pending",
    });
  } finally {
    store.close();
  }
}

function activeRows(dbPath: string): Row[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare(
      "SELECT * FROM memories WHERE status IN ('active', 'pending') ORDER BY id",
    ).all() as Row[];
  } finally {
    db.close();
  }
}

function historyRows(dbPath: string, memoryId: number): Row[] {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare(
      "SELECT version, subject, content, tags, changed_by, changed_by_client, reason, valid_from, valid_to FROM memory_history WHERE memory_id = ? ORDER BY version",
    ).all(memoryId) as Row[];
  } finally {
    db.close();
  }
}

const COMPARED = [
  "subject",
  "content",
  "content_sha",
  "tags",
  "workspace",
  "workspace_canonical",
  "source_type",
  "source_ref",
  "event_time",
  "ingest_time",
  "valid_from",
  "valid_to",
  "confidence",
  "protection_level",
  "status",
  "agent_id",
  "client",
  "metadata",
];

/** Checks field by field that `after` holds the same facts as `before` (ids may differ). */
function assertSameFacts(before: Row[], after: Row[]): Map<number, number> {
  assert.equal(after.length, before.length);
  const key = (row: Row) => `${row.workspace_canonical}\u0000${row.content_sha}`;
  const copies = new Map(after.map((row) => [key(row), row]));
  const ids = new Map<number, number>();
  for (const row of before) {
    const copy = copies.get(key(row));
    assert.ok(copy, `memory ${row.id} ("${row.subject}") was not imported`);
    for (const field of COMPARED) {
      assert.deepEqual(copy[field], row[field], `memory ${row.id}: ${field}`);
    }
    ids.set(Number(row.id), Number(copy.id));
  }
  for (const row of before) {
    const copy = copies.get(key(row))!;
    const follows = row.follows === null ? null : ids.get(Number(row.follows));
    assert.equal(copy.follows, follows ?? null, `memory ${row.id}: follows`);
  }
  return ids;
}

for (const format of ["md", "jsonl"]) {
  Deno.test(`round trip (${format}): export then import into an empty database gives the same facts`, async () => {
    const source = makeTempHome();
    const target = makeTempHome();
    try {
      await seedLibrary(source);
      const out = `${source.dir}/export`;
      const exported = await runCli(source, ["export", out, "--format", format]);
      assert.equal(exported.code, 0, exported.stderr);
      const imported = await runCli(target, ["import", out, "--authorized"]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /6 new, 0 updated, 0 unchanged, 0 duplicate\(s\); 0 skipped/);
      const before = activeRows(source.dbPath);
      assert.ok(before.some((row) => row.valid_to === "2025-07-01T00:00:00.000Z"));
      assert.ok(before.some((row) => row.subject === "Office" && row.valid_from === null));
      assertSameFacts(before, activeRows(target.dbPath));

      // Importing the same export again stores nothing new.
      const snapshot = snapshotDatabase(target.dbPath);
      const again = await runCli(target, ["import", out, "--authorized"]);
      assert.equal(again.code, 0, again.stderr);
      // Matched by source, mema_id or content: nothing new either way.
      assert.match(again.stdout, /0 new, 0 updated, \d unchanged, \d duplicate\(s\); 0 skipped/);
      assert.equal(snapshotDatabase(target.dbPath), snapshot);
    } finally {
      source.cleanup();
      target.cleanup();
    }
  });
}

Deno.test("round trip with history: a JSONL export with every version rebuilds the versions", async () => {
  const source = makeTempHome();
  const target = makeTempHome();
  try {
    await seedLibrary(source);
    const out = `${source.dir}/export`;
    const exported = await runCli(source, [
      "export",
      out,
      "--format",
      "jsonl",
      "--include-history",
    ]);
    assert.equal(exported.code, 0, exported.stderr);
    const imported = await runCli(target, ["import", `${out}/memories.jsonl`, "--authorized"]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /1 earlier version\(s\) replayed/);
    const ids = assertSameFacts(activeRows(source.dbPath), activeRows(target.dbPath));
    const [sourceId, targetId] = [...ids.entries()][0];
    const history = historyRows(source.dbPath, sourceId);
    assert.ok(history[0].valid_to !== null, "the replaced version's window was closed");
    assert.deepEqual(historyRows(target.dbPath, targetId), history);
    assert.equal(activeRows(target.dbPath).find((row) => row.id === targetId)!.version, 2);
  } finally {
    source.cleanup();
    target.cleanup();
  }
});

Deno.test("without --authorized, user_confirmed and locked facts come back at the import's trust", async () => {
  const source = makeTempHome();
  const target = makeTempHome();
  try {
    await seedLibrary(source);
    const out = `${source.dir}/export`;
    assert.equal((await runCli(source, ["export", out])).code, 0);
    const imported = await runCli(target, ["import", out]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /1 fact\(s\) declared user_confirmed or locked/);
    const tea = activeRows(target.dbPath).find((row) => row.subject === "用户偏好：茶")!;
    assert.equal(tea.source_type, "document_extracted");
    assert.equal(tea.protection_level, "normal");
    const rollback = activeRows(target.dbPath).find((row) => row.subject === "Rollback step")!;
    assert.equal(rollback.protection_level, "protected");
  } finally {
    source.cleanup();
    target.cleanup();
  }
});

function writeNotes(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    Deno.writeTextFileSync(`${dir}/${path}`, text);
  }
}

const OPS_NOTE = `---
tags: [ops, Deploy]
date: 2025-03-01
workspace: Infra
owner: alice
---
# Operations

How we run things.

## Deploys
Fridays after 14:00.

## Backups
Nightly at 02:00.
`;

Deno.test("import --split headings: one memory per section, in order, idempotent, edits become versions", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/vault`;
    writeNotes(notes, {
      "team/ops.md": OPS_NOTE,
      "tea.markdown": "Green tea every day.\n",
      ".obsidian/ignored.md": "# hidden\n",
    });
    const first = await runCli(home, ["import", notes, "--split", "headings"]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /imported 2 file\(s\): 4 new, 0 updated, 0 unchanged/);
    const rows = activeRows(home.dbPath);
    // Files in name order ("tea.markdown" sorts before "team/").
    assert.deepEqual(rows.map((row) => row.source_ref), [
      "tea.markdown",
      "team/ops.md",
      "team/ops.md#deploys",
      "team/ops.md#backups",
    ]);
    const tea = rows.shift()!;
    assert.equal(tea.subject, "tea");
    assert.equal(tea.workspace_canonical, "default");
    assert.deepEqual(rows.map((row) => row.subject), [
      "Operations",
      "Operations › Deploys",
      "Operations › Backups",
    ]);
    assert.equal(rows[1].content, "## Deploys\nFridays after 14:00.\n\n");
    assert.deepEqual(rows.map((row) => row.follows), [null, rows[0].id, rows[1].id]);
    assert.equal(rows[0].workspace_canonical, "infra");
    assert.equal(rows[0].tags, '["ops","deploy"]');
    assert.equal(rows[0].event_time, "2025-03-01T00:00:00.000Z");
    assert.equal(rows[0].source_type, "document_extracted");
    assert.deepEqual(JSON.parse(String(rows[0].metadata)), { frontmatter: { owner: "alice" } });

    const before = snapshotDatabase(home.dbPath);
    const second = await runCli(home, ["import", notes, "--split", "headings"]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /0 new, 0 updated, 4 unchanged/);
    assert.equal(snapshotDatabase(home.dbPath), before);

    writeNotes(notes, { "team/ops.md": OPS_NOTE.replace("02:00", "03:00") });
    const third = await runCli(home, ["import", notes, "--split", "headings"]);
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stdout, /0 new, 1 updated, 3 unchanged/);
    const backups = activeRows(home.dbPath).find((row) =>
      row.source_ref === "team/ops.md#backups"
    )!;
    assert.equal(backups.version, 2);
    assert.equal(backups.id, rows[2].id);
    assert.equal(backups.content, "## Backups\nNightly at 03:00.\n");
    assert.equal(
      historyRows(home.dbPath, Number(backups.id))[0].content,
      "## Backups\nNightly at 02:00.\n",
    );
  } finally {
    home.cleanup();
  }
});

Deno.test("bad files are reported by path and line and skipped whole; the rest is imported", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/notes`;
    writeNotes(notes, {
      "good.md": "# Good\nA fine note.\n",
      "broken.md": "---\ntitle: ok\ntags: [a\n---\nbody\n",
      "half.md": "# Half\n\n## One\nfine\n\n## Two\nbad \u0000 byte\n",
      "empty.md": "\n\n",
      "export.jsonl": [
        JSON.stringify({ type: "mema_export", format: 1 }),
        JSON.stringify({
          type: "memory",
          subject: "From JSONL",
          content: "A JSONL fact.",
          workspace: "w",
        }),
        "{not json",
        JSON.stringify({ type: "memory", subject: "No content" }),
      ].join("\n"),
    });
    const run = await runCli(home, ["import", notes, "--split", "headings"]);
    assert.equal(run.code, 1);
    const skipped = run.stderr.split("\n").filter((line) => line.includes("skipped"));
    assert.equal(skipped.length, 5, run.stderr);
    assert.match(run.stderr, /broken\.md:3: an unterminated \[list\]/);
    assert.match(run.stderr, /half\.md:6: content contains a NUL character/);
    assert.match(run.stderr, /empty\.md:1: the note is empty/);
    assert.match(run.stderr, /export\.jsonl:3: not a JSON object/);
    assert.match(run.stderr, /export\.jsonl:4: a memory line needs "content" and "subject"/);
    const rows = activeRows(home.dbPath);
    // "half.md" stored nothing, not even its first good section.
    assert.deepEqual(rows.map((row) => row.subject).sort(), ["From JSONL", "Good"]);
  } finally {
    home.cleanup();
  }
});

Deno.test("import --dry-run reports what it would do and writes nothing", async () => {
  const home = makeTempHome();
  try {
    const notes = `${home.dir}/notes`;
    writeNotes(notes, { "ops.md": OPS_NOTE });
    assert.equal((await runCli(home, ["import", `${notes}/ops.md`])).code, 0);
    writeNotes(notes, { "ops.md": OPS_NOTE.replace("02:00", "04:00"), "new.md": "# New\nfact\n" });
    const before = snapshotDatabase(home.dbPath);
    const run = await runCli(home, ["import", notes, "--dry-run"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /would import 2 file\(s\): 1 new, 1 updated, 0 unchanged.*dry run/);
    assert.equal(snapshotDatabase(home.dbPath), before);
  } finally {
    home.cleanup();
  }
});

Deno.test("import refuses a missing path and a newer export format, changing nothing", async () => {
  const home = makeTempHome();
  try {
    const missing = await runCli(home, ["import", `${home.dir}/nope`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such file or directory/);
    const file = `${home.dir}/future.jsonl`;
    Deno.writeTextFileSync(
      file,
      `${JSON.stringify({ type: "mema_export", format: 99 })}\n${
        JSON.stringify({ subject: "s", content: "c" })
      }\n`,
    );
    const newer = await runCli(home, ["import", file]);
    assert.equal(newer.code, 1);
    assert.match(newer.stderr, /export format 99, newer than this mema reads/);
    assert.match(newer.stdout, /0 new/);
  } finally {
    home.cleanup();
  }
});

Deno.test("an exported note edited by hand and imported back becomes a new version of its memory", async () => {
  const home = makeTempHome();
  try {
    await seedLibrary(home);
    const out = `${home.dir}/export`;
    assert.equal((await runCli(home, ["export", out])).code, 0);
    const [name] = [...Deno.readDirSync(`${out}/my-infra`)].map((e) => e.name).sort();
    const path = `${out}/my-infra/${name}`;
    Deno.writeTextFileSync(path, Deno.readTextFileSync(path).replace("Mondays", "Tuesdays"));
    const run = await runCli(home, ["import", out, "--authorized"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /0 new, 1 updated, 5 unchanged, 0 duplicate\(s\)/);
    const deploy = activeRows(home.dbPath).find((row) => row.subject === "Deploy window")!;
    assert.equal(deploy.version, 3);
    assert.equal(deploy.content, "Deploys run on Tuesdays after 14:00.\n");
    // Imported facts are written like remembered ones: evidence rows and a conflict check.
    const db = new DatabaseSync(home.dbPath, { readOnly: true });
    try {
      const rows = db.prepare(
        "SELECT count(*) AS n FROM memory_rows WHERE memory_id = ? AND memory_version = 3",
      )
        .get(Number(deploy.id)) as { n: number };
      assert.ok(rows.n > 0);
      const jobs = db.prepare("SELECT count(*) AS n FROM jobs WHERE dedupe_key = ?")
        .get(`memory:${deploy.id}:v3`) as { n: number };
      assert.equal(jobs.n, 1);
    } finally {
      db.close();
    }
  } finally {
    home.cleanup();
  }
});
