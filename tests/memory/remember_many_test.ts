/**
 * `rememberMany` stores a call's facts together (a fixed number of statements per call), and
 * must leave exactly what storing them one by one leaves: the same answers (duplicates of stored
 * texts and of earlier facts of the call, a new workspace's hints once, window edges read from
 * the words), the same memories, the same entity graph (a new name shared by several facts is one
 * entity). Its conflict checks are queued as one batch job (conflicts/batch_check.ts), where
 * one-by-one writes queue one each. Run on both backends.
 */
import assert from "node:assert/strict";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { rememberMemory, type RememberResult } from "../../src/memory/remember.ts";
import { type BatchRememberInput, rememberMany } from "../../src/memory/remember_many.ts";
import type { Store } from "../../src/store/mod.ts";
import { STORE_PAIR_BACKENDS as BACKENDS } from "../helpers/store_pairs.ts";

function contextOf(store: Store, dir: string): ServiceContext {
  return {
    store,
    caller: { client: "unit", agentId: "unit-agent" },
    settings: {
      workspaceIsolation: "none",
      includeSize: false,
      backupPath: `${dir}/backup.jsonl`,
      timeZone: "UTC",
    },
    events: composeMemoryEvents(),
  };
}

/** What a user sees of a library: its memories, entities and queued work. */
async function library(store: Store) {
  const memories =
    (await store.memoryPage({ statuses: ["active", "pending"], afterId: 0, limit: 100 })).map((
      m,
    ) => ({
      id: m.id,
      subject: m.subject,
      content: m.content,
      tags: m.tags,
      workspace: m.workspace,
      workspaceCanonical: m.workspaceCanonical,
      status: m.status,
      validFrom: m.validFrom,
      validTo: m.validTo,
      eventTime: m.eventTime,
    }));
  const entities = (await store.entityPage({ offset: 0, limit: 100 })).rows
    .map((entity) => `${entity.workspace}/${entity.name}/${entity.kind}/${entity.mentions}`)
    .sort();
  const mentions = await store.memoryMentions(memories.map((m) => m.id));
  const graph = memories.map((m) =>
    (mentions.get(m.id) ?? []).map((mention) => mention.words).sort().join(",")
  );
  const workspaces = (await store.listWorkspaces()).map((w) => `${w.canonical}:${w.state}`)
    .sort();
  return { memories, entities, graph, workspaces };
}

const FACTS: BatchRememberInput[] = [
  { content: "Quillon Relay forwards payment events", subject: "relay", workspace: "infra" },
  { content: "Quillon Relay moved to Berlin in March 2024", subject: "relay", workspace: "infra" },
  { content: "Deploys run on Fridays", subject: "deploys", workspace: "infra", tags: ["ops"] },
  // The same text again in the call, and in another workspace (not a duplicate there).
  { content: "Deploys run on Fridays", subject: "deploys", workspace: "infra" },
  { content: "Deploys run on Fridays", subject: "deploys", workspace: "Billing" },
  { content: "Marta Kowalski owns the ledger", subject: "owners", workspace: "billing" },
  {
    content: "Ledger exports wait for review",
    subject: "ledger",
    workspace: "billing",
    status: "pending",
  },
  {
    content: "Ledger exports wait for review",
    subject: "ledger",
    workspace: "billing",
    status: "pending",
  },
  { content: "Already stored before the call", subject: "old", workspace: "infra" },
  { content: "Marta Kowalski joined the infra team", subject: "team", workspace: "infra" },
];

for (const backend of BACKENDS) {
  Deno.test({
    name: `${backend.name}: a batch leaves what remembering its facts one by one leaves${
      backend.skipped ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
    }`,
    ignore: backend.skipped === true,
    sanitizeOps: backend.name !== "postgres",
    sanitizeResources: backend.name !== "postgres",
    async fn() {
      const dir = Deno.makeTempDirSync({ prefix: "mema-remember-many-" });
      const { stores, close } = await backend.open(dir);
      try {
        const [batch, oneByOne] = stores.map((store) => contextOf(store, dir));
        for (const ctx of [batch, oneByOne]) {
          await rememberMemory(ctx, {
            content: "Already stored before the call",
            subject: "old",
            workspace: "infra",
          });
        }
        const together = await rememberMany(batch, FACTS.map((fact) => ({ ...fact })));
        const apart: RememberResult[] = [];
        for (const fact of FACTS) apart.push(await rememberMemory(oneByOne, { ...fact }));
        assert.deepEqual(together, apart);
        assert.equal(together[3].duplicateReplay, true);
        assert.equal(together[3].memoryId, together[2].memoryId);
        assert.equal(together[7].duplicateReplay, false, "a pending fact is no duplicate");
        assert.equal(together[8].duplicateReplay, true);
        assert.deepEqual(await library(batch.store), await library(oneByOne.store));
        // Every fact stored active is checked: one job for the call, one per fact one by one.
        const checks = await batch.store.countJobs();
        assert.equal(checks.detect_conflicts_batch?.pending, 1);
        const entities = (await library(batch.store)).entities;
        assert.equal(entities.filter((e) => e.startsWith("infra/Quillon Relay/")).length, 1);
      } finally {
        await close();
        Deno.removeSync(dir, { recursive: true });
      }
    },
  });
}
