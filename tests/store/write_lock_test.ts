import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MemaError } from "../../src/errors/mod.ts";
import { openStore, type Store } from "../../src/store/mod.ts";

/** A store plus a second connection to the same file that holds the write lock. */
async function lockedStore(): Promise<{ store: Store; holder: DatabaseSync; cleanup(): void }> {
  const dir = Deno.makeTempDirSync({ prefix: "mema-write-lock-" });
  const path = `${dir}/m.sqlite3`;
  const store = await openStore(path, { cacheDir: `${dir}/cache`, skipVec: true });
  const holder = new DatabaseSync(path);
  holder.exec("BEGIN IMMEDIATE");
  holder.exec("INSERT INTO meta(key, value) VALUES ('holder', '1')");
  return {
    store,
    holder,
    cleanup() {
      if (holder.isTransaction) holder.exec("ROLLBACK");
      holder.close();
      store.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/** Resolves after `count` ticks of a 10 ms interval: only if the event loop keeps running. */
function ticks(count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const id = setInterval(() => {
      if (++seen < count) return;
      clearInterval(id);
      resolve();
    }, 10);
  });
}

Deno.test("a write waiting for another connection's lock leaves the event loop free, then succeeds", async () => {
  const { store, holder, cleanup } = await lockedStore();
  try {
    let settled = false;
    const pending = store.write(async () => await store.setMeta("waiter", "1"));
    const settle = () => {
      settled = true;
    };
    pending.then(settle, settle);

    // Timers keep firing and reads keep answering while the write waits.
    await ticks(5);
    assert.equal(settled, false, "the write must still be waiting for the lock");
    assert.equal(
      await store.read(async () => await store.getMeta("holder")),
      undefined,
      "uncommitted stays unseen",
    );
    assert.equal(await store.read(async () => await store.getMeta("waiter")), undefined);
    assert.equal(settled, false);

    holder.exec("COMMIT");
    await pending;
    assert.equal(await store.read(async () => await store.getMeta("holder")), "1");
    assert.equal(await store.read(async () => await store.getMeta("waiter")), "1");
  } finally {
    cleanup();
  }
});

Deno.test("a write whose lock is never released fails with storage_busy", async () => {
  const { store, holder, cleanup } = await lockedStore();
  let tickCount = 0;
  const interval = setInterval(() => tickCount++, 10);
  try {
    const started = Date.now();
    await assert.rejects(
      async () => await store.write(async () => await store.setMeta("waiter", "1")),
      (error: unknown) => error instanceof MemaError && error.code === "storage_busy",
    );
    const waited = Date.now() - started;
    // Only a loose ceiling: the wait is bounded (about 6 s), not a minute.
    assert.ok(waited < 20_000, `gave up after ${waited} ms`);
    assert.ok(tickCount > 0, "timers ran while the write waited");
    assert.equal(holder.isTransaction, true, "the other connection still holds its lock");
    holder.exec("ROLLBACK");
    assert.equal(
      await store.read(async () => await store.getMeta("waiter")),
      undefined,
      "nothing was written",
    );
  } finally {
    clearInterval(interval);
    cleanup();
  }
});
