import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { filterSql, recordPassesFilters } from "../../src/store/recall_sql.ts";
import { MEMORY_STATUSES, type RecallFilters } from "../../src/store/types.ts";
import { openTestContext } from "../helpers/context.ts";
import { rememberMemory } from "../../src/memory/remember.ts";

/** Every filter the recall channels use, alone and combined. */
const FILTERS: RecallFilters[] = [
  { statuses: ["active"] },
  { statuses: ["superseded", "retired"] },
  { statuses: MEMORY_STATUSES },
  { statuses: ["active"], workspaces: ["alpha"] },
  { statuses: ["active"], workspaces: [] },
  { statuses: ["active"], workspaces: ["alpha", "beta"], excludeWorkspaces: ["beta"] },
  { statuses: MEMORY_STATUSES, excludeWorkspaces: ["alpha"] },
  { statuses: MEMORY_STATUSES, tagsAll: ["red"] },
  { statuses: MEMORY_STATUSES, tagsAll: ["red", "blue"] },
  { statuses: MEMORY_STATUSES, after: "2024-03-01T00:00:00.000Z" },
  { statuses: MEMORY_STATUSES, before: "2024-03-01T00:00:00.000Z" },
  {
    statuses: MEMORY_STATUSES,
    after: "2024-01-01T00:00:00.000Z",
    before: "2024-06-01T00:00:00.000Z",
  },
  { statuses: MEMORY_STATUSES, after: "2024-03-01T00:00:00.000Z", byValidity: true },
  { statuses: MEMORY_STATUSES, before: "2024-03-01T00:00:00.000Z", byValidity: true },
  {
    statuses: MEMORY_STATUSES,
    after: "2024-01-01T00:00:00.000Z",
    before: "2024-06-01T00:00:00.000Z",
    byValidity: true,
  },
  { statuses: MEMORY_STATUSES, sourceTypes: ["user_confirmed"] },
  { statuses: MEMORY_STATUSES, sourceTypes: ["document_extracted"] },
  { statuses: MEMORY_STATUSES, sourceTypes: [] },
  { statuses: MEMORY_STATUSES, protectionLevels: ["locked"] },
  {
    statuses: ["active", "pending"],
    workspaces: ["alpha"],
    tagsAll: ["red"],
    sourceTypes: ["agent_generated", "document_extracted"],
  },
];

Deno.test("filtering a record in hand gives the SQL filter's answer for every filter", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const ids: number[] = [];
    const tagSets = [[], ["red"], ["red", "blue"], ["blue"]];
    const times = [undefined, "2023-12-31T23:00:00.000Z", "2024-03-01T00:00:00.000Z", "2024-07-01"];
    for (let i = 0; i < 16; i++) {
      const { memoryId } = await rememberMemory(t.ctx, {
        subject: `fact ${i}`,
        content: `Fact number ${i} about the orchard`,
        workspace: ["alpha", "beta", "gamma"][i % 3],
        tags: tagSets[i % tagSets.length],
        eventTime: times[i % times.length],
        sourceType: i % 2 === 0 ? "document_extracted" : "agent_generated",
        status: i % 7 === 0 ? "pending" : undefined,
        // Validity windows: open-ended, closed, and none (the event time then decides).
        validFrom: i % 5 === 1 ? "2024-02-01" : i % 5 === 2 ? "2023-06-01" : undefined,
        validTo: i % 5 === 2 ? "2024-02-01" : i % 5 === 3 ? "2024-04-01" : undefined,
      });
      ids.push(memoryId);
    }
    // Other statuses, trust and locks set directly, as the lifecycle and approvals would.
    const db = new DatabaseSync(t.dbPath);
    db.exec(`UPDATE memories SET source_type = 'user_confirmed' WHERE id % 4 = 0`);
    db.exec(`UPDATE memories SET protection_level = 'locked' WHERE id % 5 = 0`);
    db.exec(`UPDATE memories SET status = 'superseded' WHERE id IN (${ids[3]}, ${ids[9]})`);
    db.exec(`UPDATE memories SET status = 'retired' WHERE id = ${ids[4]}`);
    const records = await t.store.read(async () => await t.store.getMemories(ids));
    assert.equal(records.size, ids.length);
    for (const filters of FILTERS) {
      const { where, values } = filterSql(filters);
      const bySql = new Set(
        (db.prepare(`SELECT id FROM memories m WHERE ${where}`).all(...values) as { id: number }[])
          .map((row) => Number(row.id)),
      );
      const inHand = new Set(ids.filter((id) => recordPassesFilters(records.get(id)!, filters)));
      assert.deepEqual(inHand, bySql, JSON.stringify(filters));
    }
    db.close();
  } finally {
    t.cleanup();
  }
});
