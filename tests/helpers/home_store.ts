/**
 * Writes into a temp home's database through the write path, as `serve` would, before a CLI run.
 * @module
 */
import type { ServiceContext } from "../../src/core/context.ts";
import { openStore } from "../../src/store/mod.ts";
import type { TempHome } from "./server.ts";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";

/** Opens the home's database as client "cursor", agent "cursor-main", runs `write`, closes it. */
export async function withHomeStore<T>(
  home: TempHome,
  write: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
  const store = await openStore(home.dbPath, { cacheDir: `${home.dir}/cache`, skipVec: true });
  try {
    return await write({
      store,
      caller: { client: "cursor", agentId: "cursor-main" },
      settings: { workspaceIsolation: "none", includeSize: true },
      events: composeMemoryEvents(),
    });
  } finally {
    store.close();
  }
}
