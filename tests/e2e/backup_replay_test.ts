/**
 * The JSONL backup's edges, through the real server with a real storage
 * failure (a filled tmpfs, see tests/helpers/tmpfs.ts): a torn last line left
 * by an earlier crash must not swallow the next acknowledged entry (issue 12
 * item 5), and a saved update must not overwrite a newer version at replay
 * (item 6).
 */
import assert from "node:assert/strict";
import { type Envelope, startServer } from "../helpers/server.ts";
import { canMountTmpfs, fillDisk, freeDisk, makeTmpfsHome } from "../helpers/tmpfs.ts";

const mountable = canMountTmpfs();

/** A temp home whose database sits on a 3 MiB tmpfs and whose backup sits on the real disk. */
function fillableHome() {
  const mounted = makeTmpfsHome("3m");
  const backupPath = `${mounted.home.dir}/backup/mema.backup.jsonl`;
  const env = { MEMA_DB_PATH: `${mounted.disk}/mema.sqlite3`, MEMA_BACKUP_JSONL: backupPath };
  return { ...mounted, backupPath, env };
}

Deno.test({
  name: "e2e: a torn backup line left by a crash does not swallow the next acknowledged entry",
  ignore: !mountable,
  async fn() {
    const setup = fillableHome();
    const server = await startServer(setup.home, { env: setup.env });
    try {
      assert.equal(
        (await server.call("remember", { content: "Before.", subject: "b", workspace: "w" })).ok,
        true,
      );
      fillDisk(setup.disk);
      // An earlier process died mid-append: half a JSON line, no newline.
      Deno.mkdirSync(`${setup.home.dir}/backup`, { recursive: true });
      Deno.writeTextFileSync(setup.backupPath, '{"id":"torn-entry","action":"remem');

      const saved: string[] = [];
      for (const word of ["alpha", "beta"]) {
        const response = await server.call("remember", {
          content: `The ${word} fact, saved while the disk was full.`,
          subject: word,
          workspace: "w",
          tags: ["outage"],
        });
        assert.equal(response.mode, "jsonl_backup", JSON.stringify(response.data));
        assert.equal(response.data.saved, true);
        saved.push(response.data.backup_id);
      }
      const lines = Deno.readTextFileSync(setup.backupPath).split("\n");
      assert.equal(
        lines[0],
        '{"id":"torn-entry","action":"remem',
        "the fragment stays its own line",
      );
      assert.equal(lines.at(-1), "", "every acknowledged entry ends with a newline");

      freeDisk(setup.disk);
      const dry = await server.repair("replay_backup", {});
      assert.deepEqual(dry.data.unreadable_lines, [1]);
      assert.equal(dry.data.pending, 2);
      const replay = await server.repair("replay_backup", { dry_run: false, authorized: true });
      assert.deepEqual([replay.data.applied, replay.data.rejected], [2, 0]);
      assert.deepEqual(replay.data.unreadable_lines, [1]);
      assert.deepEqual(
        replay.data.entries.map((e: { entry_id: string }) => e.entry_id),
        saved,
      );
      const found = await server.call("find", { query: "saved while the disk was full" });
      assert.deepEqual(
        found.data.results.map((r: { subject: string }) => r.subject).sort(),
        ["alpha", "beta"],
      );
    } finally {
      await server.close();
      await setup.cleanup();
    }
  },
});

Deno.test({
  name: "e2e: a saved update whose version was overtaken is a conflict at replay, not an overwrite",
  ignore: !mountable,
  async fn() {
    const setup = fillableHome();
    const server = await startServer(setup.home, { env: setup.env });
    try {
      const kept = await server.call("remember", {
        content: "The release train leaves on Tuesdays.",
        subject: "release day",
        workspace: "w",
      });
      const id = kept.data.memory_id;
      fillDisk(setup.disk);
      const savedText = "The release train leaves on Wednesdays.";
      const saved = await server.call("update", { memory_id: id, new_content: savedText });
      assert.equal(saved.mode, "jsonl_backup", JSON.stringify(saved.data));
      const entry = JSON.parse(Deno.readTextFileSync(setup.backupPath).trim());
      assert.equal(entry.input.expectedVersion, 1, "the version read at save time is recorded");

      freeDisk(setup.disk);
      const newerText = "The release train leaves on Thursdays, from June.";
      const newer = await server.call("update", { memory_id: id, new_content: newerText });
      assert.equal(newer.data.version, 2);

      const replay = await server.repair("replay_backup", { dry_run: false, authorized: true });
      assert.equal(replay.ok, true, JSON.stringify(replay.data));
      assert.deepEqual([replay.data.applied, replay.data.conflicts], [0, 1]);
      const [item] = replay.data.entries;
      assert.equal(item.outcome, "conflict");
      assert.equal(item.memory_id, id);
      assert.equal(item.current_version, 2);
      assert.equal(item.based_on_version, 1);
      assert.equal(item.saved_change.new_content, savedText, "the saved text is not lost");
      const [summary] = replay.notices as Envelope["data"][];
      assert.deepEqual(summary.by_kind, { backup_replay_conflict: 1 }, "told on the answer");
      const listed = await server.repair("notice", { action: "list" });
      const notice = (listed.data.notices as Envelope["data"][]).find(
        (n: { kind: string }) => n.kind === "backup_replay_conflict",
      );
      assert.ok(notice, JSON.stringify(replay.notices));
      assert.deepEqual(notice.memory_ids, [id]);
      // A list previews long messages; read gives the whole one.
      const whole = await server.repair("notice", { action: "read", notice_id: notice.notice_id });
      assert.ok(whole.data.notice.message.includes(savedText));

      const read = await server.call("read", { memory_id: id });
      assert.equal(read.data.version, 2);
      assert.equal(read.data.content, newerText, "the newer value is intact");
      const again = await server.repair("replay_backup", { dry_run: false, authorized: true });
      assert.deepEqual([again.data.applied, again.data.already_replayed], [0, 1]);
    } finally {
      await server.close();
      await setup.cleanup();
    }
  },
});

Deno.test({
  name:
    "e2e: updates of one memory saved to the backup, by two processes, chain and all apply in order",
  ignore: !mountable,
  async fn() {
    const setup = fillableHome();
    const first = await startServer(setup.home, { env: setup.env });
    const second = await startServer(setup.home, { env: setup.env });
    try {
      const kept = await first.call("remember", {
        content: "The standup is at 9:00 in room Aspen.",
        subject: "standup",
        workspace: "w",
      });
      const id = kept.data.memory_id;
      fillDisk(setup.disk);
      // Each edit depends on the text the one saved before it introduced.
      const edits: [typeof first, Record<string, unknown>][] = [
        [first, { new_content: "The standup is at 9:30 in room Birch." }],
        [second, { old_text: "9:30", new_text: "10:00" }],
        [first, { patches: [{ old_text: "Birch", new_text: "Cedar" }] }],
        [second, { tags_only: true, add_tags: ["moved"] }],
        [first, { old_text: "10:00", new_text: "10:15", expected_version: 4 }],
      ];
      const versions: number[] = [];
      for (const [server, edit] of edits) {
        const saved = await server.call("update", { memory_id: id, ...edit });
        assert.equal(saved.mode, "jsonl_backup", JSON.stringify(saved.data));
        assert.equal(saved.data.saved, true);
        versions.push(saved.data.version);
      }
      assert.deepEqual(versions, [2, 3, 4, 4, 5], "each saved update counts the ones before it");
      const stale = await second.call("update", {
        memory_id: id,
        new_content: "Based on what read still shows.",
        expected_version: 1,
      });
      assert.equal(stale.ok, false, "a stale expected_version fails now, not at replay");
      assert.equal(stale.data.error, "version_conflict");
      const missing = await second.call("update", {
        memory_id: id,
        old_text: "Aspen",
        new_text: "Oak",
      });
      assert.equal(
        missing.ok,
        false,
        "old_text is looked for in the content as saved edits leave it",
      );

      freeDisk(setup.disk);
      // A page that starts after the change an entry builds on leaves that entry waiting.
      const paged = await second.repair("replay_backup", {
        dry_run: false,
        authorized: true,
        offset: 1,
        limit: 1,
      });
      assert.deepEqual(
        [paged.data.applied, paged.data.pending],
        [0, 1],
        JSON.stringify(paged.data),
      );
      assert.equal(paged.data.entries[0].outcome, "pending");
      const replay = await second.repair("replay_backup", { dry_run: false, authorized: true });
      assert.equal(replay.ok, true, JSON.stringify(replay.data));
      assert.deepEqual(
        [replay.data.applied, replay.data.conflicts, replay.data.rejected],
        [5, 0, 0],
        JSON.stringify(replay.data.entries),
      );
      const read = await first.call("read", { memory_id: id });
      assert.equal(read.data.content, "The standup is at 10:15 in room Cedar.");
      assert.equal(read.data.version, 5);
      assert.ok(read.data.tags.includes("moved"));
    } finally {
      await first.close();
      await second.close();
      await setup.cleanup();
    }
  },
});

Deno.test({
  name:
    "e2e: when a saved update cannot apply, the saved updates built on it are conflicts, not applied on another base",
  ignore: !mountable,
  async fn() {
    const setup = fillableHome();
    const server = await startServer(setup.home, { env: setup.env });
    try {
      const kept = await server.call("remember", {
        content: "Deploys freeze on Fridays.",
        subject: "freeze",
        workspace: "w",
      });
      const id = kept.data.memory_id;
      fillDisk(setup.disk);
      const a = await server.call("update", {
        memory_id: id,
        new_content: "Deploys freeze on Thursdays.",
      });
      const bText = "Deploys freeze on Thursdays after 15:00.";
      const b = await server.call("update", { memory_id: id, new_content: bText });
      assert.deepEqual([a.mode, b.mode], ["jsonl_backup", "jsonl_backup"]);

      freeDisk(setup.disk);
      // Someone changes the memory before the replay: the first saved update is overtaken,
      // and the version the second one expects (2) is now this unrelated change's.
      const direct = "Deploys never freeze.";
      assert.equal(
        (await server.call("update", { memory_id: id, new_content: direct })).data.version,
        2,
      );
      const replay = await server.repair("replay_backup", { dry_run: false, authorized: true });
      assert.deepEqual([replay.data.applied, replay.data.conflicts], [0, 2]);
      const [, second] = replay.data.entries;
      assert.equal(second.entry_id, b.data.backup_id);
      assert.equal(second.outcome, "conflict");
      assert.match(second.reason, new RegExp(a.data.backup_id));
      assert.equal(second.saved_change.new_content, bText, "the saved change is reported");
      const read = await server.call("read", { memory_id: id });
      assert.equal(read.data.content, direct);
      assert.equal(read.data.version, 2);
    } finally {
      await server.close();
      await setup.cleanup();
    }
  },
});

Deno.test({
  name:
    "e2e: after a write goes to the backup, status says the database is not writable and every answer warns, until a write succeeds",
  ignore: !mountable,
  async fn() {
    const setup = fillableHome();
    const server = await startServer(setup.home, { env: setup.env });
    try {
      const kept = await server.call("remember", {
        content: "The build server is called Hopper.",
        subject: "build server",
        workspace: "w",
      });
      assert.equal((await server.call("status")).data.capabilities.writable, true);
      fillDisk(setup.disk);
      const saved = await server.call("remember", {
        content: "The staging server is called Lovelace.",
        subject: "staging server",
        workspace: "w",
      });
      assert.equal(saved.mode, "jsonl_backup", JSON.stringify(saved.data));

      const status = await server.call("status");
      assert.equal(status.data.capabilities.writable, false, JSON.stringify(status.data));
      assert.match(status.data.capabilities.unwritable_reason, /full/);
      const overview = await server.callRaw({ view: "overview", data: {} }, "memory_review");
      assert.equal(overview.data.capabilities.writable, false);
      for (const answer of [status, overview, await server.call("find", { query: "server" })]) {
        assert.equal(answer.mode, "jsonl_backup");
        assert.equal(answer.degraded, true);
        assert.ok(
          answer.warnings.some((w) => /cannot be written/.test(w) && /replay_backup/.test(w)),
          answer.warnings.join("\n"),
        );
      }
      const read = await server.call("read", { memory_id: kept.data.memory_id });
      assert.ok(read.warnings.some((w) => /cannot be written/.test(w)), read.warnings.join("\n"));

      freeDisk(setup.disk);
      const written = await server.call("remember", {
        content: "The test server is called Turing.",
        subject: "test server",
        workspace: "w",
      });
      assert.equal(typeof written.data.memory_id, "number", JSON.stringify(written.data));
      assert.notEqual(written.mode, "jsonl_backup");
      const after = await server.call("status");
      assert.equal(after.data.capabilities.writable, true);
      assert.equal(after.data.capabilities.unwritable_reason, undefined);
      assert.ok(
        !after.warnings.some((w) => /cannot be written/.test(w)),
        after.warnings.join("\n"),
      );
    } finally {
      await server.close();
      await setup.cleanup();
    }
  },
});
