import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { type ServerSession, startServer } from "../helpers/server.ts";

async function remember(server: ServerSession, content: string, subject: string) {
  const response = await server.call("remember", { content, subject, workspace: "ops" });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return response.data as { memory_id: number; write_hints?: Record<string, unknown> };
}

interface ListedConflict {
  conflict_id: number;
  revision: number;
  member_ids: number[];
  value_groups: { value: string; memory_ids: number[]; variants: string[]; normalized: string }[];
}

/** The unresolved conflicts once the background checks have caught up (`members` in all). */
async function conflictsWith(server: ServerSession, members: number): Promise<ListedConflict[]> {
  let listed: ListedConflict[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await server.callRaw({ view: "conflicts", data: {} }, "memory_review");
    listed = response.data.conflicts as ListedConflict[];
    const seen = listed.reduce((n, c) => n + c.member_ids.length, 0);
    if (seen >= members) return listed;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return listed;
}

async function ids(server: ServerSession, query: string): Promise<number[]> {
  const response = await server.call("find", { query, workspace: "ops" });
  assert.equal(response.ok, true, JSON.stringify(response.data));
  return (response.data.results as { memory_id: number }[]).map((r) => r.memory_id);
}

onBothBackends(
  "three retention facts make one event with unit-normalized value groups; judge apply resolves it in one call",
  async (home) => {
    const server = await startServer(home);
    try {
      const three = await remember(
        server,
        "Application logs are retained for 3 days.",
        "retention",
      );
      const five = await remember(server, "Application logs are retained for 5 days.", "retention");
      await conflictsWith(server, 2);
      const hours = await remember(
        server,
        "Application logs are retained for 72 hours.",
        "retention",
      );
      const listed = await conflictsWith(server, 3);
      assert.equal(listed.length, 1, JSON.stringify(listed));
      const [event] = listed;
      assert.deepEqual(
        event.member_ids.sort(),
        [three.memory_id, five.memory_id, hours.memory_id].sort(),
      );
      const groups = event.value_groups.map((g) => ({
        ids: g.memory_ids.sort(),
        variants: g.variants.sort(),
        normalized: g.normalized,
      })).sort((a, b) => a.ids.length - b.ids.length);
      assert.deepEqual(groups, [
        { ids: [five.memory_id], variants: ["5 days"], normalized: "432000 s" },
        {
          ids: [three.memory_id, hours.memory_id].sort(),
          variants: ["3 days", "72 hours"],
          normalized: "259200 s",
        },
      ]);

      // Before: the question worded like the 5-day fact finds it first.
      assert.equal((await ids(server, "logs retained 5 days"))[0], five.memory_id);

      // Without authorization nothing happens and the answer says what would.
      const asked = await server.call("judge", {
        conflict_id: event.conflict_id,
        expected_revision: event.revision,
        chosen_value: "3 days",
        apply: true,
      });
      assert.equal(asked.ok, true);
      assert.equal(asked.data.action_required, "ask_user_for_authorization");

      const judged = await server.call("judge", {
        conflict_id: event.conflict_id,
        expected_revision: event.revision,
        chosen_value: "3 days",
        apply: true,
        authorized: true,
      });
      assert.equal(judged.ok, true, JSON.stringify(judged.data));
      assert.equal(judged.data.status, "resolved", JSON.stringify(judged.data));
      assert.equal(judged.data.next, null);
      const actions = Object.fromEntries(
        (judged.data.plan as { memory_id: number; action: string; status: string }[])
          .map((s) => [s.memory_id, `${s.action}:${s.status}`]),
      );
      // The 5-day fact corrected would repeat the 3-day one word for word: it is annotated.
      assert.deepEqual(actions, {
        [three.memory_id]: "use_as_resolution:done",
        [hours.memory_id]: "use_as_resolution:done",
        [five.memory_id]: "append_superseded_context:done",
      });
      assert.deepEqual(judged.data.stale_memory_ids, [five.memory_id]);
      const annotated = await server.call("read", { memory_id: five.memory_id });
      assert.match(
        annotated.data.content as string,
        /^Application logs are retained for 5 days\.\n\n\[Superseded .*"3 days"/,
      );
      // After: the holders of the chosen value rank above it for the same question.
      const after = await ids(server, "logs retained 5 days");
      assert.ok(
        after.indexOf(three.memory_id) < after.indexOf(five.memory_id) &&
          after.indexOf(hours.memory_id) < after.indexOf(five.memory_id),
        String(after),
      );
      const found = await server.call("find", { query: "logs retained 5 days", workspace: "ops" });
      const stale = (found.data.results as Record<string, unknown>[])
        .find((r) => r.memory_id === five.memory_id)!;
      const replaced = stale.replaced_claim as Record<string, unknown>;
      assert.equal(replaced.conflict_id, event.conflict_id);
      assert.equal(replaced.current_value, "3 days");
      assert.deepEqual(
        (replaced.held_by as number[]).sort(),
        [three.memory_id, hours.memory_id].sort(),
      );
      const still = await server.callRaw({ view: "conflicts", data: {} }, "memory_review");
      assert.deepEqual(still.data.conflicts, []);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "a loser kept as history ranks below the chosen value for the question that found it",
  async (home) => {
    const server = await startServer(home);
    try {
      const old = await remember(server, "The deploy freeze starts on Friday.", "deploy freeze");
      const fresh = await remember(
        server,
        "The deploy freeze starts on Thursday.",
        "deploy freeze",
      );
      const [event] = await conflictsWith(server, 2);
      assert.ok(event, "the pair was detected");
      assert.deepEqual(await ids(server, "freeze starts Friday"), [old.memory_id, fresh.memory_id]);
      const judged = await server.call("judge", {
        conflict_id: event.conflict_id,
        expected_revision: event.revision,
        preserve_history: true,
        apply: true,
        authorized: true,
      });
      assert.equal(judged.data.status, "resolved", JSON.stringify(judged.data));
      assert.equal(judged.data.chosen_value, "Thursday");
      assert.deepEqual(judged.data.stale_memory_ids, [old.memory_id]);
      const kept = await server.call("read", { memory_id: old.memory_id });
      assert.equal(kept.data.content, "The deploy freeze starts on Friday.", "history is kept");
      assert.deepEqual(await ids(server, "freeze starts Friday"), [fresh.memory_id, old.memory_id]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "remember hints at a near-duplicate; scan_duplicates lists it but never members of an open conflict",
  async (home) => {
    const server = await startServer(home);
    try {
      const first = await remember(
        server,
        "The team prefers dark mode in the code editor.",
        "editor theme",
      );
      assert.equal(first.write_hints, undefined);
      const second = await remember(
        server,
        "In the code editor, the team prefers dark mode.",
        "editor preference",
      );
      assert.deepEqual(second.write_hints, {
        possible_duplicate: {
          memory_id: first.memory_id,
          similarity: 1,
          hint: "an active fact in this workspace says the same; read it, then merge or retire one",
        },
      });
      const other = await remember(server, "Bob prefers light mode in the code editor.", "bob");
      assert.equal(other.write_hints, undefined, "another person's preference is not a duplicate");

      const a = await remember(server, "Backups run every 6 hours on the primary.", "backups");
      const b = await remember(server, "On the primary, backups run every 6 hours.", "backups");
      assert.equal(
        (b.write_hints?.possible_duplicate as { memory_id: number }).memory_id,
        a.memory_id,
      );
      const recorded = await server.repair("record_conflict", {
        memory_ids: [a.memory_id, b.memory_id],
        reason: "the agent thinks one of them is outdated",
      });
      assert.equal(recorded.ok, true, JSON.stringify(recorded.data));
      const scan = await server.repair("scan_duplicates", {});
      assert.equal(scan.ok, true, JSON.stringify(scan.data));
      assert.deepEqual(
        (scan.data.pairs as { memory_ids: number[] }[]).map((p) => p.memory_ids),
        [[first.memory_id, second.memory_id]],
      );
      assert.equal(scan.data.skipped_in_open_conflict, 1);
    } finally {
      await server.close();
    }
  },
);
