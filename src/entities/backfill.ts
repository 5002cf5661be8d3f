/**
 * Reading the facts written before the entity graph existed (issue 35), in the background and
 * in bounded slices: a serving process queues one job when the library has not been read
 * through; each slice reads `ENTITY_BACKFILL_BATCH` active facts in id order in one unit and
 * records how far it got (`meta.entities_read_through`), so a stopped process resumes where it
 * was and a finished library is never read again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { backfillEntities, entityBackfillOwed } from "./backfill.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * assert.equal(await entityBackfillOwed(store), true);
 * assert.equal(await backfillEntities(store), 0);
 * assert.equal(await entityBackfillOwed(store), false);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { Store } from "../store/mod.ts";
import { ENTITY_BACKFILL_BATCH } from "./constants.ts";
import { indexMemoryGraph } from "./graph.ts";

/** The job kind of the backfill. */
export const ENTITY_BACKFILL_JOB_KIND = "entity_backfill";
/** `meta` key: the last fact id read, or `done`. */
const READ_THROUGH = "entities_read_through";

/** True while facts written before the graph existed may be unread. */
export async function entityBackfillOwed(store: Store): Promise<boolean> {
  return await store.read(async (tx) => await tx.getMeta(READ_THROUGH)) !== "done";
}

/** Records a library as read through: a new database has no fact written before the graph. */
export async function markEntitiesReadThrough(store: Store): Promise<void> {
  if (store.capabilities.readOnly !== undefined) return;
  await store.writeBlocking(async (tx) => await tx.setMeta(READ_THROUGH, "done"));
}

/**
 * Reads the next slice of facts for entities; resolves with how many it read (0 once the
 * library is read through). A fact that already names entities was read by its write.
 */
export async function backfillEntities(
  store: Store,
  batch = ENTITY_BACKFILL_BATCH,
): Promise<number> {
  return await store.write(async (tx) => {
    const cursor = await tx.getMeta(READ_THROUGH);
    if (cursor === "done") return 0;
    const page = await tx.memoryPage({
      statuses: ["active"],
      afterId: Number(cursor ?? 0),
      limit: batch,
    });
    const mentions = await tx.memoryMentions(page.map((memory) => memory.id));
    for (const memory of page) {
      if (mentions.has(memory.id)) continue;
      await indexMemoryGraph(tx, { memoryId: memory.id, version: memory.version });
    }
    await tx.setMeta(READ_THROUGH, page.length < batch ? "done" : String(page.at(-1)!.id));
    return page.length;
  }, { durable: false });
}

/** Runs slices until the library is read through, giving requests a turn between them. */
export async function runEntityBackfill(
  store: Store,
  between: () => Promise<void>,
): Promise<void> {
  while (await backfillEntities(store) > 0) await between();
}
