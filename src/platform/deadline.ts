/**
 * Waiting with a bound: for shutdown paths that must not hang on a promise
 * that may never settle (a stalled client, a job that does not stop).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settlesWithin } from "./deadline.ts";
 *
 * assert.equal(await settlesWithin(new Promise(() => {}), 10), false); // after 10 ms
 * assert.equal(await settlesWithin(Promise.resolve(), 10), true);
 * ```
 * @module
 */

/**
 * Resolves true when `promise` settles (either way) within `ms`, false when
 * the time runs out first. The timer is cleared either way.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
