/**
 * The usage ledger and nudge (src/recall/usage.ts): uses count in memory at once (ranking sees
 * them before any write), reach the store on a flush, and nudge a tie toward the memory used;
 * the nudge fades with time since the last use, slower for a memory used often.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { readMemory } from "../../src/memory/read.ts";
import { findMemories } from "../../src/recall/find.ts";
import { USAGE_RANKING_DEFAULT, UsageLedger, usageNudge } from "../../src/recall/usage.ts";
import { openTestContext } from "../helpers/context.ts";

const DAY_MS = 86_400_000;

Deno.test("usage nudge: none unused or off; fades by half per stability; use stretches it", () => {
  const now = Date.parse("2026-06-01T00:00:00Z");
  const at = (days: number) => new Date(now - days * DAY_MS).toISOString();
  const fresh = usageNudge({ count: 1, lastAccessed: at(0) }, now, USAGE_RANKING_DEFAULT);
  assert.ok(fresh > 0);
  assert.equal(usageNudge({ count: 0, lastAccessed: null }, now, USAGE_RANKING_DEFAULT), 0);
  assert.equal(
    usageNudge({ count: 9, lastAccessed: at(0) }, now, {
      ...USAGE_RANKING_DEFAULT,
      enabled: false,
    }),
    0,
  );
  // One use: stability = half-life × (1 + log2 2) = 2 half-lives.
  const stability = USAGE_RANKING_DEFAULT.halfLifeDays * 2;
  const half = usageNudge({ count: 1, lastAccessed: at(stability) }, now, USAGE_RANKING_DEFAULT);
  assert.ok(Math.abs(half - fresh / 2) < 1e-9, `${half} vs ${fresh / 2}`);
  const often = usageNudge({ count: 15, lastAccessed: at(stability) }, now, USAGE_RANKING_DEFAULT);
  assert.ok(often > half, "a memory used often fades slower");
});

Deno.test("usage ledger: counts at once, writes on flush, a read and find's top results count", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const usage = new UsageLedger(t.store);
    t.ctx.usage = usage;
    const remember = async (month: string) =>
      (await rememberMemory(t.ctx, {
        content: `The red kite survey runs in ${month}.`,
        subject: "red kite survey",
        workspace: "birds",
      })).memoryId;
    const older = await remember("May");
    const newer = await remember("June");
    const order = async () =>
      (await findMemories(t.ctx, { query: "red kite survey", limit: 2 })).items.map((i) =>
        i.memory.id
      );
    assert.deepEqual(await order(), [newer, older], "a tie goes to the newer id");
    assert.equal(usage.pendingMemories, 2, "find's top results count as used");
    await readMemory(t.ctx, { memoryId: older });
    await readMemory(t.ctx, { memoryId: older });
    assert.deepEqual(await order(), [older, newer], "unwritten uses already nudge");
    assert.equal((await t.store.accessStats([older])).size, 0, "nothing written per call");
    await usage.flush();
    assert.equal(usage.pendingMemories, 0);
    const stored = await t.store.accessStats([older, newer]);
    assert.equal(stored.get(older)?.count, 4, "two finds and two reads");
    assert.equal(stored.get(newer)?.count, 2);
    await usage.close();
    usage.record([older]);
    assert.equal(usage.pendingMemories, 0, "a closed ledger counts nothing");
  } finally {
    t.cleanup();
  }
});

Deno.test("usage ledger: a failed flush keeps the counts for the next one; nothing is lost or doubled", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const id = (await rememberMemory(t.ctx, {
      content: "The heron count is on Sunday.",
      subject: "heron count",
      workspace: "birds",
    })).memoryId;
    let failNext = true;
    // The store as the ledger sees it, with one write that fails (a database gone away).
    const flaky = new Proxy(t.store, {
      get(target, key, receiver) {
        if (key === "write" && failNext) {
          return () => {
            failNext = false;
            return Promise.reject(new Error("database unreachable"));
          };
        }
        const value = Reflect.get(target, key, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const usage = new UsageLedger(flaky);
    usage.record([id]);
    usage.record([id]);
    await assert.rejects(() => usage.flush(), /unreachable/);
    assert.equal(usage.pendingMemories, 1, "the slice went back to the ledger");
    await usage.flush();
    assert.equal((await t.store.accessStats([id])).get(id)?.count, 2);
    await usage.close();
  } finally {
    t.cleanup();
  }
});
