/**
 * A bulk load into a new PostgreSQL library leaves the planner's statistics of `memories`
 * current. Before, the first batches' cached plans (made for an empty table) stayed until
 * autovacuum's first analyze, a minute or more later: the duplicate lookup of every batch
 * then scanned `memories` once per text (945 ms a call at 10,000 memories; docs/POSTGRES.md,
 * "What grows from 10,000 to 100,000 memories").
 * @module
 */
import assert from "node:assert/strict";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import { rememberMany } from "../../src/memory/remember_many.ts";
import { openPostgresAsStore } from "../../src/store/postgres/app_store.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "./backends.ts";

const skipped = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

Deno.test({
  name: `postgres: a bulk load into an empty library refreshes the planner's row count${
    skipped ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
  }`,
  ignore: skipped,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const scratch = await createScratchDatabase(testPostgresUrl());
    const store = await openPostgresAsStore(scratch.url);
    const dir = Deno.makeTempDirSync({ prefix: "mema-pg-statistics-" });
    const admin = await connectPostgres(scratch.url, { max: 1 });
    try {
      const facts = Array.from({ length: 60 }, (_, i) => ({
        content: `Relay ${i} forwards the payment events of region ${i * 7}`,
        subject: `relay ${i}`,
        workspace: "infra",
      }));
      const ctx = {
        store,
        caller: { client: "unit", agentId: "unit-agent" },
        settings: {
          workspaceIsolation: "none" as const,
          includeSize: false,
          backupPath: `${dir}/backup.jsonl`,
          timeZone: "UTC",
        },
        events: composeMemoryEvents(),
      };
      await rememberMany(ctx, facts);
      const [row] = await admin`SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass`;
      assert.equal(Number(row.reltuples), facts.length);
    } finally {
      await admin.end();
      await store.close();
      await scratch.drop();
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
