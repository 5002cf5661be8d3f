/**
 * One pair of memories is one conflict group, on both backends. Two long documents can meet
 * through different pairs of lines depending on which side is checked (two versions of the
 * ip-address README were recorded as two groups, once from each side): the second finding is
 * recorded against the group already open, whichever rows and pair key brought it, and two
 * PostgreSQL servers recording the two findings at once still leave one group.
 */
import assert from "node:assert/strict";
import {
  detectConflicts,
  recordFindings,
  rowsOf,
  type SuspectPair,
} from "../../src/conflicts/detect.ts";
import { assessPair } from "../../src/conflicts/rules.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import type { Store } from "../../src/store/mod.ts";
import { onBothBackends } from "../helpers/backend_context.ts";
import { holdOpen, twoServers } from "../helpers/held_units.ts";

const OLD_RUNBOOK = "The nightly backup keeps 30 days of snapshots.\n\n" +
  "The public API allows 100 requests per minute.";
const NEW_RUNBOOK = "The nightly backup keeps 14 days of snapshots.\n\n" +
  "The public API allows 50 requests per minute.";

async function remember(ctx: ServiceContext, content: string): Promise<number> {
  return (await rememberMemory(ctx, { content, subject: "platform runbook", workspace: "ops" }))
    .memoryId;
}

/**
 * The pair of `first`'s row holding `firstWords` and `second`'s row holding `secondWords`, as
 * the check of `first` would report it (the rule stage's own assessment).
 */
async function linePair(
  store: Store,
  [first, firstWords]: [number, string],
  [second, secondWords]: [number, string],
): Promise<SuspectPair> {
  return await store.read(async () => {
    const a = (await store.getMemory(first))!;
    const b = (await store.getMemory(second))!;
    const rowA = (await rowsOf(store, a)).find((row) => row.text.includes(firstWords))!;
    const rowB = (await rowsOf(store, b)).find((row) => row.text.includes(secondWords))!;
    const assessment = assessPair({ text: rowA.text }, { text: rowB.text });
    assert.ok(assessment.candidate, `"${rowA.text}" / "${rowB.text}" is a suspect pair`);
    return { a, b, rowA, rowB, assessment };
  });
}

async function record(ctx: ServiceContext, pair: SuspectPair): Promise<number[]> {
  return await ctx.store.write(async () => await recordFindings(ctx, [pair], [undefined]));
}

async function openGroups(store: Store) {
  return (await store.read(async () =>
    await store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
  )).rows;
}

onBothBackends(
  "a pair of memories already in an open group opens no second one, whichever rows it meets by",
  async ({ ctx, store }) => {
    const older = await remember(ctx, OLD_RUNBOOK);
    const newer = await remember(ctx, NEW_RUNBOOK);
    // The check of the newer runbook meets the older one by the backup line, the check of the
    // older one meets the newer one by the rate line: two pair keys, one pair of memories.
    const first = await record(
      ctx,
      await linePair(store, [newer, "backup"], [older, "backup"]),
    );
    assert.equal(first.length, 1, "the first finding opens a group");
    const second = await record(ctx, await linePair(store, [older, "API"], [newer, "API"]));
    assert.deepEqual(second, [], "the second finding opens nothing");
    const groups = await openGroups(store);
    assert.equal(groups.length, 1, "one pair of memories is one conflict group");
    assert.deepEqual(groups[0].members.map((m) => m.memory_id).sort(), [older, newer].sort());
    const notices = await store.read(async () =>
      await store.conflicts.noticesWhere({ statuses: ["pending"] }, { limit: 10, offset: 0 })
    );
    assert.equal(notices.length, 1, "one notice, for the one group");
    // The second finding is remembered against that group: recorded again, still nothing new.
    assert.deepEqual(
      await record(ctx, await linePair(store, [older, "API"], [newer, "API"])),
      [],
    );
    assert.equal((await openGroups(store)).length, 1);
  },
);

// Two versions of one package's README (ip-address 10.7.6 and 10.7.7) define the same two
// notations; each version's check met the other's through the other definition.
const V4_IN_V6 = "- **v4-in-v6** — mixed notation that embeds an IPv4 address as the last 32 " +
  "bits of an IPv6 address, e.g. `::ffff:192.168.0.1`. Used for IPv4-mapped IPv6 addresses.";
const SIX_TO_FOUR = "- **6to4** — a tunneling protocol that embeds a full 32-bit IPv4 address " +
  "in bits 16–47 of a `2002::/16` IPv6 address, i.e. the second and third groups " +
  "(`192.0.2.4` becomes `2002:c000:204::`). `inspect6to4()` decodes the embedded v4 address.";

onBothBackends(
  "two versions of one README checked from each side leave at most one group",
  async ({ ctx, store }) => {
    const notations = `## Notations\n\n${V4_IN_V6}\n\n${SIX_TO_FOUR}\n`;
    const ids = [];
    for (const line of ["`to4in6()` returns the v4-in-v6 form (src L992).", "(src L994)."]) {
      const { memoryId } = await rememberMemory(ctx, {
        content: `# ip-address\n\n${notations}\n${line}\n`,
        subject: "ip-address",
        workspace: "npm-docs",
      });
      ids.push(memoryId);
    }
    for (const id of ids) await detectConflicts(ctx, id, defaultStages());
    for (const id of [...ids].reverse()) await detectConflicts(ctx, id, defaultStages());
    assert.ok((await openGroups(store)).length <= 1, "never two groups for one pair");
  },
);

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

Deno.test({
  name: `postgres: two servers recording one pair by different rows at once open one group${
    SKIP_POSTGRES ? " SKIPPED" : ""
  }`,
  ignore: SKIP_POSTGRES,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { storeA, storeB, a, b, close } = await twoServers("mema-pg-pair-");
    try {
      const older = await remember(a, OLD_RUNBOOK);
      const newer = await remember(a, NEW_RUNBOOK);
      const byBackup = await linePair(storeA, [newer, "backup"], [older, "backup"]);
      const byRate = await linePair(storeB, [older, "API"], [newer, "API"]);
      // Server A records its finding and holds the unit open; server B records the other
      // finding meanwhile: it waits for A's group and then joins it instead of opening one.
      const held = await holdOpen(storeA, () => recordFindings(a, [byBackup], [undefined]));
      assert.equal(held.answer.length, 1);
      const other = record(b, byRate);
      other.catch(() => {});
      held.release();
      await held.done;
      assert.deepEqual(await other, []);
      assert.equal((await openGroups(storeB)).length, 1, "one pair of memories, one group");
    } finally {
      await close();
    }
  },
});
