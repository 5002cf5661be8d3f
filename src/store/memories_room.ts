/**
 * The memories, their history and export pages, on SQLite: {@linkcode MemoriesRepository},
 * {@linkcode HistoryRepository} and {@linkcode PortabilityRepository}. A memory's word-index row
 * is written beside it, and its inserts are journaled for the caches (sqlite_core.ts).
 *
 * @module
 */
import * as memoryLinks from "./memory_links_sql.ts";
import * as memoryState from "./memory_state_sql.ts";
import * as overview from "./overview_sql.ts";
import * as memories from "./memories_sql.ts";
import * as portability from "./portability_sql.ts";
import * as terms from "./terms_sql.ts";
import type {
  HistoryRepository,
  MemoriesRepository,
  PortabilityRepository,
} from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";
import type { NewMemory } from "./types.ts";

const NOT_INDEXED: terms.IndexedRow = { counted: new Set(), held: false, folded: false };

/** The memories room over `core`'s connection. */
export function sqliteMemories(core: SqliteCore): Sync<MemoriesRepository> {
  const db = core.connection.db;
  const insertMemory = (memory: NewMemory) => {
    const id = memories.insertMemory(db, memory);
    const row = core.capabilities.fts ? terms.indexMemoryTerms(db, id, memory) : NOT_INDEXED;
    core.inserts?.memories.push({ id, tokens: row.counted, held: row.held, folded: row.folded });
    return id;
  };
  return {
    insertMemory,
    insertMemories: (list) => list.map(insertMemory),
    getMemory: (id) => memories.selectMemory(db, id),
    getMemories: (ids) => core.getMemories(ids),
    contentsOf: (ids) => memories.selectContents(db, ids),
    findActiveByContent: (workspaceCanonical, contentSha) =>
      memories.selectActiveByContent(db, workspaceCanonical, contentSha),
    findActiveByContents: (texts) =>
      texts.map((text) =>
        memories.selectActiveByContent(db, text.workspaceCanonical, text.contentSha)
      ),
    changeMemory(id, change) {
      const indexed = core.capabilities.fts &&
        (change.subject !== undefined || change.content !== undefined ||
          change.tags !== undefined);
      const before = indexed ? memories.selectMemory(db, id) : undefined;
      memories.updateMemoryRow(db, id, change);
      const after = before ? memories.selectMemory(db, id) : undefined;
      if (before && after) terms.indexMemoryTerms(db, id, after, before);
    },
    setStatus: (id, change) => memoryState.updateStatus(db, id, change),
    setTrust: (id, change) => memoryState.updateTrust(db, id, change),
    setMetadata: (id, metadata) => memoryState.updateMetadata(db, id, metadata),
    countByStatus: (workspace) => memories.countByStatus(db, workspace),
    overviewCounts: (workspace) => overview.selectOverviewCounts(db, workspace),
    supersededBy: (memoryId) => memoryLinks.selectSupersededBy(db, memoryId),
  };
}

/** The history room over `core`'s connection. */
export function sqliteHistory(core: SqliteCore): Sync<HistoryRepository> {
  const db = core.connection.db;
  return {
    appendHistory: (entry) => memories.insertHistory(db, entry),
    listHistory: (memoryId) => memories.selectHistory(db, memoryId),
    countHistory: () => memories.countHistory(db),
    deleteHistory: (memoryId, versions) => memoryState.deleteHistory(db, memoryId, versions),
    historyOf: (memoryIds) => portability.selectHistoryOf(db, memoryIds),
  };
}

/** The export and import reads over `core`'s connection. */
export function sqlitePortability(core: SqliteCore): Sync<PortabilityRepository> {
  const db = core.connection.db;
  return {
    memoryPage: (query) => portability.selectMemoryPage(db, query),
    countMemories: (query) => portability.countMemories(db, query),
    findActiveBySourceRef: (workspaceCanonical, sourceRef) =>
      portability.selectActiveBySourceRef(db, workspaceCanonical, sourceRef),
  };
}
