/**
 * The entity graph through the services on PostgreSQL (docs/SPEC.md §15): a remembered fact's
 * names, aliases folding across facts, the walk, `find` with `entity`, and a purge that takes
 * the names only its fact used, as on the SQLite file (tests/entities/graph_test.ts).
 */
import assert from "node:assert/strict";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { purgeMemories } from "../../src/govern/purge.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openPostgresAsStore } from "../../src/store/postgres/app_store.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { entityView } from "../../src/views/entities.ts";
import { testPostgresUrl } from "../store/backends.ts";

const SKIP = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

Deno.test({
  name: `postgres: the entity graph through the services${SKIP ? " SKIPPED" : ""}`,
  ignore: SKIP,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const store = await openPostgresAsStore(scratch.url);
    const dir = Deno.makeTempDirSync({ prefix: "mema-pg-graph-" });
    try {
      const ctx: ServiceContext = {
        store,
        caller: { client: "unit", agentId: "unit-agent" },
        settings: {
          workspaceIsolation: "none",
          includeSize: false,
          backupPath: `${dir}/backup.jsonl`,
        },
        events: composeMemoryEvents(),
      };
      const remember = async (content: string) =>
        (await rememberMemory(ctx, { content, subject: "infra", workspace: "infra" })).memoryId;
      const a = await remember("The Payments API depends on PostgreSQL 16.");
      const b = await remember("Ledger uses PG for its journal.");
      const gone = await remember("Zanzibar Gateway reports to the Payments API.");
      const view = await entityView(ctx, { name: "Postgres", depth: 1 });
      assert.equal(view.entities[0].name, "PostgreSQL");
      assert.deepEqual(view.entities[0].aliases, ["PG"]);
      assert.deepEqual(view.entities[0].facts.map((f) => f.memory_id), [b, a]);
      const found = await findMemories(ctx, { query: "journal", entity: "PostgreSQL" });
      assert.deepEqual(found.items.map((i) => i.memory.id), [b, a]);
      await purgeMemories(ctx, { memoryIds: [gone], reason: "test", authorized: true });
      await assert.rejects(() => entityView(ctx, { name: "Zanzibar Gateway" }), /no entity/);
    } finally {
      await store.close();
      await scratch.drop();
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
