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
import type { TextGraph } from "../entities/text_graph.ts";
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
  /** The text's entity reading when the writer has it already (a bulk import reads ahead). */
  reading?: TextGraph;
}

/**
 * Reacts to a written memory inside the same unit of work (so a queued job commits or rolls
 * back with the write). It may touch only the store, like any unit body: the body may run again.
 */
export type MemoryWrittenListener = (store: Store, fact: MemoryWritten) => Promise<void>;

/**
 * Reacts once to the facts of a whole batch of a bulk writer (an import chunk), inside the
 * batch's unit of work: work planned per batch (one conflict-check job for the chunk) instead of
 * once per fact.
 */
export type MemoryBatchListener = (
  store: Store,
  facts: readonly MemoryWritten[],
) => Promise<void>;

interface Subscription {
  each: MemoryWrittenListener;
  batched?: MemoryBatchListener;
}

/** The announcements of the write path and who listens to them. */
export class MemoryEvents {
  readonly #subscriptions: Subscription[];
  /** Facts held for batched listeners; only on the events of a batch ({@link batch}). */
  readonly #held: Map<Subscription, MemoryWritten[]> | undefined;

  constructor(shared?: { subscriptions: Subscription[] }) {
    this.#subscriptions = shared?.subscriptions ?? [];
    this.#held = shared ? new Map() : undefined;
  }

  /**
   * Adds a listener; listeners run in the order they were added. With `batched`, the events of a
   * batch ({@link batch}) hold this listener's facts and hand them over together at
   * {@link settleBatch}; everywhere else `listener` sees each fact as it is written.
   */
  onWritten(
    listener: MemoryWrittenListener,
    options: { batched?: MemoryBatchListener } = {},
  ): void {
    this.#subscriptions.push({ each: listener, batched: options.batched });
  }

  /**
   * Runs every listener in turn, each awaited before the next, so the write resolves only
   * after all of them and they act in a fixed order.
   */
  async announceWritten(store: Store, fact: MemoryWritten): Promise<void> {
    for (const subscription of this.#subscriptions) {
      const held = subscription.batched ? this.#held : undefined;
      if (held) {
        const facts = held.get(subscription) ?? [];
        facts.push(fact);
        held.set(subscription, facts);
      } else await subscription.each(store, fact);
    }
  }

  /**
   * Events for one batch of a bulk writer, with the same listeners: a listener subscribed with
   * `batched` gets the batch's facts at {@link settleBatch}, which the writer calls at the end
   * of the batch's unit of work. Make a new one for each attempt of the unit (the body may run
   * again).
   */
  batch(): MemoryEvents {
    return new MemoryEvents({ subscriptions: this.#subscriptions });
  }

  /** Hands the facts held by a batch's events to their batched listeners (none elsewhere). */
  async settleBatch(store: Store): Promise<void> {
    if (!this.#held) return;
    for (const subscription of this.#subscriptions) {
      const facts = this.#held.get(subscription);
      this.#held.delete(subscription);
      if (facts && facts.length > 0) await subscription.batched!(store, facts);
    }
  }
}
