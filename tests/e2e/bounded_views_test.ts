/**
 * `memory_review` views stay a size an agent can read when conflicts are between long
 * documents: members previewed with offsets and the read call, value groups and evidence
 * capped with counts, members paged.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { type ServerSession, startServer } from "../helpers/server.ts";

/** A long document (~30k characters) of distinct sentences, with `fact` in the middle. */
function longDocument(tag: string, fact: string): string {
  const paragraph = (i: number) =>
    `Section ${i} of the ${tag} handbook explains how setting opt${i} shapes request handling, ` +
    `which defaults apply, and what the ${tag} team changed in release ${i}.`;
  const lines = Array.from({ length: 200 }, (_, i) => paragraph(i));
  lines.splice(100, 0, fact);
  return lines.join("\n\n");
}

async function review(server: ServerSession, view: string, data: Record<string, unknown>) {
  const response = await server.callRaw({ view, data }, "memory_review");
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response;
}

onBothBackends(
  "e2e views: conflict_detail between long documents is bounded, previews members and pages them",
  async (home) => {
    const server = await startServer(home);
    try {
      const ids: number[] = [];
      const docs = [
        longDocument("alpha", "The widget server listens on port 8080 by default."),
        longDocument("beta", "The widget server listens on port 9090 by default."),
        longDocument("gamma", "The widget server listens on port 7070 by default."),
      ];
      for (const content of docs) {
        const written = await server.call("remember", {
          content,
          subject: "widget server handbook",
          workspace: "docs",
        });
        assert.equal(written.ok, true, JSON.stringify(written.data));
        ids.push(written.data.memory_id);
      }
      // Value groups as an agent may record them: long values, many ways of writing them.
      const recorded = await server.repair("record_conflict", {
        memory_ids: ids,
        value_groups: ids.map((id, i) => ({ value: `${8080 + i} `.repeat(120), memory_ids: [id] })),
        reason: "three ports for the same server",
      });
      assert.equal(recorded.ok, true, JSON.stringify(recorded.data));
      const conflictId = recorded.data.conflict_id;

      const detail = await review(server, "conflict_detail", { conflict_id: conflictId });
      const size = JSON.stringify(detail).length;
      console.log(`conflict_detail of three ~30k documents: ${size} characters`);
      assert.ok(size < 16_000, `conflict_detail is ${size} characters`);
      assert.equal(detail.data.members.length, 3);
      assert.equal(detail.data.members_total, 3);
      assert.equal(detail.data.has_more, false);
      for (const [index, member] of detail.data.members.entries()) {
        assert.equal(member.content, undefined, "a long member is not sent whole");
        assert.equal(member.content_omitted, true);
        assert.equal(member.content_chars, docs[index].length);
        const preview = member.content_preview;
        assert.equal(preview.text, docs[index].slice(preview.start, preview.end));
        // The read call it names gives the whole content back.
        const read = await server.call(member.read.action, member.read.data);
        assert.equal(read.data.content, docs[index]);
      }
      const group = detail.data.value_groups[0];
      assert.equal(group.value_chars, `${8080} `.repeat(120).length);
      assert.ok(group.value.length < 400);
      // The one-step judge call still carries the chosen value whole: it is the call to send.
      assert.equal(detail.data.one_step.data.chosen_value.length, `${8080} `.repeat(120).length);

      // Members page: one at a time, with has_more and the next offset.
      const first = await review(server, "conflict_detail", { conflict_id: conflictId, limit: 1 });
      assert.deepEqual(first.data.members.map((m: { memory_id: number }) => m.memory_id), [ids[0]]);
      assert.deepEqual([first.data.has_more, first.data.next_offset], [true, 1]);
      const last = await review(server, "conflict_detail", {
        conflict_id: conflictId,
        offset: 2,
        limit: 1,
      });
      assert.deepEqual(last.data.members.map((m: { memory_id: number }) => m.memory_id), [ids[2]]);
      assert.equal(last.data.has_more, false);

      // The list of conflicts carries the same capped values.
      const list = await review(server, "conflicts", {});
      const size2 = JSON.stringify(list).length;
      assert.ok(size2 < 12_000, `conflicts list is ${size2} characters`);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends(
  "e2e views: history of a long document previews versions and pages the diff; workspaces page",
  async (home) => {
    const server = await startServer(home);
    try {
      const texts = ["alpha", "beta", "gamma", "delta"].map((tag) =>
        longDocument(tag, `The ${tag} widget server listens on port 8080.`)
      );
      const written = await server.call("remember", {
        content: texts[0],
        subject: "widget handbook",
        workspace: "docs",
      });
      const id = written.data.memory_id;
      for (const text of texts.slice(1)) {
        const updated = await server.call("update", { memory_id: id, new_content: text });
        assert.equal(updated.ok, true, JSON.stringify(updated.data));
      }
      const history = await review(server, "history", { memory_id: id, limit: 3 });
      const size = JSON.stringify(history).length;
      assert.ok(size < 40_000, `history is ${size} characters`);
      assert.deepEqual(history.data.versions.map((v: { version: number }) => v.version), [2, 3, 4]);
      assert.deepEqual([history.data.versions_total, history.data.has_more], [4, true]);
      const oldest = history.data.versions[0];
      assert.equal(oldest.content_omitted, true);
      assert.equal(
        oldest.content_preview,
        texts[1].slice(0, oldest.content_preview.length - 1) + "…",
      );
      // The call it names shows that version whole.
      const whole = await review(server, oldest.next.view, oldest.next.data);
      assert.deepEqual(whole.data.versions.map((v: { version: number }) => v.version), [2]);
      assert.equal(whole.data.versions[0].content, texts[1]);
      // The diff between two rewritten documents comes in pages that join up.
      let diff = "";
      let offset: number | null = 0;
      let total = 0;
      while (offset !== null) {
        const page = await review(server, "history", { memory_id: id, diff_offset: offset });
        assert.ok(JSON.stringify(page).length < 40_000);
        diff += page.data.diff.unified;
        total = page.data.diff.unified_chars;
        offset = page.data.diff.next_offset;
      }
      assert.ok(total > 20_000, `a diff of ${total} characters`);
      assert.equal(diff.length, total);

      for (const workspace of ["w1", "w2", "w3"]) {
        const fact = await server.call("remember", {
          content: `The ${workspace} team meets on Mondays.`,
          subject: "team",
          workspace,
        });
        assert.equal(fact.ok, true, JSON.stringify(fact.data));
      }
      const first = await review(server, "workspaces", { limit: 2 });
      assert.ok(first.data.total >= 4, JSON.stringify(first.data));
      assert.equal(first.data.workspaces.length, 2);
      assert.deepEqual([first.data.has_more, first.data.next_offset], [true, 2]);
      const rest = await review(server, "workspaces", { offset: 2 });
      assert.equal(rest.data.has_more, false);
      assert.equal(first.data.total, rest.data.total);
      assert.equal(rest.data.workspaces.length, first.data.total - 2);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends(
  "e2e views: the overview counts the largest workspaces by name and points to the rest",
  async (home) => {
    const server = await startServer(home);
    try {
      for (let i = 0; i < 55; i++) {
        const fact = await server.call("remember", {
          content: `Team ${i} meets on Mondays at ${i % 12 + 1} o'clock.`,
          subject: `team ${i}`,
          workspace: `team-${i}`,
        });
        assert.equal(fact.ok, true, JSON.stringify(fact.data));
      }
      await server.call("remember", {
        content: "Team 7 also meets on Fridays.",
        subject: "team 7",
        workspace: "team-7",
      });
      const overview = await review(server, "overview", {});
      const memories = overview.data.memories;
      assert.equal(Object.keys(memories.by_workspace).length, 50);
      assert.equal(memories.by_workspace["team-7"], 2, "the largest come first");
      assert.equal(memories.workspaces_total, 55);
      assert.equal(memories.all_workspaces.view, "workspaces");
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);
