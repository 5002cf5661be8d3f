import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { queryDates } from "../../src/recall/dates.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openTestContext } from "../helpers/context.ts";

const NOW = Date.UTC(2026, 11, 3);

Deno.test("a query's dates are read in the usual spellings, and 'may' the verb is not one", () => {
  const day = (query: string) =>
    queryDates(query, NOW).map((w) => [new Date(w.start).toISOString(), w.anyYear ?? false]);
  assert.deepEqual(day("What did John do on 7 July, 2023?"), [["2023-07-07T00:00:00.000Z", false]]);
  assert.deepEqual(day("What did she show on October 13, 2023?"), [[
    "2023-10-13T00:00:00.000Z",
    false,
  ]]);
  assert.deepEqual(day("deploy on 2024-02-29"), [["2024-02-29T00:00:00.000Z", false]]);
  assert.deepEqual(day("What did Maria start in December 2023?"), [[
    "2023-12-01T00:00:00.000Z",
    false,
  ]]);
  assert.deepEqual(day("What did we decide last May?"), [["2026-05-01T00:00:00.000Z", false]]);
  assert.deepEqual(day("last December's outage"), [["2025-12-01T00:00:00.000Z", false]]);
  assert.deepEqual(day("When did Melanie go camping in June?"), [[
    "2000-06-01T00:00:00.000Z",
    true,
  ]]);
  assert.equal(queryDates("beach trips in 2023", NOW)[0].end, Date.UTC(2024, 0, 1));
  assert.deepEqual(queryDates("May I ask how the deploy went?", NOW), []);
  assert.deepEqual(queryDates("the 13 bugs of 2023-13-45", NOW), []);
});

Deno.test("find favours the memory dated on the day the query names", async () => {
  const t = await openTestContext();
  try {
    const remember = async (content: string, eventTime: string) =>
      (await rememberMemory(t.ctx, { content, subject: "chat", workspace: "w", eventTime }))
        .memoryId;
    const onTheDay = await remember(
      "Maria: I volunteered at the shelter today.",
      "2023-07-07T15:00:00Z",
    );
    const later = await remember(
      "Maria: I volunteered at the shelter again.",
      "2023-08-20T15:00:00Z",
    );
    const page = await findMemories(t.ctx, {
      query: "Where did Maria volunteer on 7 July, 2023?",
      workspace: "w",
    });
    assert.deepEqual(page.items.map((item) => item.memory.id), [onTheDay, later]);
    const august = await findMemories(t.ctx, {
      query: "Where did Maria volunteer in August?",
      workspace: "w",
    });
    assert.deepEqual(august.items.map((item) => item.memory.id), [later, onTheDay]);
  } finally {
    t.cleanup();
  }
});
