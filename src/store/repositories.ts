/**
 * The store's face: one repository interface per room, every operation `Promise`-returning, and
 * the unit of work that runs them in one transaction. Services are typed against these, never
 * against the SQLite implementation (src/store/mod.ts `openStore`), so a networked database
 * (PostgreSQL) can implement the same surface; docs/ARCHITECTURE.md "The store seam" says how.
 *
 * Type-only: nothing here runs. Parameter shapes of the SQLite modules are named through
 * `import type`, so the interfaces cannot drift from what the SQL takes.
 *
 * @module
 */
import type * as conflicts from "./conflicts_sql.ts";
import type * as evidence from "./evidence_sql.ts";
import type * as entities from "./entities_sql.ts";
import type * as audit from "./audit_sql.ts";
import type * as memoryLinks from "./memory_links_sql.ts";
import type * as overview from "./overview_sql.ts";
import type * as replayLog from "./replay_log_sql.ts";
import type * as jobs from "./jobs_sql.ts";
import type * as notices from "./notices_sql.ts";
import type * as portability from "./portability_sql.ts";
import type * as purge from "./purge_sql.ts";
import type * as scanQueue from "./scan_queue_sql.ts";
import type * as upgrade from "./upgrade_sql.ts";
import type * as usage from "./usage_sql.ts";
import type * as workspaces from "./workspaces_sql.ts";
import type { SchemaState } from "./schema.ts";
import type { WriteOptions } from "./sqlite_connection.ts";
import type {
  AuditEntry,
  HistoryEntry,
  LexicalHit,
  MemoryChange,
  MemoryRecord,
  MemoryStatus,
  NewMemory,
  ProtectionLevel,
  RecallFilters,
  SourceType,
  WordIndexSlice,
} from "./types.ts";

/** The memories themselves: rows, versions in place, status and trust. */
export interface MemoriesRepository {
  /** Inserts a memory (and its word-index row); resolves with its id. */
  insertMemory(memory: NewMemory): Promise<number>;
  /** Inserts many memories, in order (the bulk path); resolves with their ids, in order. */
  insertMemories(memories: readonly NewMemory[]): Promise<number[]>;
  getMemory(id: number): Promise<MemoryRecord | undefined>;
  /** The memories of `ids` that exist (frozen: callers may share them). */
  getMemories(ids: readonly number[]): Promise<Map<number, MemoryRecord>>;
  /** The content of each memory of `ids` that exists, and nothing else of it. */
  contentsOf(ids: readonly number[]): Promise<Map<number, string>>;
  findActiveByContent(
    workspaceCanonical: string,
    contentSha: string,
  ): Promise<MemoryRecord | undefined>;
  /** {@linkcode findActiveByContent} for many texts at once; answers in their order. */
  findActiveByContents(
    texts: readonly { workspaceCanonical: string; contentSha: string }[],
  ): Promise<(MemoryRecord | undefined)[]>;
  changeMemory(id: number, change: MemoryChange): Promise<void>;
  setStatus(
    id: number,
    change: { status: MemoryStatus; supersededBy: number | null; now: string },
  ): Promise<void>;
  setTrust(
    id: number,
    change: { sourceType: SourceType; protectionLevel: ProtectionLevel; now: string },
  ): Promise<void>;
  setMetadata(id: number, metadata: Record<string, unknown>): Promise<void>;
  /** Memories by status (of one workspace, when given), from the kept counts. */
  countByStatus(workspace?: string): Promise<Record<string, number>>;
  /** Counts by status, source, workspace and protection (of one workspace, when given). */
  overviewCounts(workspace?: string): Promise<ReturnType<typeof overview.selectOverviewCounts>>;
  supersededBy(memoryId: number): Promise<number[]>;
}

/**
 * How often memories were returned to agents, and when last (recall's usage nudge). Written in
 * batches by a background flush, never once per call.
 */
export interface UsageRepository {
  /** Adds accesses; `last_accessed` only moves forward; deleted memories are left alone. */
  addAccesses(accesses: readonly usage.MemoryAccess[]): Promise<number>;
  /** The recorded use of those of `ids` that were ever accessed. */
  accessStats(ids: readonly number[]): Promise<Map<number, usage.AccessStat>>;
}

/** Earlier versions of memories. */
export interface HistoryRepository {
  appendHistory(entry: HistoryEntry): Promise<void>;
  listHistory(memoryId: number): Promise<HistoryEntry[]>;
  countHistory(): Promise<number>;
  deleteHistory(memoryId: number, versions: readonly number[]): Promise<number[]>;
  /** The earlier versions of several memories, oldest first. */
  historyOf(memoryIds: readonly number[]): Promise<Map<number, HistoryEntry[]>>;
}

/**
 * The word index (lexical recall). Callers hand it index tokens and weights; how they become a
 * query (FTS5 `MATCH` here, `tsquery` in PostgreSQL) is the store's business.
 */
export interface WordIndexRepository {
  /** Best full-text matches of memories holding any of `tokens` (index tokens). */
  termHits(tokens: readonly string[], filters: RecallFilters, limit: number): Promise<LexicalHit[]>;
  /**
   * Memories holding the most weight of the tokens (summed weights of those each holds). A
   * token with `newest` counts only its newest `newest` holders (highest ids): a bounded read
   * of a word held by much of the library.
   */
  weightedTermHits(
    tokens: readonly { token: string; weight: number; newest?: number }[],
    filters: RecallFilters,
    limit: number,
  ): Promise<LexicalHit[]>;
  /** How many memories hold each index token. */
  tokenFrequencies(tokens: readonly string[]): Promise<Map<string, number>>;
  /** Tokens beginning with `prefix`, within `lengths`, with their document counts. */
  vocabularyByPrefix(
    prefix: string,
    lengths: { min: number; max: number },
    limit: number,
  ): Promise<Map<string, number>>;
  /** How many memories the word index holds. */
  indexedMemories(): Promise<number>;
  /** Memories whose subject, tags or content contain a term (only without a word index). */
  likeHits(terms: readonly string[], filters: RecallFilters, limit: number): Promise<number[]>;
  /** Active todos sharing tags with a memory, most shared first. */
  linkedTodos(
    options: Omit<Parameters<typeof memoryLinks.selectLinkedTodos>[1], "todoMatch">,
  ): Promise<{ id: number; shared: number }[]>;
}

/** Filtered reads of `find`, `browse` and sequence links. */
export interface RecallRepository {
  browse(filters: RecallFilters, page: { limit: number; offset: number }): Promise<number[]>;
  /** Of `ids`, those passing the filters, mapped to their current version. */
  filterMemoryIds(ids: readonly number[], filters: RecallFilters): Promise<Map<number, number>>;
  /** Memories passing the filters that follow one of `ids`, mapped to the id they follow. */
  followersOf(ids: readonly number[], filters: RecallFilters): Promise<Map<number, number>>;
  countFiltered(filters: RecallFilters): Promise<number>;
}

/** Evidence rows: the sentences and chunks of each memory version that recall scores. */
export interface EvidenceRowsRepository {
  replaceRows(
    memory: { id: number; version: number },
    rows: readonly evidence.NewEvidenceRow[],
  ): Promise<void>;
  /** {@linkcode replaceRows} for many memories at once (the bulk path). */
  replaceRowsOfMany(
    list: readonly {
      memory: { id: number; version: number };
      rows: readonly evidence.NewEvidenceRow[];
    }[],
  ): Promise<void>;
  rowsToEmbed(space: string, limit: number): Promise<evidence.EvidenceRowRecord[]>;
  rowsOfMemory(memoryId: number): Promise<evidence.EvidenceRowRecord[]>;
  /**
   * {@linkcode rowsOfMemory} of many memories in one call (a conflict check reads its
   * neighbours' rows at once: one round trip on PostgreSQL instead of one per neighbour).
   */
  rowsOfMemories(memoryIds: readonly number[]): Promise<Map<number, evidence.EvidenceRowRecord[]>>;
  /** Rows and rows not yet embedded in `space`. */
  countRowsToEmbed(space: string | undefined): Promise<{ rows: number; pending: number }>;
  countEvidence(space: string | undefined): Promise<ReturnType<typeof evidence.countEvidence>>;
  memoriesMissingRows(limit: number): Promise<number[]>;
}

/** Embedding vectors of evidence rows and the nearest-row lookup. */
export interface VectorsRepository {
  /** A `null` vector marks the row embedded without a vector (no direction). */
  writeRowVectors(
    space: string,
    vectors: readonly { rowId: number; vector: Float32Array | null }[],
  ): Promise<number>;
  /** The `k` rows nearest to `vector` (cosine distance, nearest first). */
  nearestRows(vector: Float32Array, k: number): Promise<{ rowId: number; distance: number }[]>;
  /** Of the rows `rowIds`, those of their memory's current version passing the filters. */
  currentRowOwners(rowIds: readonly number[], filters: RecallFilters): Promise<Map<number, number>>;
  /** {@linkcode VectorsRepository.nearestRows} kept to current rows passing the filters. */
  nearestCurrentRows(
    vector: Float32Array,
    k: number,
    filters: RecallFilters,
  ): Promise<{ rowId: number; distance: number; memoryId: number }[]>;
  /**
   * Loads the next page (about `maxVectors` vectors; none for 0) of this process's vector copy,
   * starting the load if it never was: a serving process calls it between requests until `complete`, and
   * meanwhile lookups answer from the vectors loaded so far. A process that never calls it
   * loads the whole copy at its first lookup, and so does any once its paged load completed
   * and the copy must start over (the change log outran it).
   */
  loadVectorCopyPage(maxVectors: number): Promise<VectorCopyLoad>;
  /** How far this process's vector copy is loaded (complete when no load is in progress). */
  vectorCopyLoad(): Promise<VectorCopyLoad>;
}

/** How far a process's vector copy is loaded: `loaded` of `total` stored vectors. */
export interface VectorCopyLoad {
  complete: boolean;
  loaded: number;
  total: number;
}

/** The durable background job queue. */
export interface JobsRepository {
  insertJob(job: Parameters<typeof jobs.insertJob>[1]): Promise<number | undefined>;
  claimJobs(claim: Parameters<typeof jobs.claimReadyJobs>[1]): Promise<jobs.JobRecord[]>;
  finishJob(id: number, owner: string): Promise<boolean>;
  failJob(failure: Parameters<typeof jobs.failJobRow>[1]): Promise<jobs.JobStatus | undefined>;
  countJobs(): Promise<Record<string, Record<string, number>>>;
  pruneJobs(before: string): Promise<number>;
  finishPendingJob(job: { kind: string; dedupeKey: string }): Promise<boolean>;
  getJob(id: number): Promise<jobs.JobRecord | undefined>;
  /** Plans the conflict checks of a bulk write (src/conflicts/check_plan.ts). */
  planChecks(checks: readonly jobs.PlannedCheck[]): Promise<void>;
  /** The next `limit` planned checks, in plan order. */
  plannedChecks(limit: number): Promise<jobs.PlannedCheck[]>;
  /** Removes planned checks; true when the plan still holds any. */
  unplanChecks(checks: readonly jobs.PlannedCheck[]): Promise<boolean>;
  /** Pending jobs of a kind after an id, in id order (read, not claimed). */
  pendingJobs(query: { kind: string; afterId: number; limit: number }): Promise<jobs.JobRecord[]>;
  /** Deletes the jobs of `ids` still pending; returns the ids it deleted. */
  takePendingJobs(ids: readonly number[]): Promise<number[]>;
}

/** Conflict groups, their pair keys and stale claims (`store.conflicts`). */
export interface ConflictGroupsRepository {
  insert(group: Parameters<typeof conflicts.insertConflict>[1]): Promise<number | undefined>;
  get(id: number): Promise<conflicts.ConflictRecord | undefined>;
  list(
    query: Parameters<typeof conflicts.selectConflicts>[1],
  ): Promise<ReturnType<typeof conflicts.selectConflicts>>;
  update(id: number, expectedRevision: number, change: conflicts.ConflictChange): Promise<boolean>;
  openOf(memoryIds: readonly number[]): Promise<ReturnType<typeof conflicts.selectOpenConflictsOf>>;
  addKey(key: string, conflictId: number): Promise<boolean>;
  byKey(key: string): Promise<number | undefined>;
  markStale(claim: Parameters<typeof conflicts.insertStaleClaim>[1]): Promise<void>;
  staleClaimsOf(
    memoryIds: readonly number[],
  ): Promise<ReturnType<typeof conflicts.selectStaleClaims>>;
  backlog(): Promise<ReturnType<typeof conflicts.countConflictBacklog>>;
}

/** Notices about conflicts (`store.conflicts`). */
export interface NoticesRepository {
  insertNotice(notice: Parameters<typeof notices.insertNotice>[1]): Promise<number | undefined>;
  notices(query: Parameters<typeof notices.selectNotices>[1]): Promise<notices.NoticeRecord[]>;
  notice(id: number): Promise<notices.NoticeRecord | undefined>;
  setNoticeStatus(
    ids: readonly number[],
    change: Parameters<typeof notices.updateNoticeStatus>[2],
  ): Promise<number>;
  noticesWhere(
    filter: notices.NoticeFilter,
    page: { limit: number; offset: number },
  ): Promise<notices.NoticeRecord[]>;
  countNotices(
    filter: notices.NoticeFilter,
  ): Promise<ReturnType<typeof notices.countNoticesWhere>>;
  setNoticesWhere(
    filter: notices.NoticeFilter,
    change: Parameters<typeof notices.updateNoticesWhere>[2],
  ): Promise<number>;
  noticesOf(conflictId: number): Promise<number[]>;
}

/** The scheduled scan's progress and its queue of suspect pairs (`store.conflicts`). */
export interface ScanQueueRepository {
  memoriesToScan(
    query: Parameters<typeof scanQueue.selectMemoriesToScan>[1],
  ): Promise<ReturnType<typeof scanQueue.selectMemoriesToScan>>;
  countToScan(query: Parameters<typeof scanQueue.countMemoriesToScan>[1]): Promise<number>;
  markScanned(state: Parameters<typeof scanQueue.upsertScanState>[1]): Promise<void>;
  queueItem(item: Parameters<typeof scanQueue.insertScanItem>[1]): Promise<boolean>;
  queueItems(query: Parameters<typeof scanQueue.selectScanItems>[1]): Promise<scanQueue.ScanItem[]>;
  queueItemById(id: number): Promise<scanQueue.ScanItem | undefined>;
  decideItem(
    id: number,
    decision: Parameters<typeof scanQueue.decideScanItem>[2],
  ): Promise<boolean>;
}

/** The conflict rooms, reached as `store.conflicts`. */
export type ConflictTables = ConflictGroupsRepository & NoticesRepository & ScanQueueRepository;

/** Whether any notice is pending (every answer asks). */
export interface PendingNoticesRepository {
  hasPendingNotices(): Promise<boolean>;
}

/** The workspace registry. */
export interface WorkspacesRepository {
  getWorkspace(canonical: string): Promise<workspaces.WorkspaceRecord | undefined>;
  listWorkspaces(): Promise<workspaces.WorkspaceRecord[]>;
  workspaceSummaries(): Promise<workspaces.WorkspaceSummary[]>;
  registerWorkspace(workspace: Parameters<typeof workspaces.insertWorkspace>[1]): Promise<void>;
  confirmWorkspace(canonical: string, change: { at: string; by: string }): Promise<void>;
  markWorkspacesReviewed(
    canonicals: readonly string[],
    change: { at: string; by: string },
  ): Promise<void>;
  redirectWorkspace(
    from: string,
    to: { canonical: string; display: string },
    change: { at: string; by: string },
  ): Promise<void>;
  workspaceMemoryIds(canonical: string): Promise<number[]>;
  moveMemory(
    memory: MemoryRecord,
    to: { canonical: string; display: string },
    at: string,
  ): Promise<workspaces.MoveOutcome>;
}

/** The audit trail. */
export interface AuditRepository {
  appendAudit(entry: AuditEntry): Promise<void>;
  /** Appends an audit row or counts it in a like one of the same window (a refusal flood). */
  recordCoalescedAudit(
    entry: AuditEntry,
    window: audit.CoalesceWindow,
  ): Promise<"added" | "counted">;
  listAudit(query: audit.AuditQuery): Promise<{ rows: audit.AuditRecord[]; total: number }>;
  /** Audit rows about a memory or about one of the conflict groups it was in. */
  auditMentioning(memoryId: number, conflictIds: readonly number[]): Promise<audit.AuditRecord[]>;
  /** Replaces an audit row's reason and detail (only the purge scrubs audit rows). */
  scrubAuditRow(
    auditId: number,
    change: { reason: string | null; detail: Record<string, unknown> },
  ): Promise<void>;
}

/** Which entries of the JSONL backup were replayed into the database, and how. */
export interface ReplayLogRepository {
  replayOutcome(entryId: string): Promise<string | undefined>;
  logReplay(entry: Parameters<typeof replayLog.insertReplay>[1]): Promise<void>;
}

/** Small named values of the database (schema facts, scan rounds, settings). */
export interface MetaRepository {
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
}

/** Removing a memory's content everywhere, and the scrub a purge owes. */
export interface PurgeRepository {
  /** Removes a memory's content from every table and leaves its tombstone. */
  purgeMemoryContent(memory: MemoryRecord, now: string): Promise<purge.PurgedContent>;
  /** Conflict groups (any status) a memory belongs to. */
  conflictIdsOf(memoryId: number): Promise<number[]>;
  /** Deletes a conflict group with its members, notices and scan-queue items. */
  deleteConflict(conflictId: number): Promise<void>;
  /** Rewrites a group without a purged member. */
  rewriteConflictWithout(
    conflictId: number,
    memoryId: number,
    change: Parameters<typeof purge.rewriteConflict>[2],
  ): Promise<void>;
  /** Deletes the notices whose payload names a memory. */
  deleteNoticesNaming(memoryId: number): Promise<number>;
  owedScrub(): Promise<purge.OwedScrub | undefined>;
  markScrubOwed(backupIds: readonly string[]): Promise<void>;
  clearOwedScrub(value: string): Promise<void>;
}

/** Exports and imports: pages of memories in id order, and imported memories' sources. */
export interface PortabilityRepository {
  /** One page of memories in id order (keyset paging on `afterId`). */
  memoryPage(query: portability.MemoryPageQuery): Promise<MemoryRecord[]>;
  countMemories(query: Omit<portability.MemoryPageQuery, "limit" | "afterId">): Promise<number>;
  /** The active memory an import stored from `sourceRef` in a workspace, if any. */
  findActiveBySourceRef(
    workspaceCanonical: string,
    sourceRef: string,
  ): Promise<MemoryRecord | undefined>;
}

/** Copying a database into this one (`mema upgrade`, `mema copy`). */
export interface UpgradeRepository {
  /** The tables to copy (`evidence`: evidence rows too, which `mema copy` carries). */
  tablesToCopyFrom(
    source: upgrade.CopySource,
    options?: { evidence?: boolean },
  ): Promise<{ table: string; columns: string[] }[]>;
  copyTableFrom(source: upgrade.CopySource, table: string, columns: string[]): Promise<number>;
  restoreMemory(memory: MemoryRecord): Promise<void>;
  restoreWorkspace(row: Parameters<typeof upgrade.upsertWorkspace>[1]): Promise<void>;
  registerMemoryWorkspaces(): Promise<void>;
  /** Rebuilds the word index from the memories; resolves with memories indexed. */
  rebuildWordIndex(): Promise<number>;
  contentFingerprints(): Promise<upgrade.ContentFingerprints>;
}

/**
 * Upkeep of the storage itself. Each backend does what its engine needs; PostgreSQL's
 * VACUUM and its vector index would sit here too.
 */
export interface MaintenanceRepository {
  /** Folds the write-ahead log into the database; `busy` > 0 when it could not. */
  checkpoint(): Promise<{ busy: number }>;
  /**
   * Lets this connection's write-ahead log grow to about `pages` pages before its commits fold
   * it into the database (a bulk import: fewer checkpoints, each index page written back once
   * per checkpoint rather than once per batch); undefined restores the default. Where the
   * engine manages its log itself (PostgreSQL), nothing changes.
   */
  spaceCheckpoints(pages: number | undefined): Promise<void>;
  /** After a purge commits, outside any unit: vacuum when freed space may hold old bytes. */
  scrubFreedSpace(): Promise<purge.FreedSpaceScrub>;
  /** Checkpoints and truncates the write-ahead log, outside any unit. */
  truncateWal(): Promise<{ truncated: boolean; problem?: string }>;
  /** Rewrites the word index without the entries of deleted rows (inside the purge's unit). */
  compactTermsIndex(): Promise<void>;
  /** Whether the vector table exists (the vector extension loaded and a space chosen). */
  vecTableExists(): Promise<boolean>;
  /** Drops and creates the vector table at `dim` dimensions (a new embedding space). */
  recreateVecTable(dim: number): Promise<void>;
  /** Vectors held in this process's copy and its bytes (benchmarks report memory with it). */
  vectorMirrorSize(): Promise<{ vectors: number; bytes: number }>;
  /**
   * Counts memories not purged against word-index rows among the `span` ids after `afterId`:
   * a serving process checks the index a slice at a time between requests
   * (src/recall/word_index_check.ts). A sound index agrees in every slice.
   */
  wordIndexSlice(afterId: number, span: number): Promise<WordIndexSlice>;
}

/**
 * The entity graph (issue 35): entities by workspace, the words memories name them by, and the
 * relations each memory states or reads. Aliases follow mentions; entities_sql.ts says how.
 */
export interface EntitiesRepository {
  /** The entities of `workspace` whose aliases have these keys, by key. */
  entitiesByKeys(
    workspace: string,
    keys: readonly string[],
  ): Promise<Map<string, entities.EntityRecord>>;
  /** Entities with these alias keys in `workspaces` (every workspace when undefined). */
  entitiesNamed(
    keys: readonly string[],
    workspaces?: readonly string[],
  ): Promise<entities.EntityRecord[]>;
  insertEntity(
    entity: { workspace: string; name: string; kind: string; at: string },
  ): Promise<number>;
  /** {@linkcode insertEntity} for many entities at once; resolves with their ids, in order. */
  insertEntities(
    list: readonly { workspace: string; name: string; kind: string; at: string }[],
  ): Promise<number[]>;
  getEntities(ids: readonly number[]): Promise<Map<number, entities.EntityRecord>>;
  /** Each entity's aliases, most used first. */
  entityAliases(ids: readonly number[]): Promise<Map<number, string[]>>;
  /** Replaces a memory's mentions and relations; resolves with the entities that went. */
  replaceMemoryGraph(
    memory: { id: number; workspace: string },
    graph: entities.MemoryGraph,
  ): Promise<number[]>;
  /** {@linkcode replaceMemoryGraph} for many memories at once (the bulk path). */
  replaceMemoryGraphs(
    list: readonly { memory: { id: number; workspace: string }; graph: entities.MemoryGraph }[],
  ): Promise<number[]>;
  /** Removes a memory's part of the graph; resolves with the entities that went. */
  dropMemoryGraph(memoryId: number): Promise<number[]>;
  /** Memories that mention any of `entityIds`, newest first. */
  entityMemoryIds(entityIds: readonly number[], limit: number): Promise<number[]>;
  /** The entities each memory mentions, with the words. */
  memoryMentions(memoryIds: readonly number[]): Promise<Map<number, entities.MentionRecord[]>>;
  /** Relations with an end among `entityIds`, oldest first. */
  relationsOf(entityIds: readonly number[], limit: number): Promise<entities.RelationRecord[]>;
  /** Every relation in id order after `afterId` (export). */
  relationPage(afterId: number, limit: number): Promise<entities.RelationRecord[]>;
  /** A page of entities in scope, newest first, with counts by kind. */
  entityPage(query: entities.EntityListQuery): Promise<entities.EntityPage>;
  /** Folds one entity into another of the same workspace. */
  mergeEntities(fromId: number, intoId: number): Promise<void>;
  /** Moves the mentions written with words of `split.key` to a new entity; its id. */
  splitEntity(
    entityId: number,
    split: { key: string; name: string; kind: string; at: string },
  ): Promise<number>;
}

/** Every room, flat: what a unit of work's body is handed. */
export interface StoreRepositories
  extends
    MemoriesRepository,
    UsageRepository,
    HistoryRepository,
    WordIndexRepository,
    RecallRepository,
    EvidenceRowsRepository,
    VectorsRepository,
    JobsRepository,
    PendingNoticesRepository,
    WorkspacesRepository,
    AuditRepository,
    ReplayLogRepository,
    MetaRepository,
    PurgeRepository,
    PortabilityRepository,
    UpgradeRepository,
    MaintenanceRepository,
    EntitiesRepository {
  /** Conflict groups, notices and the scan queue. */
  readonly conflicts: ConflictTables;
  /**
   * Inside a write: keeps every other unit that claims one of `keys` waiting until this unit
   * ends, so a read before a write sees no other writer of the same thing between them (the
   * duplicate check of a text, a new workspace). Only a `{ concurrent: true }` unit needs it:
   * other write units run alone (SQLite's always do), and for them it does nothing. Resolves
   * `true` when it claimed them: what the unit read of them before may have changed since.
   */
  claimKeys(keys: readonly string[]): Promise<boolean>;
}

/**
 * Units of work. A body is an `async` function handed the repositories bound to the unit
 * (`tx`); everything it does commits together or not at all.
 *
 * A body may await store calls, nothing else: no network, no model, no timer. The SQLite
 * implementation holds its one connection for the whole body (calls from outside the unit wait
 * until it ends), so a body that awaited real I/O would stall every other request. A body may
 * run more than once (a retry after another process took the lock), so it must only touch the
 * store and its own locals.
 */
export interface UnitOfWork {
  /**
   * Runs `body` in one write transaction. `{ durable: false }` skips the disk sync, for
   * background work a re-run redoes; `whileSyncing` and `afterCommit` run after the commit.
   * Inside another unit, the body joins it.
   */
  write<T>(body: (tx: StoreRepositories) => Promise<T>, options?: WriteOptions<T>): Promise<T>;
  /**
   * {@linkcode UnitOfWork.write} for one-shot CLI commands and start-up, before requests are
   * served: waits for another process's lock without yielding.
   */
  writeBlocking<T>(body: (tx: StoreRepositories) => Promise<T>): Promise<T>;
  /** Runs `body` against one consistent snapshot. */
  read<T>(body: (tx: StoreRepositories) => Promise<T>): Promise<T>;
  /**
   * Inside a write: runs `body` so that, when it throws, only its own changes are undone (one
   * imported file is all or nothing without failing the batch around it).
   */
  withinUnit<T>(body: () => Promise<T>): Promise<T>;
  /**
   * Inside a write: runs many writes with the word index's document counts summed in memory and
   * written once at the end (bulk imports).
   */
  bulkWrites<T>(body: () => Promise<T>): Promise<T>;
}

/** What this database can do; recall and the envelope's `mode` depend on it. */
export interface StoreCapabilities {
  fts: boolean;
  vec: boolean;
  vecVersion?: string;
  vecError?: string;
  /** Set when the database could only be opened read-only: why, in words. */
  readOnly?: string;
  /**
   * Set while the database, opened writable, cannot take writes: the storage error of the
   * last write that failed (disk full, file system turned read-only, I/O error). The next
   * write that commits clears it.
   */
  unwritable?: string;
  /**
   * Set while a database server (PostgreSQL) cannot be reached: why, in words, without the
   * password. Reads fail meanwhile; `remember` and `update` go to the local backup. The next
   * unit of work that succeeds clears it.
   */
  unreachable?: string;
}

/**
 * A database that is not the SQLite file: what `status`, `doctor` and the start-up line say
 * about it (docs/SPEC.md §15). Never holds a password.
 */
export interface StoreBackend {
  kind: "postgresql";
  /** The URL with its password replaced by `***`. */
  database: string;
  /** The server's version, as it reports it. */
  serverVersion: string;
  /** The schema version the database is at (its `schema_version` table). */
  schemaVersion: number;
  /** Which vector search is active, in words (the per-server copy, or why not pgvector). */
  vectorPath: string;
  /** Installed versions of the extensions mema looks for (`null` when not installed). */
  extensions: { pg_trgm: string | null; vector: string | null };
}

/** An open mema database: the repositories, units of work, and what the database can do. */
export interface Store extends StoreRepositories, UnitOfWork {
  /** The SQLite file, or a database's URL without its password. */
  readonly path: string;
  readonly capabilities: StoreCapabilities;
  readonly schema: SchemaState;
  /** Set when the database is not the SQLite file (PostgreSQL). */
  readonly backend?: StoreBackend;
  /** Closes the database; on PostgreSQL the promise settles once the pool has ended. */
  close(): void | Promise<void>;
}
