/**
 * Every room call of a store passed through one wrapper: the PostgreSQL store makes a call
 * made outside a unit of work wait for the database to be opened (a server may start before
 * it answers), and gives a lost connection's error the clear wording units give it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { aroundRoomCalls } from "./room_calls.ts";
 *
 * const calls: string[] = [];
 * const rooms = aroundRoomCalls(
 *   { getMeta: (key: string) => Promise.resolve(key), nested: { count: () => Promise.resolve(1) } },
 *   (call) => {
 *     calls.push("around");
 *     return call();
 *   },
 * );
 * assert.equal(await rooms.getMeta("k"), "k");
 * assert.equal(await rooms.nested.count(), 1);
 * assert.deepEqual(calls, ["around", "around"]);
 * ```
 * @module
 */

/** `rooms` with every function (also those of nested plain objects) called through `around`. */
export function aroundRoomCalls<T extends object>(
  rooms: T,
  around: <R>(call: () => Promise<R>) => Promise<R>,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rooms)) {
    if (typeof value === "function") {
      wrapped[name] = (...args: unknown[]) => around(() => value(...args));
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      wrapped[name] = aroundRoomCalls(value, around);
    } else {
      wrapped[name] = value;
    }
  }
  return wrapped as T;
}
