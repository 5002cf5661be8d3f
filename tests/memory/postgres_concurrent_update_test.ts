/**
 * `update` and `retire` on PostgreSQL run beside remembers and beside each other, on one server
 * or several (issue 33): an update held open on one server holds up no remember, update or
 * retire of another memory on the other, while every writer of the same memory waits for it and
 * then sees its version, so no update is lost and the version history stays exact. Each check
 * holds a unit open on server A (its body waits on a gate the test opens) while server B writes,
 * so the order of events is the test's, never the scheduler's.
 */
import assert from "node:assert/strict";
import type { ServiceContext } from "../../src/core/context.ts";
import { nameKey } from "../../src/entities/names.ts";
import { MemaError } from "../../src/errors/mod.ts";
import { retireMemory } from "../../src/govern/lifecycle.ts";
import { rememberInTransaction, rememberMemory } from "../../src/memory/remember.ts";
import { updateInTransaction, updateMemory } from "../../src/memory/update.ts";
import { holdOpen, twoServers, withinBound } from "../helpers/held_units.ts";

const SKIP = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

async function remembered(ctx: ServiceContext, content: string): Promise<number> {
  return (await rememberMemory(ctx, { content, subject: "ops", workspace: "infra" })).memoryId;
}

/** The error code `promise` rejects with (it must reject with a MemaError). */
async function failureOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (error: unknown) => error);
  assert.ok(error instanceof MemaError, `expected a MemaError, got ${error}`);
  return error.code;
}

Deno.test({
  name: `postgres: updates and retires on two servers run beside remembers, none lost${
    SKIP ? " SKIPPED" : ""
  }`,
  ignore: SKIP,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { storeA, storeB, a, b, close } = await twoServers("mema-pg-concurrent-update-");
    try {
      const deploy = await remembered(a, "the deploy window opens at nine");
      const rollback = await remembered(a, "rollbacks need one reviewer");
      const freeze = await remembered(a, "the release freeze starts in December");

      // Server A updates the deploy memory in a unit held open.
      const held = await holdOpen(storeA, () =>
        updateInTransaction(a, {
          memoryId: deploy,
          edit: { kind: "replace_text", oldText: "nine", newText: "ten" },
        }), { durable: true });
      // Meanwhile server B remembers, updates and retires other memories without waiting.
      const other = await withinBound(
        rememberMemory(b, { content: "on-call swaps weekly", subject: "ops", workspace: "infra" }),
        "a remember waited for an update of another memory on the other server",
      );
      assert.equal(other.duplicateReplay, false);
      const reviewed = await withinBound(
        updateMemory(b, {
          memoryId: rollback,
          edit: { kind: "replace_text", oldText: "one reviewer", newText: "two reviewers" },
        }),
        "an update waited for an update of another memory on the other server",
      );
      assert.equal(reviewed.version, 2);
      const retired = await withinBound(
        retireMemory(b, { memoryId: freeze, reason: "no freeze this year", authorized: true }),
        "a retire waited for an update of another memory on the other server",
      );
      assert.equal(retired.status, "retired");
      // Writers of the held memory wait for A's unit, then see its version: one that expected
      // version 1 is refused, one that edits A's new words applies on top of them.
      const stale = updateMemory(b, {
        memoryId: deploy,
        expectedVersion: 1,
        edit: { kind: "new_content", content: "the deploy window opens at noon" },
      });
      stale.catch(() => {});
      const onTop = updateMemory(b, {
        memoryId: deploy,
        edit: { kind: "replace_text", oldText: "ten", newText: "eleven" },
      });
      onTop.catch(() => {});
      held.release();
      assert.equal((await held.done).version, 2);
      assert.equal(await failureOf(stale), "version_conflict");
      assert.equal((await onTop).version, 3);
      assert.equal((await storeA.getMemory(deploy))?.content, "the deploy window opens at eleven");
      const history = await storeB.listHistory(deploy);
      assert.deepEqual(history.map((entry) => [entry.version, entry.content]), [
        [1, "the deploy window opens at nine"],
        [2, "the deploy window opens at ten"],
      ]);

      // Many updates of one memory from both servers at once: every one applies, each on the
      // version before it, and the history holds every version once.
      const counter = await remembered(a, "the build counter reads 0");
      const updates = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          updateMemory(i % 2 === 0 ? a : b, {
            memoryId: counter,
            edit: { kind: "new_content", content: `the build counter reads ${i + 1}` },
          })),
      );
      assert.deepEqual(updates.map((u) => u.version).sort((x, y) => x - y), [
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
      ]);
      const versions = await storeA.listHistory(counter);
      assert.deepEqual(versions.map((entry) => entry.version), [1, 2, 3, 4, 5, 6, 7, 8]);
      const texts = [
        ...versions.map((entry) => entry.content),
        (await storeB.getMemory(counter))!.content,
      ];
      assert.equal(new Set(texts).size, 9, "no version written over another");

      // A retire and an update of one memory at once: one runs first, the other sees it.
      const window = await remembered(a, "maintenance runs on Sundays");
      const [retire, update] = await Promise.allSettled([
        retireMemory(a, { memoryId: window, reason: "moved", authorized: true }),
        updateMemory(b, {
          memoryId: window,
          edit: { kind: "replace_text", oldText: "Sundays", newText: "Saturdays" },
        }),
      ]);
      assert.equal(retire.status, "fulfilled");
      const after = (await storeA.getMemory(window))!;
      assert.equal(after.status, "retired");
      if (update.status === "fulfilled") {
        assert.equal(after.version, 2);
        assert.equal(after.content, "maintenance runs on Saturdays");
      } else {
        assert.equal(await failureOf(Promise.reject(update.reason)), "invalid_input");
        assert.equal(after.version, 1);
      }

      // A remember linking to a known name, held open on B, while A's update drops that name
      // from the only other memory holding it: the update does not wait, and the entity stays
      // for the remember (dropping it would fail one of them or lose the link).
      const named = await remembered(a, "Quillon Relay forwards the payment events");
      const linking = await holdOpen(storeB, () =>
        rememberInTransaction(b, {
          content: "Quillon Relay moved to the second data centre",
          subject: "relay move",
          workspace: "infra",
        }), { durable: true });
      await withinBound(
        updateMemory(a, {
          memoryId: named,
          edit: { kind: "new_content", content: "the relay forwards the payment events" },
        }),
        "an update dropping a name waited for a remember linking to it",
      );
      linking.release();
      const moved = await linking.done;
      const entities = await storeA.entitiesNamed([nameKey("Quillon Relay")], ["infra"]);
      assert.equal(entities.length, 1, "one name, one entity");
      const mentions = await storeA.memoryMentions([moved.memoryId, named]);
      assert.equal(mentions.get(moved.memoryId)?.[0]?.entityId, entities[0].id);
      assert.equal(mentions.get(named)?.length ?? 0, 0);

      // The other way round: the update dropping the name held open on A, a remember of the
      // name on B; whichever runs first, the remember links to one entity.
      const dropping = await holdOpen(storeA, () =>
        updateInTransaction(a, {
          memoryId: moved.memoryId,
          edit: { kind: "new_content", content: "the relay moved to the second data centre" },
        }), { durable: true });
      const relinking = rememberMemory(b, {
        content: "Quillon Relay is owned by the payments team",
        subject: "relay owner",
        workspace: "infra",
      });
      relinking.catch(() => {});
      dropping.release();
      await dropping.done;
      const owner = await relinking;
      const relay = await storeB.entitiesNamed([nameKey("Quillon Relay")], ["infra"]);
      assert.equal(relay.length, 1, "one name, one entity");
      const linked = await storeB.memoryMentions([owner.memoryId]);
      assert.equal(linked.get(owner.memoryId)?.[0]?.entityId, relay[0].id);
    } finally {
      await close();
    }
  },
});
