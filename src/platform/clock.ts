/**
 * The wall clock and a synchronous wait.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nowIso, sleepSync } from "./clock.ts";
 *
 * const before = nowIso();
 * sleepSync(2);
 * assert.match(before, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
 * assert.ok(nowIso() > before);
 * ```
 * @module
 */

/** The current time as an ISO 8601 UTC string with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

let processZone: string | undefined;

/**
 * The zone of this process (the `TZ` variable or the machine's setting), read once: building
 * an `Intl.DateTimeFormat` costs ~0.1 ms, paid by every `remember` and `find` before.
 */
export function systemTimeZone(): string {
  return processZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Blocks the current thread for `ms` milliseconds (used between SQLITE_BUSY retries). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
