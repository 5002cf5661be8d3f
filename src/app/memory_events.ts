/**
 * The write path's listeners, subscribed once: every context that serves writes gets its events
 * from here, so a written memory queues its conflict check wherever it was written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DETECT_JOB_KIND } from "../conflicts/constants_pipeline.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "./memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * // The write queued its conflict check.
 * assert.equal((await store.countJobs())[DETECT_JOB_KIND]?.pending, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { subscribeConflictChecks } from "../conflicts/schedule.ts";
import { MemoryEvents } from "../core/memory_events.ts";
import { subscribeEntityGraph } from "../entities/graph.ts";

/** Events with every listener the services need: conflicts' queued check, the entity graph. */
export function composeMemoryEvents(): MemoryEvents {
  const events = new MemoryEvents();
  subscribeConflictChecks(events);
  subscribeEntityGraph(events);
  return events;
}
