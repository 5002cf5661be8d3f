/**
 * Contradictions write-time detection must catch, and near misses it must leave alone: reversed
 * instructions and preferences, time-of-day windows, and changes stated as events. Each pair is
 * remembered into a real SQLite file and checked as the server's background job checks it.
 */
import assert from "node:assert/strict";
import { assessPair } from "../../src/conflicts/rules.ts";
import { kickScan, scanQueuePage } from "../../src/conflicts/scan.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { detectOnPair } from "../helpers/conflict_pair.ts";
import { openTestContext } from "../helpers/context.ts";

/** The values of the conflict the second fact opens against the first, if any. */
async function conflictBetween(first: string, second: string): Promise<string[] | undefined> {
  const t = await openTestContext({ skipVec: true });
  try {
    const report = await detectOnPair(t, first, second);
    if (report.recorded.length === 0) return undefined;
    const conflict = (await t.store.read(async () =>
      await t.store.conflicts.get(report.recorded[0])
    ))!;
    return conflict.members.map((member) => String(member.value));
  } finally {
    t.cleanup();
  }
}

Deno.test("a reversed instruction is a conflict: what one fact takes, the other turns down", async () => {
  const values = await conflictBetween(
    "Use pnpm, not npm, to install the frontend dependencies.",
    "Install the frontend dependencies with npm; pnpm is no longer used.",
  );
  assert.ok(values, "pnpm / npm reversed");
  assert.deepEqual(values.sort(), ["npm", "pnpm"]);
  assert.ok(
    await conflictBetween(
      "Squash commits when merging, do not rebase.",
      "Rebase when merging; commits are no longer squashed.",
    ),
    "squash / rebase reversed",
  );
});

Deno.test("the same tool named for another task is not a reversal", async () => {
  assert.equal(
    await conflictBetween(
      "Use pnpm, not npm, to install the frontend dependencies.",
      "Use npm to publish the frontend package to the registry.",
    ),
    undefined,
  );
  assert.equal(
    await conflictBetween(
      "Priya prefers tea, not coffee, in the afternoon.",
      "Priya prefers tea, not coffee, in the afternoon, with a little milk.",
    ),
    undefined,
  );
});

Deno.test("schedule windows that do not overlap conflict; a time inside the window does not", async () => {
  assert.ok(
    await conflictBetween(
      "Maria reviews code in the morning, before 11:00.",
      "Maria reviews code in the afternoon, after 15:00.",
    ),
  );
  assert.ok(
    await conflictBetween(
      "Maria reviews code in the morning.",
      "Maria reviews code in the afternoon.",
    ),
    "parts of the day without clock times",
  );
  assert.equal(
    await conflictBetween(
      "Maria reviews code in the morning, before 11:00.",
      "Maria reviews code in the morning, usually around 10:00.",
    ),
    undefined,
    "10:00 lies inside the morning before 11:00",
  );
  assert.equal(
    await conflictBetween(
      "The nightly backup runs between 01:00 and 03:00.",
      "The nightly backup usually runs at 02:30.",
    ),
    undefined,
  );
});

Deno.test("changes stated as events conflict with the value they replace", async () => {
  const cases: [string, string, string][] = [
    ["The Pro plan costs $20 a month.", "The Pro plan price was cut to $15 a month.", "$15"],
    ["The upload limit is 50 MB.", "The upload limit was raised to 200 MB.", "200 MB"],
    ["The launch is on March 3.", "The launch was moved to March 17.", "March 17"],
    ["The team has eight engineers.", "The team shrank to five engineers.", "five engineers"],
    ["The upload limit is 50 MB.", "The upload limit went from 50 MB to 200 MB.", "200 MB"],
    ["The launch is on March 3.", "The launch moved from March 3 to March 17.", "March 17"],
    [
      "The status page is hosted on Statuspage.io.",
      "The status page is now hosted on Instatus.",
      "Instatus",
    ],
    ["Remote work is allowed on Fridays.", "Remote work on Fridays is no longer allowed.", ""],
  ];
  for (const [before, after, value] of cases) {
    const values = await conflictBetween(before, after);
    assert.ok(values, `${before} / ${after}`);
    if (value) assert.ok(values.some((v) => v.includes(value)), `${values} has ${value}`);
  }
});

Deno.test("a change to another kind of amount is not a change of this one", async () => {
  assert.equal(
    await conflictBetween(
      "The cache TTL is 10 minutes.",
      "The cache hit rate grew to 85% after the change.",
    ),
    undefined,
  );
});

Deno.test("mema scan queues the same contradictions: a reversed instruction and two windows", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    for (
      const content of [
        "Use pnpm, not npm, to install the frontend dependencies.",
        "Install the frontend dependencies with npm; pnpm is no longer used.",
        "Maria reviews code in the morning.",
        "Maria reviews code in the afternoon.",
      ]
    ) {
      await rememberMemory(t.ctx, { content, subject: "team notes", workspace: "acme" });
    }
    let receipt = await kickScan(t.ctx, { assess: assessPair, logPath: `${t.dir}/scan.jsonl` });
    while (!receipt.complete) {
      receipt = await kickScan(t.ctx, { assess: assessPair, logPath: `${t.dir}/scan.jsonl` });
    }
    const page = await scanQueuePage(t.ctx, { pageSize: 10 }) as {
      items: { a: { memory_id: number }; b: { memory_id: number } }[];
    };
    const pairs = page.items.map((item) => [item.a.memory_id, item.b.memory_id].sort().join("+"));
    assert.deepEqual(pairs.sort(), ["1+2", "3+4"]);
  } finally {
    t.cleanup();
  }
});

Deno.test("a preference next to something a person likes is no conflict: likes take many objects", async () => {
  assert.equal(
    await conflictBetween("Tom prefers short meetings.", "Tom likes meetings with a clear agenda."),
    undefined,
  );
  assert.equal(
    await conflictBetween("Lena prefers green tea.", "Lena loves tea with honey."),
    undefined,
  );
  // A preference that is replaced still conflicts.
  assert.ok(await conflictBetween("Lena prefers green tea.", "Lena now prefers black coffee."));
});
