/**
 * The SQLite store's shared part: the one connection with its units of work (write, read,
 * savepoint, bulk), this process's caches that follow the connection's commits, and the
 * synchronous reads more than one room needs. The rooms (`*_room.ts`) are built on it and
 * made asynchronous by {@linkcode asyncRoom}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/demo.sqlite3`, { cacheDir: `${dir}/cache` });
 * await store.write(async (tx) => await tx.setMeta("demo", "1"));
 * assert.equal(await store.getMeta("demo"), "1");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import * as memories from "./memories_sql.ts";
import * as evidence from "./evidence_sql.ts";
import * as portability from "./portability_sql.ts";
import * as terms from "./terms_sql.ts";
import { isStorageFailure } from "./read_only.ts";
import { memoriesStampAt, type SqliteConnection, type WriteOptions } from "./sqlite_connection.ts";
import { RecordCache } from "./record_cache.ts";
import { RECORD_CACHE_MAX, SCOPE_VERDICTS_MAX } from "./constants.ts";
import { ScopeVerdicts } from "./scope_verdicts.ts";
import { TermCache } from "./term_cache.ts";
import type { SchemaState } from "./schema.ts";
import type { StoreCapabilities, StoreRepositories } from "./repositories.ts";
import type { MemoryRecord } from "./types.ts";
import { VectorMirror } from "./vector_mirror.ts";

/**
 * The memories a write transaction inserted, with the tokens each added to the word index,
 * and the memory change count at its start and end ({@linkcode SqliteCore.write}).
 */
interface InsertJournal {
  start: number | undefined;
  end: number | undefined;
  /** Each insert: its tokens, whether their counts wait, whether it folded every wait in. */
  memories: { id: number; tokens: ReadonlySet<string>; held: boolean; folded: boolean }[];
}

/** A synchronous room implementation of the asynchronous repository `R`. */
export type Sync<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer V> ? (...args: A) => V
    : R[K];
};

/**
 * The most parameters a repository operation takes. The wrappers {@linkcode asyncRoom} makes pass
 * exactly this many, so a call allocates no rest array on the hot paths of `find` and `remember`.
 */
const ROOM_PARAMETERS_MAX = 3;

/**
 * Makes a synchronous room the repository it implements. Each call waits only while another
 * request's unit of work holds the connection ({@linkcode SqliteConnection.admits}), which is one
 * comparison when none does; the SQLite call itself stays synchronous.
 */
export function asyncRoom<R extends object>(connection: SqliteConnection, room: Sync<R>): R {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(room)) {
    if (typeof member !== "function") {
      out[name] = member;
      continue;
    }
    if (member.length > ROOM_PARAMETERS_MAX) {
      throw new Error(`${name} takes ${member.length} parameters; raise ROOM_PARAMETERS_MAX`);
    }
    const call = member as (a: unknown, b: unknown, c: unknown) => unknown;
    out[name] = async (a: unknown, b: unknown, c: unknown) => {
      while (!connection.admits()) await connection.turn();
      return call(a, b, c);
    };
  }
  return out as R;
}

/** The connection, its units of work and this process's caches of what it reads. */
export class SqliteCore {
  readonly path: string;
  readonly connection: SqliteConnection;
  readonly capabilities: StoreCapabilities;
  readonly schema: SchemaState;
  /** This process's copy of the vectors, made at the first nearest-row lookup. */
  vectors: VectorMirror | undefined;
  /** The change stamp at which no notice was pending (conflicts_room.ts). */
  noPendingNoticesAt: string | undefined;
  /** Records read since the database last changed (src/store/record_cache.ts). */
  readonly records = new RecordCache(
    RECORD_CACHE_MAX,
    () => this.capabilities.fts ? this.indexedMemories() : Infinity,
  );
  /** Word-index answers read since the database last changed (src/store/term_cache.ts). */
  readonly terms = new TermCache();
  /** Lookups' filter verdicts since the memories last changed (src/store/scope_verdicts.ts). */
  readonly scopes = new ScopeVerdicts(SCOPE_VERDICTS_MAX);
  /** What the write transaction open now inserted, for the caches ({@linkcode SqliteCore.write}). */
  inserts: InsertJournal | undefined;
  /** The repositories handed to unit bodies (`tx`); set once the rooms are built. */
  repositories!: StoreRepositories;

  constructor(
    path: string,
    connection: SqliteConnection,
    init: { capabilities: StoreCapabilities; schema: SchemaState },
  ) {
    this.path = path;
    this.connection = connection;
    this.capabilities = init.capabilities;
    this.schema = init.schema;
  }

  /**
   * Runs `body` in one write transaction (all or nothing). Waiting for another process's lock
   * never blocks this thread. `{ durable: false }` skips the disk sync, for background work a
   * re-run redoes. Journals the inserts so the caches follow the commit instead of starting over.
   */
  write<T>(
    body: (tx: StoreRepositories) => Promise<T>,
    options: WriteOptions<T> = {},
  ): Promise<T> {
    const connection = this.connection;
    if (connection.inWrite && connection.admits()) {
      return connection.write(() => body(this.repositories), options);
    }
    let journal: InsertJournal | undefined;
    const journaled = async () => {
      // Read again on a retry: the attempt before it rolled back.
      journal = { start: connection.memoryChanges(), end: undefined, memories: [] };
      this.inserts = journal;
      try {
        const value = await body(this.repositories);
        // Most writes insert nothing (jobs, updates): only a carry needs the count at the end.
        if (journal.memories.length > 0) journal.end = connection.memoryChanges();
        return value;
      } finally {
        this.inserts = undefined;
      }
    };
    return connection.write(journaled, {
      ...options,
      afterCommit: () => {
        // An in-memory flag, so the hot path pays one comparison for it.
        if (this.capabilities.unwritable !== undefined) this.capabilities.unwritable = undefined;
        if (journal) this.#followInserts(journal);
        // The caller's own work after the commit runs too, after the caches caught up.
        options.afterCommit?.();
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
   * ({@linkcode SqliteCore.withinUnit}), so the two can never balance.
   */
  #followInserts(journal: InsertJournal): void {
    const { start, end, memories } = journal;
    if (start === undefined || end === undefined || end !== start + memories.length) return;
    const before = memoriesStampAt(start);
    const after = memoriesStampAt(end);
    this.records.followInserts(before, after, memories.length);
    this.terms.followInserts(before, after, memories);
  }

  /** {@linkcode SqliteCore.write} for one-shot CLI commands: waits for the lock on this thread. */
  writeBlocking<T>(body: (tx: StoreRepositories) => Promise<T>): Promise<T> {
    return this.connection.writeBlocking(() => body(this.repositories));
  }

  /** Runs `body` against one consistent snapshot. */
  read<T>(body: (tx: StoreRepositories) => Promise<T>): Promise<T> {
    return this.connection.read(() => body(this.repositories));
  }

  /**
   * Inside a write transaction: runs `body` so that, when it throws, only its own changes are
   * undone (one imported file is all or nothing without failing the batch around it).
   */
  async withinUnit<T>(body: () => Promise<T>): Promise<T> {
    while (!this.connection.admits()) await this.connection.turn();
    const recorded = this.inserts?.memories.length;
    try {
      return await portability.withinSavepoint(this.connection.db, body);
    } catch (error) {
      // The unit's inserts were rolled back: they are no longer part of the transaction.
      if (this.inserts && recorded !== undefined) this.inserts.memories.length = recorded;
      throw error;
    }
  }

  /**
   * Inside a write transaction: runs many writes with the word index's document frequencies
   * summed in memory and written once at the end (bulk imports; see terms_sql.ts).
   */
  async bulkWrites<T>(body: () => Promise<T>): Promise<T> {
    while (!this.connection.admits()) await this.connection.turn();
    return await portability.withBulkFrequencies(this.connection.db, body);
  }

  /** The memories of `ids` that exist (frozen: callers may share them). */
  getMemories(ids: readonly number[]): Map<number, MemoryRecord> {
    const db = this.connection.db;
    return this.records.read(
      this.connection.memoriesStamp(),
      ids,
      (missing) => memories.selectMemories(db, missing),
    );
  }

  /** How many memories hold each index token. */
  tokenFrequencies(tokens: readonly string[]): Map<string, number> {
    const stamp = this.connection.memoriesStamp();
    return this.terms.frequencies(
      stamp,
      tokens,
      (missing) =>
        terms.selectTokenFrequencies(this.connection.db, missing, this.heldCounts(stamp)),
    );
  }

  /** The word counts not folded into the vocabulary yet, cached per stamp by the term cache. */
  heldCounts(stamp: string | undefined): terms.HeldCounts {
    return this.terms.held(stamp, () => terms.selectHeldCounts(this.connection.db));
  }

  /** How many memories the word index holds. */
  indexedMemories(): number {
    return this.tokenFrequencies([terms.ALL_DOCUMENTS_TOKEN]).get(terms.ALL_DOCUMENTS_TOKEN) ?? 0;
  }

  vecTableExists(): boolean {
    return this.capabilities.vec && evidence.vecTableExists(this.connection.db);
  }

  close(): void {
    this.vectors = undefined;
    this.connection.close();
  }
}
