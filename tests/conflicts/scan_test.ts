import assert from "node:assert/strict";
import { assessPair } from "../../src/conflicts/rules.ts";
import {
  kickScan,
  recordConflict,
  scanDuplicates,
  scanQueuePage,
  scanQueueSubmit,
} from "../../src/conflicts/scan.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openStore } from "../../src/store/mod.ts";
import { openTestContext } from "../helpers/context.ts";

const FACTS: [string, string][] = [
  ["The v2 release deadline is Friday, March 14.", "release deadline"],
  ["The v2 release deadline moved to Monday, March 17.", "release deadline"],
  ["The staging database runs PostgreSQL 15.", "staging db"],
  ["The staging database was upgraded to PostgreSQL 16.", "staging db"],
  ["Ada owns the billing service.", "billing owner"],
  ["Lunch is served at noon on Fridays.", "lunch"],
];

Deno.test("scan: bounded kicks walk a full round, resume after a restart, and log when complete", async () => {
  const t = await openTestContext();
  try {
    for (const [content, subject] of FACTS) {
      await rememberMemory(t.ctx, { content, subject, workspace: "acme" });
    }
    const logPath = `${t.dir}/scan_log.jsonl`;
    const first = await kickScan(t.ctx, { assess: assessPair, logPath, maxMemories: 2 });
    assert.equal(first.mode, "full");
    assert.equal(first.processedThisKick, 2);
    assert.equal(first.complete, false);
    assert.equal(first.pendingMemories, 4);

    // A crash between kicks: a new process opens the database and the round goes on.
    t.store.close();
    const store = await openStore(t.dbPath, { cacheDir: `${t.dir}/cache` });
    const ctx = { ...t.ctx, store };
    let receipt = await kickScan(ctx, { assess: assessPair, logPath, maxMemories: 2 });
    assert.equal(receipt.roundId, first.roundId);
    while (!receipt.complete) {
      receipt = await kickScan(ctx, { assess: assessPair, logPath, maxMemories: 2 });
    }
    assert.ok(receipt.logged);
    assert.ok(receipt.queuedTotal >= 2, JSON.stringify(receipt));
    const log = Deno.readTextFileSync(logPath).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(log.length, 1);
    assert.equal(log[0].status, "complete");
    assert.equal(log[0].processed, FACTS.length);

    const idle = await kickScan(ctx, { assess: assessPair, logPath });
    assert.deepEqual([idle.mode, idle.processedThisKick, idle.complete, idle.logged], [
      "incremental",
      0,
      true,
      false,
    ]);
    await updateMemory(ctx, {
      memoryId: 6,
      edit: { kind: "new_content", content: "Lunch is served at 12:30 on Fridays." },
    });
    const changed = await kickScan(ctx, { assess: assessPair, logPath });
    assert.equal(changed.processedThisKick, 1, "an incremental round scans only what changed");

    const page = await scanQueuePage(ctx, { pageSize: 1 }) as {
      items: { item_id: number; a: { memory_id: number } }[];
      has_more: boolean;
      next_page_token: string;
    };
    assert.equal(page.items.length, 1);
    assert.equal(page.has_more, true);
    const next = await scanQueuePage(ctx, { pageSize: 10, pageToken: page.next_page_token }) as {
      items: { item_id: number }[];
    };
    assert.ok(!next.items.some((i) => i.item_id === page.items[0].item_id));
    const all = [page.items[0], ...next.items] as { item_id: number }[];
    const submitted = await scanQueueSubmit(ctx, {
      decisions: [
        { itemId: all[0].item_id, status: "confirmed" },
        ...all.slice(1).map((i) => ({ itemId: i.item_id, status: "dismissed" as const })),
      ],
    }) as { outcomes: { outcome: string; conflict_id?: number }[] };
    assert.equal(submitted.outcomes[0].outcome, "confirmed");
    assert.ok(typeof submitted.outcomes[0].conflict_id === "number");
    assert.equal((await store.conflicts.get(submitted.outcomes[0].conflict_id!))?.source, "scan");
    const empty = await scanQueuePage(ctx, {}) as { items: unknown[]; queue_backlog: number };
    assert.deepEqual([empty.items.length, empty.queue_backlog], [0, 0]);
    const twice = await scanQueueSubmit(ctx, {
      decisions: [{ itemId: all[0].item_id, status: "dismissed" }],
    }) as {
      outcomes: { outcome: string }[];
    };
    assert.equal(twice.outcomes[0].outcome, "already_confirmed");
    await assert.rejects(
      async () => await scanQueuePage(ctx, { pageToken: "garbage" }),
      /page_token/,
    );
    store.close();
  } finally {
    Deno.removeSync(t.dir, { recursive: true });
  }
});

Deno.test("scan: near-duplicates are listed and agents can record conflicts", async () => {
  const t = await openTestContext();
  try {
    const a = (await rememberMemory(t.ctx, {
      content: "Deploys run on Tuesdays after lunch in the EU region.",
      subject: "deploys",
      workspace: "w",
    })).memoryId;
    const b = (await rememberMemory(t.ctx, {
      content: "Deploys run on Tuesdays after lunch in the EU region!",
      subject: "deploys 2",
      workspace: "w",
    })).memoryId;
    await rememberMemory(t.ctx, {
      content: "The cafeteria closes at three.",
      subject: "food",
      workspace: "w",
    });
    const duplicates = await scanDuplicates(t.ctx, {}) as {
      pairs: { memory_ids: number[]; similarity: number }[];
    };
    assert.deepEqual(duplicates.pairs.map((p) => p.memory_ids), [[a, b]]);
    assert.ok(duplicates.pairs[0].similarity >= 0.8);

    const recorded = await recordConflict(t.ctx, {
      memoryIds: [a, b],
      valueGroups: [{ value: "Tuesdays", memory_ids: [a, b] }],
      status: "open",
      reason: "same schedule stated twice",
    }) as { conflict_id: number };
    assert.equal((await t.store.conflicts.get(recorded.conflict_id))?.source, "agent");
    await assert.rejects(
      async () => await recordConflict(t.ctx, { memoryIds: [a], status: "open" }),
      /at least two/,
    );
  } finally {
    t.cleanup();
  }
});
