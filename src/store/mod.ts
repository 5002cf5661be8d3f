/**
 * The storage engine: the only module that knows SQL. Services call these
 * methods inside {@linkcode Store.write} (one `BEGIN IMMEDIATE` transaction,
 * retried on SQLITE_BUSY) or {@linkcode Store.read} (one snapshot).
 *
 * @example
 * ```ts
 * import { openStore } from "./src/store/mod.ts";
 * const store = await openStore("/tmp/demo.sqlite3", { cacheDir: "/tmp/mema-cache" });
 * console.error(store.capabilities);
 * store.close();
 * ```
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { MemaError } from "../errors/mod.ts";
import { dirName, ensureDir, logWarn, pathExists, writeRefusal } from "../platform/mod.ts";
import * as memories from "./memories_sql.ts";
import * as conflicts from "./conflicts_sql.ts";
import * as evidence from "./evidence_sql.ts";
import * as govern from "./govern_sql.ts";
import * as jobs from "./jobs_sql.ts";
import * as purge from "./purge_sql.ts";
import * as recall from "./recall_sql.ts";
import * as terms from "./terms_sql.ts";
import * as portability from "./portability_sql.ts";
import * as upgrade from "./upgrade_sql.ts";
import * as workspaces from "./workspaces_sql.ts";
import { indexTokens } from "../text/index_terms.ts";
import {
  FTS_WORDS,
  getMeta,
  prepareSchema,
  readGeneration,
  repairFtsIfNeeded,
  type SchemaState,
  setMeta,
} from "./schema.ts";
import { isReadOnlyFailure, isStorageFailure, openReadOnly, readOnlySchema } from "./read_only.ts";
import {
  memoriesStampAt,
  openConnection,
  type SqliteConnection,
  type WriteOptions,
} from "./sqlite_connection.ts";
import { RecordCache } from "./record_cache.ts";
import { RECORD_CACHE_MAX } from "./constants.ts";
import { TermCache } from "./term_cache.ts";
export type { WriteOptions };
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
} from "./types.ts";
import { loadVecExtension } from "./vec_extension.ts";
import { VectorMirror } from "./vector_mirror.ts";

export * from "./types.ts";
export type { JobRecord, JobStatus } from "./jobs_sql.ts";
export type { AuditQuery, AuditRecord, CoalesceWindow } from "./govern_sql.ts";
export type {
  ConflictChange,
  ConflictMember,
  ConflictRecord,
  ConflictStatus,
  NoticeFilter,
  NoticeRecord,
  NoticeStatus,
  PlanStep,
  ScanItem,
  StaleClaim,
  ValueGroup,
} from "./conflicts_sql.ts";
export type { EvidenceRowRecord, NewEvidenceRow } from "./evidence_sql.ts";
export type { MemoryPageQuery } from "./portability_sql.ts";
export { fingerprintRows, UpgradeSource } from "./upgrade_sql.ts";
export type { ContentFingerprints, DatabaseKind } from "./upgrade_sql.ts";
export type { FreedSpaceScrub, OwedScrub, PurgedContent } from "./purge_sql.ts";
export type {
  MoveOutcome,
  WorkspaceRecord,
  WorkspaceState,
  WorkspaceSummary,
} from "./workspaces_sql.ts";
export { SCHEMA_GENERATION } from "./constants.ts";
export { isStorageFailure } from "./read_only.ts";

/** What this database can do; recall and the envelope's `mode` depend on it. */
export interface StoreCapabilities {
  fts: boolean;
  vec: boolean;
  vecVersion?: string;
  vecError?: string;
  /** Set when the database could only be opened read-only: why, in words (see read_only.ts). */
  readOnly?: string;
  /**
   * Set while the database, opened writable, cannot take writes: the storage error of the
   * last write that failed (disk full, file system turned read-only, I/O error). The next
   * write that commits clears it ({@linkcode Store.write}).
   */
  unwritable?: string;
}

/** Options for {@linkcode openStore}. */
export interface OpenStoreOptions {
  cacheDir: string;
  busyTimeoutMs?: number;
  /** `full` (default) syncs every acknowledged write; `normal` syncs at checkpoints. */
  durability?: "full" | "normal";
  /** Skip loading sqlite-vec (tests of the degraded path). */
  skipVec?: boolean;
  /** Internal: a read-write open failed with this because the database cannot be written. */
  readOnlyCause?: unknown;
}

/** The conflict, notice and scan tables, bound to one connection. */
function conflictTables(db: DatabaseSync) {
  return {
    insert: (group: Parameters<typeof conflicts.insertConflict>[1]) =>
      conflicts.insertConflict(db, group),
    get: (id: number) => conflicts.selectConflict(db, id),
    list: (query: Parameters<typeof conflicts.selectConflicts>[1]) =>
      conflicts.selectConflicts(db, query),
    update: (id: number, expectedRevision: number, change: conflicts.ConflictChange) =>
      conflicts.updateConflict(db, id, expectedRevision, change),
    openOf: (memoryIds: readonly number[]) => conflicts.selectOpenConflictsOf(db, memoryIds),
    addKey: (key: string, conflictId: number) => conflicts.insertConflictKey(db, key, conflictId),
    byKey: (key: string) => conflicts.selectConflictByKey(db, key),
    markStale: (claim: Parameters<typeof conflicts.insertStaleClaim>[1]) =>
      conflicts.insertStaleClaim(db, claim),
    staleClaimsOf: (memoryIds: readonly number[]) => conflicts.selectStaleClaims(db, memoryIds),
    backlog: () => conflicts.countConflictBacklog(db),
    insertNotice: (notice: Parameters<typeof conflicts.insertNotice>[1]) =>
      conflicts.insertNotice(db, notice),
    notices: (query: Parameters<typeof conflicts.selectNotices>[1]) =>
      conflicts.selectNotices(db, query),
    notice: (id: number) => conflicts.selectNotice(db, id),
    setNoticeStatus: (
      ids: readonly number[],
      change: Parameters<typeof conflicts.updateNoticeStatus>[2],
    ) => conflicts.updateNoticeStatus(db, ids, change),
    noticesWhere: (filter: conflicts.NoticeFilter, page: { limit: number; offset: number }) =>
      conflicts.selectNoticesWhere(db, filter, page),
    countNotices: (filter: conflicts.NoticeFilter) => conflicts.countNoticesWhere(db, filter),
    setNoticesWhere: (
      filter: conflicts.NoticeFilter,
      change: Parameters<typeof conflicts.updateNoticesWhere>[2],
    ) => conflicts.updateNoticesWhere(db, filter, change),
    noticesOf: (conflictId: number) => conflicts.selectNoticesOfConflict(db, conflictId),
    memoriesToScan: (query: Parameters<typeof conflicts.selectMemoriesToScan>[1]) =>
      conflicts.selectMemoriesToScan(db, query),
    countToScan: (query: Parameters<typeof conflicts.countMemoriesToScan>[1]) =>
      conflicts.countMemoriesToScan(db, query),
    markScanned: (state: Parameters<typeof conflicts.upsertScanState>[1]) =>
      conflicts.upsertScanState(db, state),
    queueItem: (item: Parameters<typeof conflicts.insertScanItem>[1]) =>
      conflicts.insertScanItem(db, item),
    queueItems: (query: Parameters<typeof conflicts.selectScanItems>[1]) =>
      conflicts.selectScanItems(db, query),
    queueItemById: (id: number) => conflicts.selectScanItem(db, id),
    decideItem: (id: number, decision: Parameters<typeof conflicts.decideScanItem>[2]) =>
      conflicts.decideScanItem(db, id, decision),
  };
}

/** The conflict tables' API. */
export type ConflictTables = ReturnType<typeof conflictTables>;

/**
 * The memories a write transaction inserted, with the tokens each added to the word index,
 * and the memory change count at its start and end ({@linkcode Store.write}).
 */
interface InsertJournal {
  start: number | undefined;
  end: number | undefined;
  /** Each insert: its tokens, whether their counts wait, whether it folded every wait in. */
  memories: { id: number; tokens: ReadonlySet<string>; held: boolean; folded: boolean }[];
}

const NOT_INDEXED: terms.IndexedRow = { counted: new Set(), held: false, folded: false };

/** An open mema database. */
export class Store {
  readonly path: string;
  readonly capabilities: StoreCapabilities;
  readonly schema: SchemaState;
  readonly #connection: SqliteConnection;
  /** Conflict groups, notices and the scan queue. */
  readonly conflicts: ConflictTables;
  /** This process's copy of the vectors, made at the first nearest-row lookup. */
  #vectors: VectorMirror | undefined;
  /** The change stamp at which no notice was pending ({@linkcode Store.hasPendingNotices}). */
  #noPendingNoticesAt: string | undefined;
  /** Records read since the database last changed (src/store/record_cache.ts). */
  readonly #records = new RecordCache(
    RECORD_CACHE_MAX,
    () => this.capabilities.fts ? this.indexedMemories() : Infinity,
  );
  /** Word-index answers read since the database last changed (src/store/term_cache.ts). */
  readonly #terms = new TermCache();
  /** What the write transaction open now inserted, for the caches ({@linkcode Store.write}). */
  #inserts: InsertJournal | undefined;

  constructor(
    path: string,
    connection: SqliteConnection,
    init: { capabilities: StoreCapabilities; schema: SchemaState },
  ) {
    this.path = path;
    this.#connection = connection;
    this.conflicts = conflictTables(connection.db);
    this.capabilities = init.capabilities;
    this.schema = init.schema;
  }

  /**
   * Runs `fn` in one write transaction (all or nothing). Waiting for another
   * process's lock never blocks this thread; `fn` itself must be synchronous.
   * `{ durable: false }` skips the disk sync, for background work a re-run redoes.
   */
  write<T>(fn: () => T, options: WriteOptions<T> = {}): Promise<T> {
    if (this.#connection.inWrite) return this.#connection.write(fn, options);
    let journal: InsertJournal | undefined;
    const journaled = () => {
      // Read again on a retry: the attempt before it rolled back.
      journal = { start: this.#connection.memoryChanges(), end: undefined, memories: [] };
      this.#inserts = journal;
      try {
        const value = fn();
        // Most writes insert nothing (jobs, updates): only a carry needs the count at the end.
        if (journal.memories.length > 0) journal.end = this.#connection.memoryChanges();
        return value;
      } finally {
        this.#inserts = undefined;
      }
    };
    return this.#connection.write(journaled, {
      ...options,
      afterCommit: () => {
        // An in-memory flag, so the hot path pays one comparison for it.
        if (this.capabilities.unwritable !== undefined) this.capabilities.unwritable = undefined;
        if (journal) this.#followInserts(journal);
      },
    }).catch((error) => {
      // Every answer says so until a write commits again (src/capabilities/mod.ts).
      if (isStorageFailure(error)) this.capabilities.unwritable = (error as Error).message;
      throw error;
    });
  }

  /**
   * After a commit whose only memory changes were this transaction's inserts (the change count
   * moved by exactly as many), the record and word-index caches move to the new stamp with the
   * new memories counted in, instead of starting over: the `remember` that follows, and its
   * duplicate check, find what the one before read. Any other change (an update, a retire)
   * leaves the count ahead of the inserts, and the caches start over at the next read as before;
   * a unit rolled back to its savepoint takes its inserts out of the journal
   * ({@linkcode Store.withinUnit}), so the two can never balance.
   */
  #followInserts(journal: InsertJournal): void {
    const { start, end, memories } = journal;
    if (start === undefined || end === undefined || end !== start + memories.length) return;
    const before = memoriesStampAt(start);
    const after = memoriesStampAt(end);
    this.#records.followInserts(before, after, memories.length);
    this.#terms.followInserts(before, after, memories);
  }

  /**
   * {@linkcode Store.write} for code that runs before or outside request serving
   * (one-shot CLI commands): waits for the lock on this thread.
   */
  writeBlocking<T>(fn: () => T): T {
    return this.#connection.writeBlocking(fn);
  }

  /** Runs `fn` against one consistent snapshot. */
  read<T>(fn: () => T): T {
    return this.#connection.read(fn);
  }

  insertMemory(memory: NewMemory): number {
    const id = memories.insertMemory(this.#connection.db, memory);
    const row = this.capabilities.fts
      ? terms.indexMemoryTerms(this.#connection.db, id, memory)
      : NOT_INDEXED;
    this.#inserts?.memories.push({ id, tokens: row.counted, held: row.held, folded: row.folded });
    return id;
  }

  getMemory(id: number): MemoryRecord | undefined {
    return memories.selectMemory(this.#connection.db, id);
  }

  /** The memories of `ids` that exist (frozen: callers may share them). */
  getMemories(ids: readonly number[]): Map<number, MemoryRecord> {
    const db = this.#connection.db;
    return this.#records.read(
      this.#connection.memoriesStamp(),
      ids,
      (missing) => memories.selectMemories(db, missing),
    );
  }

  findActiveByContent(workspaceCanonical: string, contentSha: string): MemoryRecord | undefined {
    return memories.selectActiveByContent(this.#connection.db, workspaceCanonical, contentSha);
  }

  changeMemory(id: number, change: MemoryChange): void {
    const db = this.#connection.db;
    const indexed = this.capabilities.fts &&
      (change.subject !== undefined || change.content !== undefined || change.tags !== undefined);
    const before = indexed ? memories.selectMemory(db, id) : undefined;
    memories.updateMemoryRow(db, id, change);
    const after = before ? memories.selectMemory(db, id) : undefined;
    if (before && after) terms.indexMemoryTerms(db, id, after, before);
  }

  appendHistory(entry: HistoryEntry): void {
    memories.insertHistory(this.#connection.db, entry);
  }

  listHistory(memoryId: number): HistoryEntry[] {
    return memories.selectHistory(this.#connection.db, memoryId);
  }

  appendAudit(entry: AuditEntry): void {
    memories.insertAudit(this.#connection.db, entry);
  }

  countByStatus(): Record<string, number> {
    return memories.countByStatus(this.#connection.db);
  }

  countHistory(): number {
    return memories.countHistory(this.#connection.db);
  }

  /** Best full-text matches of a MATCH expression over index tokens ({@link termMatch}). */
  termHits(match: string, filters: RecallFilters, limit: number): LexicalHit[] {
    return terms.selectTermHits(
      this.#connection.db,
      match,
      filters,
      limit,
      (tokens) => this.tokenFrequencies(tokens),
    );
  }

  /**
   * Memories holding the most weight of the index tokens (summed weights of the tokens each
   * holds), best first: the candidate pool of `find` and the neighbour lookups. Memories held
   * in the record cache are filtered without a query.
   */
  weightedTermHits(
    tokens: readonly { token: string; weight: number }[],
    filters: RecallFilters,
    limit: number,
  ): LexicalHit[] {
    const db = this.#connection.db;
    const stamp = this.#connection.memoriesStamp();
    return terms.selectWeightedTermHits(
      db,
      tokens,
      filters,
      limit,
      (id) => {
        const record = this.#records.peek(stamp, id);
        return record && recall.recordPassesFilters(record, filters);
      },
      (token) => this.#terms.postings(stamp, token, () => terms.selectPostings(db, token)),
    );
  }

  /** How many memories hold each index token. */
  tokenFrequencies(tokens: readonly string[]): Map<string, number> {
    const stamp = this.#connection.memoriesStamp();
    return this.#terms.frequencies(
      stamp,
      tokens,
      (missing) =>
        terms.selectTokenFrequencies(this.#connection.db, missing, this.#heldCounts(stamp)),
    );
  }

  /** The word counts not folded into the vocabulary yet, cached per stamp by the term cache. */
  #heldCounts(stamp: string | undefined): terms.HeldCounts {
    return this.#terms.held(stamp, () => terms.selectHeldCounts(this.#connection.db));
  }

  /**
   * The word index's tokens beginning with `prefix`, `lengths.min`..`lengths.max` long, with
   * how many memories hold each (at most `limit` vocabulary rows read): candidates for a
   * misspelt query word.
   */
  vocabularyByPrefix(
    prefix: string,
    lengths: { min: number; max: number },
    limit: number,
  ): Map<string, number> {
    const held = this.#heldCounts(this.#connection.memoriesStamp());
    return terms.selectVocabularyByPrefix(this.#connection.db, prefix, lengths, limit, held);
  }

  /**
   * Whether any notice is pending. Every response asks; while the database is unchanged since
   * the answer was "none", that answer stands without a query.
   */
  hasPendingNotices(): boolean {
    const stamp = this.#connection.changeStamp();
    if (stamp !== undefined && stamp === this.#noPendingNoticesAt) return false;
    const any = conflicts.anyPendingNotice(this.#connection.db);
    this.#noPendingNoticesAt = any ? undefined : stamp;
    return any;
  }

  /** How many memories the word index holds. */
  indexedMemories(): number {
    return this.tokenFrequencies([terms.ALL_DOCUMENTS_TOKEN]).get(terms.ALL_DOCUMENTS_TOKEN) ?? 0;
  }

  /** Memories whose subject, tags or content contain a term (only without FTS5). */
  likeHits(terms: readonly string[], filters: RecallFilters, limit: number): number[] {
    return recall.selectLikeHits(this.#connection.db, terms, filters, limit);
  }

  browse(
    filters: RecallFilters,
    page: { limit: number; offset: number },
  ): number[] {
    return recall.selectBrowsePage(this.#connection.db, filters, page);
  }

  /** Of `ids`, those passing the filters, mapped to their current version. */
  filterMemoryIds(ids: readonly number[], filters: RecallFilters): Map<number, number> {
    return recall.selectFilteredVersions(this.#connection.db, ids, filters);
  }

  /** Memories passing the filters that follow one of `ids`, mapped to the id they follow. */
  followersOf(ids: readonly number[], filters: RecallFilters): Map<number, number> {
    return recall.selectFollowers(this.#connection.db, ids, filters);
  }

  countFiltered(filters: RecallFilters): number {
    return recall.countFiltered(this.#connection.db, filters);
  }

  insertJob(job: Parameters<typeof jobs.insertJob>[1]): number | undefined {
    return jobs.insertJob(this.#connection.db, job);
  }

  claimJobs(claim: Parameters<typeof jobs.claimReadyJobs>[1]): jobs.JobRecord[] {
    return jobs.claimReadyJobs(this.#connection.db, claim);
  }

  finishJob(id: number, owner: string): boolean {
    return jobs.finishJob(this.#connection.db, id, owner);
  }

  failJob(failure: Parameters<typeof jobs.failJobRow>[1]): jobs.JobStatus | undefined {
    return jobs.failJobRow(this.#connection.db, failure);
  }

  countJobs(): Record<string, Record<string, number>> {
    return jobs.countJobs(this.#connection.db);
  }

  pruneJobs(before: string): number {
    return jobs.pruneDoneJobs(this.#connection.db, before);
  }

  finishPendingJob(job: { kind: string; dedupeKey: string }): boolean {
    return jobs.finishPendingJob(this.#connection.db, job);
  }

  getJob(id: number): jobs.JobRecord | undefined {
    return jobs.selectJob(this.#connection.db, id);
  }

  replaceRows(
    memory: { id: number; version: number },
    rows: readonly evidence.NewEvidenceRow[],
  ): void {
    evidence.replaceRows(this.#connection.db, memory, rows, this.capabilities.vec);
  }

  rowsToEmbed(space: string, limit: number): evidence.EvidenceRowRecord[] {
    return evidence.selectRowsToEmbed(this.#connection.db, space, limit);
  }

  /** A `null` vector marks the row embedded without a vec0 entry (no direction). */
  writeRowVectors(
    space: string,
    vectors: readonly { rowId: number; vector: Float32Array | null }[],
  ): number {
    return evidence.writeRowVectors(this.#connection.db, space, vectors);
  }

  /**
   * The `k` rows nearest to `vector` (cosine distance, nearest first). Served from this
   * process's copy of the vectors (`vector_mirror.ts`), which follows every process's writes
   * through the `vector_changes` log; inside a write transaction (whose changes may still roll
   * back) and without WebAssembly SIMD, from sqlite-vec's own scan.
   */
  nearestRows(vector: Float32Array, k: number): { rowId: number; distance: number }[] {
    if (this.#connection.inWrite || !this.capabilities.vec || !VectorMirror.supported()) {
      return evidence.selectNearestRows(this.#connection.db, vector, k);
    }
    const vectors = this.#vectors ??= new VectorMirror(this.#connection.db);
    // One snapshot for catching up with the log and, at first, loading every vector.
    return this.#connection.read(() => vectors.nearest(vector, k, this.#connection.changeStamp()));
  }

  /** Vectors held in this process's copy and its bytes (benchmarks report memory with it). */
  vectorMirrorSize(): { vectors: number; bytes: number } {
    return { vectors: this.#vectors?.size ?? 0, bytes: this.#vectors?.bytes ?? 0 };
  }

  /**
   * Of the evidence rows `rowIds`, those of their memory's current version whose memory passes
   * the filters, mapped to that memory.
   */
  currentRowOwners(rowIds: readonly number[], filters: RecallFilters): Map<number, number> {
    return recall.selectCurrentRowOwners(this.#connection.db, rowIds, filters);
  }

  /**
   * {@linkcode Store.nearestRows} kept to the rows of their memory's current version whose
   * memory passes the filters, each with that memory. Served from this process's vector copy,
   * the owners come from it too and the memories from the record cache: the joined query was
   * ~0.45 ms of a hybrid `find` at 1,000 memories through MCP.
   */
  nearestCurrentRows(
    vector: Float32Array,
    k: number,
    filters: RecallFilters,
  ): { rowId: number; distance: number; memoryId: number }[] {
    // One snapshot for the lookup, the owners and the memories.
    return this.#connection.read(() => this.#nearestCurrentRows(vector, k, filters));
  }

  #nearestCurrentRows(
    vector: Float32Array,
    k: number,
    filters: RecallFilters,
  ): { rowId: number; distance: number; memoryId: number }[] {
    const nearest = this.nearestRows(vector, k);
    // The copy answered the lookup unless a write is open (then sqlite-vec did).
    const mirror = this.#connection.inWrite ? undefined : this.#vectors;
    const owned = mirror?.ownersOf(nearest.map((row) => row.rowId)) ??
      new Map<number, evidence.RowOwner>();
    const unknown: number[] = [];
    for (const { rowId } of nearest) if (!owned.has(rowId)) unknown.push(rowId);
    const owners = this.currentRowOwners(unknown, filters);
    const records = this.getMemories([...new Set([...owned.values()].map((o) => o.memoryId))]);
    for (const [rowId, { memoryId, version }] of owned) {
      const memory = records.get(memoryId);
      if (
        memory !== undefined && memory.version === version &&
        recall.recordPassesFilters(memory, filters)
      ) owners.set(rowId, memoryId);
    }
    const out: { rowId: number; distance: number; memoryId: number }[] = [];
    for (const { rowId, distance } of nearest) {
      const memoryId = owners.get(rowId);
      if (memoryId !== undefined) out.push({ rowId, distance, memoryId });
    }
    return out;
  }

  rowsOfMemory(memoryId: number): evidence.EvidenceRowRecord[] {
    return evidence.selectRowsOfMemory(this.#connection.db, memoryId);
  }

  /** Rows and rows not yet embedded in `space` (cheap: see evidence_sql.ts). */
  countRowsToEmbed(space: string | undefined): { rows: number; pending: number } {
    return evidence.countRowsToEmbed(this.#connection.db, space);
  }

  countEvidence(space: string | undefined): ReturnType<typeof evidence.countEvidence> {
    return evidence.countEvidence(this.#connection.db, space);
  }

  memoriesMissingRows(limit: number): number[] {
    return evidence.selectMemoriesMissingRows(this.#connection.db, limit);
  }

  vecTableExists(): boolean {
    return this.capabilities.vec && evidence.vecTableExists(this.#connection.db);
  }

  recreateVecTable(dim: number): void {
    evidence.recreateVecTable(this.#connection.db, dim);
  }

  setStatus(
    id: number,
    change: { status: MemoryStatus; supersededBy: number | null; now: string },
  ): void {
    govern.updateStatus(this.#connection.db, id, change);
  }

  setTrust(
    id: number,
    change: { sourceType: SourceType; protectionLevel: ProtectionLevel; now: string },
  ): void {
    govern.updateTrust(this.#connection.db, id, change);
  }

  setMetadata(id: number, metadata: Record<string, unknown>): void {
    govern.updateMetadata(this.#connection.db, id, metadata);
  }

  /** Appends an audit row or counts it in a like one of the same window (a refusal flood). */
  recordCoalescedAudit(entry: AuditEntry, window: govern.CoalesceWindow): "added" | "counted" {
    return govern.recordCoalescedAudit(this.#connection.db, entry, window);
  }

  listAudit(query: govern.AuditQuery): { rows: govern.AuditRecord[]; total: number } {
    return govern.selectAudit(this.#connection.db, query);
  }

  deleteHistory(memoryId: number, versions: readonly number[]): number[] {
    return govern.deleteHistory(this.#connection.db, memoryId, versions);
  }

  /** Counts by status, source, workspace and protection (of one workspace, when given). */
  overviewCounts(workspace?: string): ReturnType<typeof govern.selectOverviewCounts> {
    return govern.selectOverviewCounts(this.#connection.db, workspace);
  }

  supersededBy(memoryId: number): number[] {
    return govern.selectSupersededBy(this.#connection.db, memoryId);
  }

  linkedTodos(
    options: Omit<Parameters<typeof govern.selectLinkedTodos>[1], "todoMatch">,
  ): { id: number; shared: number }[] {
    const tokens = indexTokens(options.todoTag);
    const todoMatch = this.capabilities.fts && tokens.length > 0
      ? `tags : (${tokens.map((token) => `"${token}"`).join(" AND ")})`
      : undefined;
    // A word no memory holds means no todo to link (one lookup in the frequencies).
    if (todoMatch !== undefined) {
      const frequencies = this.tokenFrequencies(tokens);
      if (tokens.some((token) => !frequencies.get(token))) return [];
    }
    return govern.selectLinkedTodos(this.#connection.db, { ...options, todoMatch });
  }

  replayOutcome(entryId: string): string | undefined {
    return govern.selectReplay(this.#connection.db, entryId);
  }

  logReplay(entry: Parameters<typeof govern.insertReplay>[1]): void {
    govern.insertReplay(this.#connection.db, entry);
  }

  /** One page of memories in id order, for exports (keyset paging on `afterId`). */
  memoryPage(query: portability.MemoryPageQuery): MemoryRecord[] {
    return portability.selectMemoryPage(this.#connection.db, query);
  }

  /** How many memories {@linkcode Store.memoryPage} walks with these filters. */
  countMemories(query: Omit<portability.MemoryPageQuery, "limit" | "afterId">): number {
    return portability.countMemories(this.#connection.db, query);
  }

  /** The earlier versions of several memories, oldest first. */
  historyOf(memoryIds: readonly number[]): Map<number, HistoryEntry[]> {
    return portability.selectHistoryOf(this.#connection.db, memoryIds);
  }

  /** The active memory an import stored from `sourceRef` in a workspace, if any. */
  findActiveBySourceRef(workspaceCanonical: string, sourceRef: string): MemoryRecord | undefined {
    return portability.selectActiveBySourceRef(this.#connection.db, workspaceCanonical, sourceRef);
  }

  /**
   * Inside a write transaction: runs `fn` so that, when it throws, only its own changes are
   * undone (one imported file is all or nothing without failing the batch around it).
   */
  withinUnit<T>(fn: () => T): T {
    const recorded = this.#inserts?.memories.length;
    try {
      return portability.withinSavepoint(this.#connection.db, fn);
    } catch (error) {
      // The unit's inserts were rolled back: they are no longer part of the transaction.
      if (this.#inserts && recorded !== undefined) this.#inserts.memories.length = recorded;
      throw error;
    }
  }

  /**
   * Removes a memory's content from every table (history, evidence rows and vectors, word
   * index, jobs, scan state, replay log inputs, links to it) and leaves its tombstone.
   */
  purgeMemoryContent(memory: MemoryRecord, now: string): purge.PurgedContent {
    return purge.purgeMemoryContent(this.#connection.db, { ...memory, indexed: memory }, {
      hasFts: this.capabilities.fts,
      hasVec: this.vecTableExists(),
      now,
    });
  }

  /** Conflict groups (any status) a memory belongs to. */
  conflictIdsOf(memoryId: number): number[] {
    return purge.selectConflictIdsOf(this.#connection.db, memoryId);
  }

  /** Deletes a conflict group with its members, notices and scan-queue items. */
  deleteConflict(conflictId: number): void {
    purge.deleteConflict(this.#connection.db, conflictId);
  }

  /** Rewrites a group without a purged member (membership row, JSON columns, free text). */
  rewriteConflictWithout(
    conflictId: number,
    memoryId: number,
    change: Parameters<typeof purge.rewriteConflict>[2],
  ): void {
    purge.deleteConflictMember(this.#connection.db, conflictId, memoryId);
    purge.rewriteConflict(this.#connection.db, conflictId, change);
  }

  /** Deletes the notices whose payload names a memory. */
  deleteNoticesNaming(memoryId: number): number {
    return purge.deleteNoticesNaming(this.#connection.db, memoryId);
  }

  /** Audit rows about a memory or about one of the conflict groups it was in. */
  auditMentioning(memoryId: number, conflictIds: readonly number[]): govern.AuditRecord[] {
    return purge.selectAuditMentioning(this.#connection.db, memoryId, conflictIds);
  }

  /** Replaces an audit row's reason and detail (only the purge scrubs audit rows). */
  scrubAuditRow(
    auditId: number,
    change: { reason: string | null; detail: Record<string, unknown> },
  ): void {
    purge.updateAuditText(this.#connection.db, auditId, change);
  }

  /** Rewrites the word index without the entries of deleted rows (call inside the purge). */
  compactTermsIndex(): void {
    if (this.capabilities.fts) purge.optimizeTermsIndex(this.#connection.db);
  }

  /**
   * After a purge commits (never inside a transaction): VACUUM when the file may hold bytes
   * deleted before secure_delete, then a truncating WAL checkpoint.
   */
  scrubFreedSpace(): purge.FreedSpaceScrub {
    return purge.scrubFreedSpace(this.#connection.db);
  }

  /** Checkpoints and truncates the WAL, outside any transaction (see purge_sql.ts). */
  truncateWal(): { truncated: boolean; problem?: string } {
    return purge.truncateWal(this.#connection.db);
  }

  /** The scrub a purge left owed (WAL truncation, backup entries to drop), if any. */
  owedScrub(): purge.OwedScrub | undefined {
    return purge.selectOwedScrub(this.#connection.db);
  }

  /** Records, in the purge's transaction, that its scrub is owed. */
  markScrubOwed(backupIds: readonly string[]): void {
    purge.insertOwedScrub(this.#connection.db, backupIds);
  }

  /** Clears the owed scrub read as `value` (not one a later purge added to). */
  clearOwedScrub(value: string): void {
    purge.deleteOwedScrub(this.#connection.db, value);
  }

  /** A workspace's registry row. */
  getWorkspace(canonical: string): workspaces.WorkspaceRecord | undefined {
    return workspaces.selectWorkspace(this.#connection.db, canonical);
  }

  /** Every registered workspace name (active, pending, redirect). */
  listWorkspaces(): workspaces.WorkspaceRecord[] {
    return workspaces.selectWorkspaces(this.#connection.db);
  }

  /** Every registered workspace with counts, last write and writers. */
  workspaceSummaries(): workspaces.WorkspaceSummary[] {
    return workspaces.selectWorkspaceSummaries(this.#connection.db);
  }

  /** Registers a workspace name; a known name is left as it is. */
  registerWorkspace(workspace: Parameters<typeof workspaces.insertWorkspace>[1]): void {
    workspaces.insertWorkspace(this.#connection.db, workspace);
  }

  /** Makes a pending name an active workspace. */
  confirmWorkspace(canonical: string, change: { at: string; by: string }): void {
    workspaces.confirmWorkspace(this.#connection.db, canonical, change);
  }

  /** Marks workspaces as reviewed by a person. */
  markWorkspacesReviewed(canonicals: readonly string[], change: { at: string; by: string }): void {
    workspaces.markWorkspacesReviewed(this.#connection.db, canonicals, change);
  }

  /** Leaves a redirect from `from` to `to` and files `from`'s conflicts under `to`. */
  redirectWorkspace(
    from: string,
    to: { canonical: string; display: string },
    change: { at: string; by: string },
  ): void {
    workspaces.redirectWorkspace(this.#connection.db, from, to, change);
  }

  /** Ids of a workspace's memories (any status but deleted). */
  workspaceMemoryIds(canonical: string): number[] {
    return workspaces.selectWorkspaceMemoryIds(this.#connection.db, canonical);
  }

  /** Moves a memory to another workspace (row, index scope, sequence links). */
  moveMemory(
    memory: MemoryRecord,
    to: { canonical: string; display: string },
    at: string,
  ): workspaces.MoveOutcome {
    return workspaces.moveMemory(this.#connection.db, memory, to, {
      at,
      indexed: this.capabilities.fts,
    });
  }

  /**
   * Inside a write transaction: runs many writes with the word index's document frequencies
   * summed in memory and written once at the end (bulk imports; see terms_sql.ts).
   */
  bulkWrites<T>(fn: () => T): T {
    return portability.withBulkFrequencies(this.#connection.db, fn);
  }

  /** For an upgrade: the tables of `source` this database holds too, with shared columns. */
  tablesToCopyFrom(source: upgrade.UpgradeSource): { table: string; columns: string[] }[] {
    return upgrade.tablesToCopy(this.#connection.db, source.schema());
  }

  /** For an upgrade (inside a write): copies one table's rows from `source`. */
  copyTableFrom(source: upgrade.UpgradeSource, table: string, columns: string[]): number {
    return upgrade.copyRows(this.#connection.db, table, columns, source.iterate(table, columns));
  }

  /** For an upgrade (inside a write): inserts a memory keeping its id. */
  restoreMemory(memory: MemoryRecord): void {
    upgrade.insertRestoredMemory(this.#connection.db, memory);
  }

  /** For an upgrade (inside a write): a workspace registry row. */
  restoreWorkspace(row: Parameters<typeof upgrade.upsertWorkspace>[1]): void {
    upgrade.upsertWorkspace(this.#connection.db, row);
  }

  /** For an upgrade (inside a write): registers the workspaces memories use. */
  registerMemoryWorkspaces(): void {
    upgrade.registerMemoryWorkspaces(this.#connection.db);
  }

  /** Rebuilds the word index from `memories` (inside a write); returns memories indexed. */
  rebuildWordIndex(): number {
    return this.capabilities.fts ? terms.rebuildTermsIndex(this.#connection.db) : 0;
  }

  /** Row counts and content hashes of memories and history (upgrade verification). */
  contentFingerprints(): upgrade.ContentFingerprints {
    return upgrade.targetFingerprints(this.#connection.db);
  }

  /** Folds the WAL into the database file and truncates it; `busy` > 0 when it could not. */
  checkpoint(): { busy: number } {
    return upgrade.checkpointTruncate(this.#connection.db);
  }

  getMeta(key: string): string | undefined {
    return getMeta(this.#connection, key);
  }

  setMeta(key: string, value: string): void {
    setMeta(this.#connection, key, value);
  }

  close(): void {
    this.#vectors = undefined;
    this.#connection.close();
  }
}

/**
 * Opens (creating when missing) the database at `path`, brings its schema to
 * this build's generation, and loads sqlite-vec. A missing sqlite-vec is
 * recorded in `capabilities`, never thrown.
 */
export async function openStore(path: string, options: OpenStoreOptions): Promise<Store> {
  const dir = dirName(path);
  if (!pathExists(dir)) {
    try {
      ensureDir(dir);
    } catch (error) {
      throw new MemaError(
        "storage_error",
        `cannot create the database directory ${dir}: ${error}`,
        {
          hint: "set MEMA_DB_PATH to a writable location",
        },
      );
    }
  }
  let connection: SqliteConnection;
  let readOnly: string | undefined;
  try {
    if (options.readOnlyCause !== undefined) throw options.readOnlyCause;
    connection = openConnection(path, {
      busyTimeoutMs: options.busyTimeoutMs,
      durability: options.durability,
    });
  } catch (error) {
    if (!isReadOnlyFailure(error)) {
      throw new MemaError("storage_error", `cannot open the database ${path}: ${error}`, {
        hint: "check that the file is a SQLite database and the directory is writable",
        cause: error,
      });
    }
    // A database that cannot be written still serves reads; writes go to the JSONL backup.
    ({ connection, reason: readOnly } = openReadOnly(path, error, options));
  }
  // SQLite opens a file it may not write read-only without a word when its -wal and -shm exist
  // (a read-only mount after a crash): asked of the file system, so it takes no lock.
  const refusal = readOnly === undefined ? writeRefusal(path) : undefined;
  if (refusal !== undefined) {
    connection.close();
    ({ connection, reason: readOnly } = openReadOnly(path, new Error(refusal), options));
  }
  try {
    const schema = readOnly === undefined
      ? prepareSchema(connection)
      : readOnlySchema(connection, path);
    if (readOnly === undefined && repairFtsIfNeeded(connection)) {
      logWarn(`rebuilt the full-text index of ${path}`);
    }
    const capabilities: StoreCapabilities = {
      fts: getMeta(connection, "fts") === FTS_WORDS,
      vec: false,
      readOnly,
    };
    if (!options.skipVec) {
      const vec = await loadVecExtension(connection.db, { cacheDir: options.cacheDir });
      if (vec.loaded) [capabilities.vec, capabilities.vecVersion] = [true, vec.version];
      else capabilities.vecError = vec.error;
    } else {
      capabilities.vecError = "sqlite-vec loading was skipped";
    }
    return new Store(path, connection, { capabilities, schema });
  } catch (error) {
    connection.close();
    if (error instanceof MemaError) throw error;
    // Opened, but preparing it needed a write the file cannot take: open it read-only.
    if (readOnly === undefined && isReadOnlyFailure(error)) {
      return await openStore(path, { ...options, readOnlyCause: error });
    }
    throw new MemaError("storage_error", `cannot prepare the database ${path}: ${error}`, {
      cause: error,
    });
  }
}

/** What the SQLite file at `path` is (read-only; `foreign` when SQLite cannot read it). */
export function inspectDatabase(path: string): upgrade.DatabaseKind {
  let source: upgrade.UpgradeSource;
  try {
    source = new upgrade.UpgradeSource(path);
  } catch (error) {
    return { kind: "foreign", reason: String(error instanceof Error ? error.message : error) };
  }
  try {
    return source.inspect();
  } finally {
    source.close();
  }
}

/** A read-only view for `mema doctor`: never creates, migrates or writes. */
export interface DatabaseProbe {
  generation: number | undefined;
  fts: string | undefined;
  counts: Record<string, number>;
  ftsRows: number | undefined;
  /** Generation 5+: rows of the stemmed word index. */
  wordRows?: number;
  quickCheck?: string;
  /** Generation 2+: evidence and job facts. */
  evidence?: {
    space: string | undefined;
    vecDim: number | undefined;
    rows: number;
    embedded: number;
    memoriesMissingRows: number;
    jobs: Record<string, Record<string, number>>;
  };
  /** Generation 4+: conflict backlog. */
  conflicts?: ReturnType<typeof conflicts.countConflictBacklog>;
  /** When the schema was first prepared (ISO 8601); absent in older databases. */
  createdAt?: string;
}

/** Opens `path` read-only and reads the facts doctor checks. Throws when it cannot be opened. */
export function probeDatabase(path: string, options: { deep?: boolean } = {}): DatabaseProbe {
  const connection = openConnection(path, { readOnly: true, busyTimeoutMs: 2000 });
  try {
    const generation = readGeneration(connection);
    if (generation === undefined || generation === 0) {
      return { generation, fts: undefined, counts: {}, ftsRows: undefined };
    }
    const fts = getMeta(connection, "fts");
    const counts = memories.countByStatus(connection.db);
    let ftsRows: number | undefined;
    if (fts === FTS_WORDS) ftsRows = terms.countIndexedMemories(connection.db);
    if (fts === "trigram") {
      const row = connection.db.prepare("SELECT count(*) AS n FROM memories_fts_docsize").get() as {
        n: number;
      };
      ftsRows = Number(row.n);
    }
    let wordRows: number | undefined;
    if (fts === "trigram" && generation >= 5) {
      const row = connection.db.prepare("SELECT count(*) AS n FROM memories_words_docsize")
        .get() as { n: number };
      wordRows = Number(row.n);
    }
    let quickCheck: string | undefined;
    if (options.deep) {
      const rows = connection.db.prepare("PRAGMA quick_check").all() as { quick_check: string }[];
      quickCheck = rows.map((r) => r.quick_check).join("; ");
    }
    let evidenceFacts: DatabaseProbe["evidence"];
    if (generation >= 2) {
      const space = getMeta(connection, "embedding_space");
      const vecSql = connection.db.prepare(
        "SELECT sql FROM sqlite_master WHERE name = 'memory_row_vec'",
      ).get() as { sql: string } | undefined;
      const dim = vecSql ? /float\[(\d+)\]/.exec(vecSql.sql)?.[1] : undefined;
      const coverage = evidence.countEvidence(connection.db, space);
      evidenceFacts = {
        space,
        vecDim: dim === undefined ? undefined : Number(dim),
        rows: coverage.rows,
        embedded: coverage.embedded,
        memoriesMissingRows: evidence.selectMemoriesMissingRows(connection.db, 1_000_000).length,
        jobs: jobs.countJobs(connection.db),
      };
    }
    const backlog = generation >= 4 ? conflicts.countConflictBacklog(connection.db) : undefined;
    return {
      generation,
      fts,
      counts,
      ftsRows,
      wordRows,
      quickCheck,
      evidence: evidenceFacts,
      conflicts: backlog,
      createdAt: getMeta(connection, "created_at"),
    };
  } finally {
    connection.close();
  }
}
