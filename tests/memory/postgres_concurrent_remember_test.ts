/**
 * `remember` on PostgreSQL runs beside other remembers, on one server or several (issue 33):
 * a remember of another text never waits for a unit still open on another server, while every
 * guarantee of the SQLite file still holds across them: a text is stored once per workspace, a
 * new workspace is registered once, a new name becomes one entity. Each check holds a unit open
 * on one server (its body waits on a gate the test opens) while the other server writes, so the
 * order of events is the test's, never the scheduler's.
 */
import assert from "node:assert/strict";
import type { ServiceContext } from "../../src/core/context.ts";
import {
  rememberInTransaction,
  rememberMemory,
  type RememberResult,
} from "../../src/memory/remember.ts";
import { holdOpen, twoServers, withinBound } from "../helpers/held_units.ts";
import { nameKey } from "../../src/entities/names.ts";

const SKIP = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/**
 * Server A remembers `first` in a unit held open until the returned `release` is called; the
 * unit's result arrives once it committed.
 */
async function holdRemember(
  ctx: ServiceContext,
  first: { content: string; subject: string; workspace: string },
): Promise<{ release(): void; committed: Promise<RememberResult> }> {
  const { release, done } = await holdOpen(
    ctx.store,
    () => rememberInTransaction(ctx, first),
    { durable: true },
  );
  return { release, committed: done };
}

Deno.test({
  name: `postgres: concurrent remembers on two servers keep every guarantee${
    SKIP ? " SKIPPED" : ""
  }`,
  ignore: SKIP,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { storeA, storeB, a, b, close } = await twoServers("mema-pg-concurrent-");
    try {
      await rememberMemory(a, {
        content: "the deploy window opens at nine",
        subject: "deploys",
        workspace: "infra",
      });

      // The same text: server B's remember waits for A's unit, then answers with A's memory.
      const text = { content: "Quillon Relay forwards the payment events", subject: "relay" };
      const held = await holdRemember(a, { ...text, workspace: "infra" });
      const sameText = rememberMemory(b, { ...text, workspace: "infra" });
      sameText.catch(() => {});
      // Another text in a known workspace with no new name: it does not wait for A's unit.
      const other = await withinBound(
        rememberMemory(b, {
          content: "rollbacks need a second reviewer",
          subject: "rollbacks",
          workspace: "infra",
        }),
        "a remember of another text waited for a unit open on the other server",
      );
      assert.equal(other.duplicateReplay, false);
      // A new name (Quillon Relay) in another text: B waits for A's unit, then links to A's.
      const sameName = rememberMemory(b, {
        content: "Quillon Relay moved to the second data centre",
        subject: "relay move",
        workspace: "infra",
      });
      sameName.catch(() => {});
      held.release();
      const first = await held.committed;
      const replay = await sameText;
      assert.equal(replay.duplicateReplay, true);
      assert.equal(replay.memoryId, first.memoryId);
      await sameName;
      const named = await storeB.entitiesNamed([nameKey("Quillon Relay")], ["infra"]);
      assert.equal(named.length, 1, "one name, one entity, whichever server met it first");

      // A new workspace: registered once, by the unit that wrote to it first.
      const fresh = await holdRemember(a, {
        content: "billing exports run nightly",
        subject: "billing",
        workspace: "billing",
      });
      const second = rememberMemory(b, {
        content: "billing invoices are kept seven years",
        subject: "billing",
        workspace: "billing",
      });
      second.catch(() => {});
      fresh.release();
      assert.equal((await fresh.committed).newWorkspace, true);
      assert.equal((await second).newWorkspace, undefined);

      // Many remembers of the same facts at once from both servers: each stored once.
      const facts = Array.from({ length: 8 }, (_, i) => `release train ${i} leaves on time`);
      const answers = await Promise.all(
        [a, b].flatMap((ctx) =>
          facts.map((content) =>
            rememberMemory(ctx, { content, subject: "trains", workspace: "ops" })
          )
        ),
      );
      assert.equal(answers.filter((answer) => !answer.duplicateReplay).length, facts.length);
      assert.equal(answers.filter((answer) => answer.newWorkspace).length, 1);
      const counts = await storeA.overviewCounts("ops");
      assert.deepEqual(counts.byStatus, { active: facts.length });
    } finally {
      await close();
    }
  },
});
