/**
 * A service context over a real SQLite file in a temporary directory.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { SemanticIndex } from "../../src/evidence/semantic.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { openStore, type Store } from "../../src/store/mod.ts";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";

/** An open test store with its context. */
export interface TestContext {
  ctx: ServiceContext;
  store: Store;
  dir: string;
  dbPath: string;
  cleanup(): void;
}

/** Opens a fresh database in a temp dir. */
export async function openTestContext(
  options: { skipVec?: boolean; agentId?: string } = {},
): Promise<TestContext> {
  const dir = Deno.makeTempDirSync({ prefix: "mema-unit-" });
  const dbPath = `${dir}/mema.sqlite3`;
  const store = await openStore(dbPath, { cacheDir: `${dir}/cache`, skipVec: options.skipVec });
  const ctx: ServiceContext = {
    store,
    caller: { client: "unit", agentId: options.agentId ?? "unit-agent" },
    settings: { workspaceIsolation: "none", includeSize: true },
    events: composeMemoryEvents(),
  };
  return {
    ctx,
    store,
    dir,
    dbPath,
    cleanup() {
      store.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/**
 * A test context whose semantic index uses the built-in static model (built into
 * `<dir>/models` on first use). Unload `semantic` before `cleanup()`.
 */
export async function openStaticModelContext(): Promise<TestContext & { semantic: SemanticIndex }> {
  const t = await openTestContext();
  const semantic = new SemanticIndex(t.store, {
    modelId: "static-wink-100d",
    modelsDir: `${t.dir}/models`,
  });
  t.ctx.semantic = semantic;
  return { ...t, semantic };
}

/**
 * Every user-visible row of the database as one string, read through a
 * separate read-only connection: equal snapshots mean nothing was written.
 */
export function snapshotDatabase(dbPath: string): string {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const tables = ["memories", "memory_history", "audit"];
    const parts = tables.map((table) =>
      JSON.stringify(db.prepare(`SELECT * FROM ${table} ORDER BY id`).all())
    );
    const fts = db.prepare("SELECT count(*) AS n FROM memories_terms_docsize").get() as {
      n: number;
    };
    parts.push(String(fts.n));
    return parts.join("\n");
  } finally {
    db.close();
  }
}
