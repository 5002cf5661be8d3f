/**
 * What the word index itself holds, read apart from the document counts mema keeps beside it
 * (`memories_terms_df`, `memories_terms_pending`): the oracle of the count tests.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../../src/memory/remember.ts";
 * import { openStore } from "../../src/store/mod.ts";
 * import { composeMemoryEvents } from "../../src/app/memory_events.ts";
 * import { indexCounts } from "./index_counts.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * await rememberMemory(ctx, { content: "The kiln fires at noon.", subject: "kiln", workspace: "a" });
 * store.close();
 * assert.equal(indexCounts(`${dir}/mema.sqlite3`).get("kiln"), 1); // one memory holds "kiln"
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/**
 * Each token's document count as FTS5 counts it (its vocabulary view), for every token FTS5
 * holds and every token the kept counts name (0 when FTS5 holds it nowhere, so a count left
 * behind is caught too); `""` is the number of memories indexed.
 */
export function indexCounts(dbPath: string): Map<string, number> {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    db.exec("CREATE VIRTUAL TABLE temp.terms_v USING fts5vocab(main, memories_terms, 'row')");
    const counts = new Map<string, number>();
    for (const row of db.prepare("SELECT term FROM memories_terms_df").all()) {
      counts.set(String(row.term), 0);
    }
    for (const row of db.prepare("SELECT terms FROM memories_terms_pending").all()) {
      for (const token of String(row.terms).split(" ")) if (token !== "") counts.set(token, 0);
    }
    for (const row of db.prepare("SELECT term, doc FROM temp.terms_v").all()) {
      counts.set(String(row.term), Number(row.doc));
    }
    counts.delete("");
    const all = db.prepare("SELECT count(*) AS n FROM memories_terms_docsize").get() as {
      n: number;
    };
    counts.set("", Number(all.n));
    return counts;
  } finally {
    db.close();
  }
}

/** How many memories' counts wait in `memories_terms_pending`. */
export function pendingRows(dbPath: string): number {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const row = db.prepare("SELECT count(*) AS n FROM memories_terms_pending").get() as {
      n: number;
    };
    return Number(row.n);
  } finally {
    db.close();
  }
}
