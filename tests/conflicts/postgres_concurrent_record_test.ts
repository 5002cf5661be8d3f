/**
 * On PostgreSQL the units that record a conflict check's findings, and the ones that mark
 * notices told, run beside remembers (issue 33): they no longer hold every other writer of
 * every server up. Among themselves they still run one at a time, so the SQLite file's
 * guarantees hold across servers: a fact that contradicts an open conflict joins that one
 * group (never a second group beside it), and a notice is told once. Each check holds one
 * server's unit open (its body waits on a gate the test opens) while the other server works,
 * so the order of events is the test's, never the scheduler's; each fails without the claim.
 */
import assert from "node:assert/strict";
import { detectConflicts, findSuspects, recordFindings } from "../../src/conflicts/detect.ts";
import { takeNotices } from "../../src/conflicts/notices.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { holdOpen, twoServers, withinBound } from "../helpers/held_units.ts";

const SKIP = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/**
 * Gives the other server's statements time to reach the held unit's locks before the gate
 * opens. It only makes the check sharper: with the claims, the other server waits for the
 * gate however late it arrives, and the outcome is the same.
 */
function headStart(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 300));
}

function deadline(day: string) {
  return {
    content: `The Atlas deadline is ${day}.`,
    subject: "atlas deadline",
    workspace: "atlas",
  };
}

Deno.test({
  name: `postgres: conflict findings and told notices on two servers keep every guarantee${
    SKIP ? " SKIPPED" : ""
  }`,
  ignore: SKIP,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { storeA, storeB, a, b, close } = await twoServers("mema-pg-record-");
    const stages = defaultStages();
    try {
      const friday = await rememberMemory(a, deadline("Friday"));
      const monday = await rememberMemory(a, deadline("Monday"));
      assert.equal((await detectConflicts(a, monday.memoryId, stages)).recorded.length, 1);
      const wednesday = await rememberMemory(a, deadline("Wednesday"));
      const tuesday = await rememberMemory(b, deadline("Tuesday"));

      // Server A records Wednesday's findings (it joins the open conflict) and holds its unit.
      const found = await findSuspects(a, wednesday.memoryId, stages);
      assert.ok(found.suspects.length > 0, "Wednesday contradicts the open conflict");
      const held = await holdOpen(
        storeA,
        () => recordFindings(a, found.suspects, found.suspects.map(() => undefined)),
      );
      // Server B checks Tuesday meanwhile: it waits for A's findings, then joins the same group.
      const check = detectConflicts(b, tuesday.memoryId, stages);
      check.catch(() => {});
      // A remember does not wait for a unit recording findings on the other server.
      const other = await withinBound(
        rememberMemory(b, {
          content: "release notes go out with every deploy",
          subject: "release notes",
          workspace: "atlas",
        }),
        "a remember waited for a unit recording conflict findings on the other server",
      );
      assert.equal(other.duplicateReplay, false);
      await headStart();
      held.release();
      await held.done;
      await check;
      const groups = await storeB.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 });
      assert.equal(groups.total, 1, "one contradiction about one fact is one conflict group");
      const members = new Set(groups.rows[0].members.map((m) => m.memory_id));
      for (const memory of [friday, monday, wednesday, tuesday]) {
        assert.ok(members.has(memory.memoryId), `memory ${memory.memoryId} is in the group`);
      }

      // Notices: server A tells the pending ones and holds its unit; B, answering meanwhile,
      // waits for A and then has nothing new to tell. The notices are told once.
      const telling = await holdOpen(storeA, () => takeNotices(a));
      assert.equal(telling.answer.length, 1, "A tells the pending notices");
      const toldByB = takeNotices(b);
      await headStart();
      telling.release();
      await telling.done;
      assert.deepEqual(await toldByB, [], "B tells nothing A already told");
    } finally {
      await close();
    }
  },
});
