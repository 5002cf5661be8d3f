/**
 * What the write path announces: "a memory's content was written". `memory/` announces it inside
 * the write's unit of work; other folders (conflicts) subscribe once, where the services are
 * composed (`src/app/`), so the write path never imports the services that react to it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { MemoryEvents } from "./memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const events = new MemoryEvents();
 * const seen: number[] = [];
 * events.onWritten(async (_store, fact) => {
 *   seen.push(fact.memoryId);
 * });
 * // The write path announces inside its unit of work: store.write(...) in memory/.
 * await store.write(async () => await events.announceWritten(store, { memoryId: 7, version: 1 }));
 * assert.deepEqual(seen, [7]);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { Store } from "../store/repositories.ts";

/** Entities and relations the caller named on `remember`/`update` (issue 35). */
export interface NamedGraph {
  entities: { name: string; kind?: string }[];
  relations: { from: string; type: string; to: string }[];
}

/**
 * An active memory whose content is new: its first version, or a changed text. `sameText`:
 * the text did not change, only the caller named entities or relations for it.
 */
export interface MemoryWritten {
  memoryId: number;
  version: number;
  named?: NamedGraph;
  sameText?: boolean;
}

/**
 * Reacts to a written memory inside the same unit of work (so a queued job commits or rolls
 * back with the write). It may touch only the store, like any unit body: the body may run again.
 */
export type MemoryWrittenListener = (store: Store, fact: MemoryWritten) => Promise<void>;

/**
 * {@linkcode MemoryWrittenListener} for many memories written in one unit (the bulk path): it
 * must leave what reacting to each in turn would.
 */
export type MemoriesWrittenListener = (
  store: Store,
  facts: readonly MemoryWritten[],
) => Promise<void>;

/** The announcements of the write path and who listens to them. */
export class MemoryEvents {
  readonly #written: { one: MemoryWrittenListener; many?: MemoriesWrittenListener }[] = [];

  /**
   * Adds a listener; listeners run in the order they were added. `many`, when given, reacts to
   * a bulk write's memories at once (fewer statements); without it each is announced in turn.
   */
  onWritten(listener: MemoryWrittenListener, many?: MemoriesWrittenListener): void {
    this.#written.push({ one: listener, many });
  }

  /**
   * Runs every listener in turn, each awaited before the next, so the write resolves only
   * after all of them and they act in a fixed order.
   */
  async announceWritten(store: Store, fact: MemoryWritten): Promise<void> {
    for (const listener of this.#written) await listener.one(store, fact);
  }

  /** {@linkcode announceWritten} for many memories written in one unit, listener by listener. */
  async announceWrittenMany(store: Store, facts: readonly MemoryWritten[]): Promise<void> {
    if (facts.length === 0) return;
    for (const listener of this.#written) {
      if (listener.many) await listener.many(store, facts);
      else for (const fact of facts) await listener.one(store, fact);
    }
  }
}
