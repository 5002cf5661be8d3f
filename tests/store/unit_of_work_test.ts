/**
 * Units of work over the real SQLite file: a body that awaits keeps its transaction to itself
 * (another request's calls wait for it and never see its uncommitted rows), and a body that
 * throws after awaiting leaves nothing behind.
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { type NewMemory, openStore } from "../../src/store/mod.ts";
import { openTestContext } from "../helpers/context.ts";
import { backendTest } from "./backends.ts";

/** Lets other pending work (timers, other requests' continuations) run. */
function yieldToOthers(ms = 5): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function newMemory(content: string): NewMemory {
  const now = new Date().toISOString();
  return {
    subject: "unit",
    content,
    contentSha: content,
    tags: [],
    workspace: "w",
    workspaceCanonical: "w",
    sourceType: "agent_generated",
    sourceRef: null,
    eventTime: null,
    ingestTime: now,
    validFrom: null,
    validTo: null,
    confidence: 1,
    protectionLevel: "normal",
    status: "active",
    agentId: "a",
    client: "c",
    metadata: {},
    follows: null,
    createdAt: now,
    updatedAt: now,
  };
}

Deno.test("another request's reads wait while a unit awaits, and never see its uncommitted rows", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    let inserted = 0;
    let releaseBody!: () => void;
    const bodyMayEnd = new Promise<void>((resolve) => releaseBody = resolve);
    const unit = t.store.write(async (tx) => {
      inserted = await tx.insertMemory(newMemory("A fact written inside the unit"));
      await tx.setMeta("unit_marker", "uncommitted");
      // The body yields (as a networked store's calls do): other requests run meanwhile.
      await bodyMayEnd;
      throw new Error("the unit fails after its writes");
    });
    await yieldToOthers();
    assert.ok(inserted > 0, "the unit has inserted its row and is waiting");

    // Another request, outside the unit: its calls must not run inside the open transaction.
    let readSettled = false;
    const outside = Promise.all([
      t.store.getMemory(inserted),
      t.store.getMeta("unit_marker"),
      t.store.countByStatus(),
    ]).finally(() => readSettled = true);
    await yieldToOthers();
    assert.equal(readSettled, false, "a read from outside waits for the open unit");

    releaseBody();
    await assert.rejects(unit, /fails after its writes/);
    const [memory, marker, counts] = await outside;
    assert.equal(memory, undefined, "the rolled-back row was never visible outside the unit");
    assert.equal(marker, undefined);
    assert.equal(counts.active ?? 0, 0);
  } finally {
    t.cleanup();
  }
});

Deno.test("a unit that throws after awaiting rolls back every write it made", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const kept = await rememberMemory(t.ctx, {
      content: "Kept fact",
      subject: "s",
      workspace: "w",
    });
    let inserted = 0;
    await assert.rejects(
      t.store.write(async (tx) => {
        inserted = await tx.insertMemory(newMemory("Rolled back fact"));
        await yieldToOthers();
        await tx.changeMemory(kept.memoryId, {
          content: "Changed inside the failed unit",
          updatedAt: new Date().toISOString(),
        });
        await tx.appendAudit({
          at: new Date().toISOString(),
          action: "unit_test",
          memoryId: kept.memoryId,
          agentId: "a",
          client: "c",
          reason: null,
          detail: {},
        });
        await yieldToOthers();
        throw new Error("late failure");
      }),
      /late failure/,
    );
    assert.equal(await t.store.getMemory(inserted), undefined);
    assert.equal((await t.store.getMemory(kept.memoryId))?.content, "Kept fact");
    assert.equal(
      (await t.store.listAudit({ action: "unit_test", limit: 50, offset: 0 })).rows.length,
      0,
    );
    // The word index did not keep the rolled-back words either.
    assert.deepEqual(await t.store.termHits(["roll"], { statuses: ["active"] }, 5), []);
  } finally {
    t.cleanup();
  }
});

Deno.test("calls inside a unit, and units nested in it, run in its transaction", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    const seen = await t.store.write(async (tx) => {
      const id = await tx.insertMemory(newMemory("Visible to its own unit"));
      await yieldToOthers();
      // Through the store itself, as services call it: routed to the open unit, no deadlock.
      const own = await t.store.getMemory(id);
      const nested = await t.store.write(async (inner) => {
        await inner.setMeta("nested", "yes");
        return await inner.getMeta("nested");
      });
      const snapshot = await t.store.read(async (r) => await r.getMemory(id));
      return { own: own?.content, nested, snapshot: snapshot?.content };
    });
    assert.deepEqual(seen, {
      own: "Visible to its own unit",
      nested: "yes",
      snapshot: "Visible to its own unit",
    });
    assert.equal(await t.store.getMeta("nested"), "yes");
  } finally {
    t.cleanup();
  }
});

Deno.test("a read unit sees one snapshot while another request's write waits for it", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await t.store.write(async (tx) => await tx.setMeta("counter", "1"));
    // Another request: chained here, outside the unit, and started from inside it.
    let start!: () => void;
    let writeDone = false;
    const other = new Promise<void>((resolve) => start = resolve)
      .then(() => t.store.write(async (tx) => await tx.setMeta("counter", "2")))
      .then(() => writeDone = true);
    const values = await t.store.read(async (r) => {
      const first = await r.getMeta("counter");
      start();
      await yieldToOthers();
      const second = await r.getMeta("counter");
      return { first, second, waited: !writeDone };
    });
    assert.deepEqual(values, { first: "1", second: "1", waited: true });
    await other;
    assert.equal(await t.store.getMeta("counter"), "2");
  } finally {
    t.cleanup();
  }
});

Deno.test("several requests waiting for one unit each get the connection in turn", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const unit = t.store.write(async (tx) => {
      await tx.setMeta("first", "1");
      await held;
    });
    await yieldToOthers();
    // Writes and reads of other requests pile up behind the open unit.
    const waiting = [
      ...["a", "b", "c"].map((key) => t.store.write(async (tx) => await tx.setMeta(key, key))),
      ...["a", "b", "c"].map((key) => t.store.read(async (tx) => await tx.getMeta(key))),
      t.store.countByStatus(),
    ];
    await yieldToOthers();
    release();
    await unit;
    await Promise.all(waiting);
    assert.deepEqual(
      [await t.store.getMeta("a"), await t.store.getMeta("b"), await t.store.getMeta("c")],
      ["a", "b", "c"],
    );
  } finally {
    t.cleanup();
  }
});

Deno.test("a write's asynchronous whileSyncing work is done when the write resolves", async () => {
  for (const durability of ["full", "normal"] as const) {
    const dir = Deno.makeTempDirSync({ prefix: "mema-unit-hint-" });
    const store = await openStore(`${dir}/m.sqlite3`, {
      cacheDir: `${dir}/cache`,
      skipVec: true,
      durability,
    });
    try {
      let hint: string | undefined;
      const id = await store.write(
        async (tx) => await tx.insertMemory(newMemory("A fact with a hint")),
        {
          whileSyncing: async (written) => {
            // Reads through the store after the unit ended, as the duplicate hint does.
            hint = (await store.read(async (r) => await r.getMemory(written)))?.content;
          },
        },
      );
      assert.ok(id > 0);
      assert.equal(hint, "A fact with a hint", durability);
    } finally {
      store.close();
      Deno.removeSync(dir, { recursive: true });
    }
  }
});

Deno.test("a write's afterCommit runs once after the commit, and not when the write rolls back", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-unit-after-" });
  const store = await openStore(`${dir}/m.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
  try {
    const seen: (string | undefined)[] = [];
    await store.write(async (tx) => await tx.insertMemory(newMemory("Committed fact")), {
      afterCommit: () => seen.push("after"),
    });
    assert.deepEqual(seen, ["after"]);
    await assert.rejects(
      store.write(async (tx) => {
        await tx.insertMemory(newMemory("Rolled back fact"));
        throw new Error("body failed");
      }, { afterCommit: () => seen.push("after a rollback") }),
      /body failed/,
    );
    assert.deepEqual(seen, ["after"]);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

backendTest(
  "work a unit started that outlives it runs outside it, and may write",
  async (store) => {
    // A continuation made inside a read unit (as the usage ledger's flush timer is, set during a
    // `find`) keeps the unit's async context; it runs once the unit has ended.
    let go!: () => void;
    const gate = new Promise<void>((resolve) => go = resolve);
    let later: Promise<string | undefined> | undefined;
    await store.read(async (r) => {
      await r.getMeta("flushed");
      later = gate.then(async () => {
        await store.write((tx) => tx.setMeta("flushed", "yes"));
        return await store.getMeta("flushed");
      });
    });
    go();
    assert.equal(await later, "yes");
  },
);
