/**
 * The write path's listeners, subscribed once: every context that serves writes gets its events
 * from here, so a written memory queues its conflict check wherever it was written.
 *
 * @example
 * ```ts
 * import { composeMemoryEvents } from "./src/app/memory_events.ts";
 * const events = composeMemoryEvents();
 * // { store, caller, settings, events }: a ServiceContext whose writes queue conflict checks
 * ```
 * @module
 */
import { subscribeConflictChecks } from "../conflicts/schedule.ts";
import { MemoryEvents } from "../core/memory_events.ts";

/** Events with every listener the services need: today, conflicts' queued check. */
export function composeMemoryEvents(): MemoryEvents {
  const events = new MemoryEvents();
  subscribeConflictChecks(events);
  return events;
}
