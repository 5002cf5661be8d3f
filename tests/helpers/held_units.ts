/**
 * Two servers on one PostgreSQL database, one of them holding a write unit open: the tools of
 * the tests that check what a concurrent unit may and may not wait for (remembers beside
 * remembers, findings and told notices beside remembers).
 */
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import type { Store } from "../../src/store/mod.ts";
import { openPostgresAsStore } from "../../src/store/postgres/app_store.ts";
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";

/** A caller `agentId` on `store`, its backup file under `dir`. */
export function contextOf(store: Store, dir: string, agentId: string): ServiceContext {
  return {
    store,
    caller: { client: "unit", agentId },
    settings: { workspaceIsolation: "none", includeSize: false, backupPath: `${dir}/${agentId}` },
    events: composeMemoryEvents(),
  };
}

/** Two servers on one scratch PostgreSQL database, a caller on each. */
export interface TwoServers {
  storeA: Store;
  storeB: Store;
  a: ServiceContext;
  b: ServiceContext;
  /** The database's URL (for a test's own reads of its tables). */
  url: string;
  /** Closes both stores, drops the database and removes the backup folder. */
  close(): Promise<void>;
}

/** Opens {@linkcode TwoServers}; the backup folder's name starts with `prefix`. */
export async function twoServers(prefix: string): Promise<TwoServers> {
  const scratch = await createScratchDatabase(testPostgresUrl());
  const storeA = await openPostgresAsStore(scratch.url);
  const storeB = await openPostgresAsStore(scratch.url);
  const dir = Deno.makeTempDirSync({ prefix });
  return {
    storeA,
    storeB,
    a: contextOf(storeA, dir, "agent-a"),
    b: contextOf(storeB, dir, "agent-b"),
    url: scratch.url,
    async close() {
      await storeA.close();
      await storeB.close();
      await scratch.drop();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/** A promise and the function that settles it. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * Runs `work` in a concurrent unit on `store` and keeps the unit open until `release` is
 * called; `done` resolves with `work`'s answer once the unit committed.
 */
export async function holdOpen<T>(
  store: Store,
  work: () => Promise<T>,
  options: { durable?: boolean } = {},
): Promise<{ answer: T; release(): void; done: Promise<T> }> {
  const held = gate();
  const worked = Promise.withResolvers<T>();
  const done = store.write(async () => {
    const answer = await work();
    worked.resolve(answer);
    await held.opened;
    return answer;
  }, { concurrent: true, durable: options.durable ?? false });
  // A failed check closes the stores under it: its rejection is the test's, not uncaught.
  done.catch((error) => worked.reject(error));
  return { answer: await worked.promise, release: held.open, done };
}

/**
 * `promise`, or a failure naming `what` after a generous bound: without it a write that
 * wrongly waits for the held unit would hang the test (the gate opens only after it).
 */
export async function withinBound<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), 30_000);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}
