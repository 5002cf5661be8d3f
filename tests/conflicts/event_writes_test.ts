/**
 * A unit that records many findings writes each event's joins once, at its end
 * (src/conflicts/event_writes.ts), on both backends: inside the unit the event and the events of
 * a joined memory read as joined, the store holds nothing of the joins until the unit ends, and
 * another change to the event in the same unit is written after them with nothing lost.
 */
import assert from "node:assert/strict";
import { writeBackEvents } from "../../src/conflicts/event_writes.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import type { ConflictMember } from "../../src/store/mod.ts";
import { onBothBackends } from "../helpers/backend_context.ts";

onBothBackends("joins to one event are read in the unit and written once at its end", async (t) => {
  const ids: number[] = [];
  for (const day of ["Monday", "Tuesday", "Friday", "Sunday"]) {
    ids.push(
      (await rememberMemory(t.ctx, {
        subject: "atlas deadline",
        content: `The Atlas deadline is ${day}.`,
        workspace: "atlas",
      })).memoryId,
    );
  }
  const member = (id: number, value: string): ConflictMember => ({
    memory_id: id,
    version: 1,
    row_text: `The Atlas deadline is ${value}.`,
    start_offset: 0,
    end_offset: 20,
    value,
  });
  const now = new Date().toISOString();
  const conflictId = await t.store.write(async () =>
    await t.store.conflicts.insert({
      workspaceCanonical: "atlas",
      status: "open",
      source: "write_time",
      candidateKey: "test:atlas",
      members: [member(ids[0], "Monday"), member(ids[1], "Tuesday")],
      valueGroups: [],
      detection: {},
      createdAt: now,
    })
  );
  assert.ok(conflictId !== undefined);
  await t.store.write(async () => {
    const events = writeBackEvents(t.store.conflicts);
    const before = (await events.tables.get(conflictId))!;
    // Two joins, each against the revision the unit reads.
    assert.ok(
      await events.tables.update(conflictId, before.revision, {
        members: [...before.members, member(ids[2], "Friday")],
        now,
      }),
    );
    const once = (await events.tables.get(conflictId))!;
    assert.equal(once.members.length, 3);
    assert.equal(
      await events.tables.update(conflictId, before.revision, { members: [], now }),
      false,
      "a stale revision is refused inside the unit too",
    );
    assert.ok(
      await events.tables.update(conflictId, once.revision, {
        members: [...once.members, member(ids[3], "Sunday")],
        now,
      }),
    );
    const open = await events.tables.openOf([ids[3]]);
    assert.deepEqual(open.get(ids[3])?.map((entry) => entry.conflictId), [conflictId]);
    // Nothing of the joins is in the store yet.
    assert.equal((await t.store.conflicts.get(conflictId))!.members.length, 2);
    assert.equal((await t.store.conflicts.openOf([ids[3]])).get(ids[3]), undefined);
    // Another change in the same unit: written after the joins, which it keeps.
    const joined = (await events.tables.get(conflictId))!;
    assert.ok(
      await events.tables.update(conflictId, joined.revision, {
        decisionReason: "checked",
        now,
      }),
    );
    await events.flush();
  });
  const after = (await t.store.read(async () => await t.store.conflicts.get(conflictId)))!;
  assert.deepEqual(after.members.map((m) => m.memory_id), ids);
  assert.equal(after.decisionReason, "checked");
  const found = await t.store.read(async () => await t.store.conflicts.openOf(ids));
  for (const id of ids) {
    assert.deepEqual(found.get(id)?.map((entry) => entry.conflictId), [conflictId], `${id}`);
  }
});
