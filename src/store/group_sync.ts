/**
 * One disk sync serving every commit made before it started. A commit that asks for durability
 * while a sync runs cannot count on that sync (it may have begun before the commit's frames were
 * written), so it waits for the next one, which every such commit shares.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GroupSync } from "./group_sync.ts";
 *
 * let flushes = 0;
 * const group = new GroupSync(() => {
 *   flushes++;
 *   return Promise.resolve();
 * });
 * await Promise.all([group.sync(), group.sync()]); // each waits for a flush begun after its call
 * assert.ok(flushes >= 1 && flushes <= 2);
 * ```
 * @module
 */

/** Runs `flush` for callers of {@linkcode GroupSync.sync}, at most one at a time. */
export class GroupSync {
  readonly #flush: () => Promise<void>;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(flush: () => Promise<void>) {
    this.#flush = flush;
  }

  /**
   * Resolves once a flush that began after this call has finished; rejects with its error when
   * that flush failed.
   */
  sync(): Promise<void> {
    if (this.#running === undefined) return this.#start();
    this.#queued ??= this.#running.then(() => undefined, () => undefined).then(() => {
      this.#queued = undefined;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<void> {
    const running: Promise<void> = this.#flush().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}
