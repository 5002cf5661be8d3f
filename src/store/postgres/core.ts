/**
 * The PostgreSQL store's shared part: the connection pool and its units of work. A unit runs on
 * one pooled connection inside one transaction; its body's async context is marked
 * (`AsyncLocalStorage`, which follows every `await`), so a room called from inside the body
 * runs on the unit's transaction, and one called from anywhere else takes a pooled connection
 * of its own. That is the SQLite store's routing (src/store/open_unit.ts) without the waiting:
 * PostgreSQL isolates concurrent transactions itself, so another request never waits for a unit
 * to end unless it writes.
 *
 * @example
 * Not run by `deno test --doc`: it needs a PostgreSQL server (the test command starts one for
 * tests/store/, scripts/test_postgres.ts).
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { connectPostgres } from "./connect.ts";
 * import { PgCore } from "./core.ts";
 *
 * const core = new PgCore(await connectPostgres(Deno.env.get("MEMA_TEST_PG_URL")!, { max: 2 }));
 * const [row] = await core.write(async () => await core.q()`SELECT 1 AS one`);
 * assert.equal(row.one, 1);
 * await core.close();
 * ```
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Sql, TransactionSql } from "postgres";
import { logWarn } from "../../platform/log.ts";
import type { WriteOptions } from "../sqlite_connection.ts";
import { PG_KEY_LOCKS, PG_WRITE_LOCK } from "./constants.ts";
import { PendingTermCounts } from "./term_counts.ts";
import { markCommitInDoubt } from "./unreachable.ts";

/** What a query is sent through: the pool, or the open unit's transaction. */
export type PgQuery = Sql | TransactionSql;

/** The unit of work open in an async context. */
interface PgUnit {
  sql: TransactionSql;
  write: boolean;
  /** The write lock is held exclusively: no other write unit runs (so keys need no lock). */
  alone: boolean;
  /** The word index's document counts owed, written just before the commit. */
  counts: PendingTermCounts;
}

/** The pool, its units of work, and the repositories handed to unit bodies. */
export class PgCore<R> {
  readonly sql: Sql;
  readonly #units = new AsyncLocalStorage<PgUnit>();
  /** The repositories handed to unit bodies (`tx`); set once the rooms are built. */
  repositories!: R;

  /** Resolves once the database is open (migrated); rejects while it cannot be reached. */
  readonly #whenOpen: () => Promise<void>;

  constructor(sql: Sql, whenOpen: () => Promise<void> = () => Promise.resolve()) {
    this.sql = sql;
    this.#whenOpen = whenOpen;
  }

  /** True when the caller runs inside a unit of work. */
  inUnit(): boolean {
    return this.#units.getStore() !== undefined;
  }

  /** Where a room's query goes: the caller's unit, else the pool. */
  q(): PgQuery {
    return this.#units.getStore()?.sql ?? this.sql;
  }

  /**
   * Runs `body` in one write transaction (all or nothing). Write units take one advisory lock
   * first, exclusively, so they run one at a time across every server on the database
   * (constants.ts says why). `{ concurrent: true }` takes it shared instead: such units run
   * beside each other (never beside an exclusive one), and each locks what it reads before
   * writing by key ({@linkcode claimKeys}). `{ serialized: false }` takes no lock at all: its
   * statements lock their own rows. Inside another write unit the body joins it.
   *
   * The word index's document counts the body changed are written last, just before the
   * commit (term_counts.ts says why). The commit itself does not wait for the disk
   * (`synchronous_commit = off`), so the locks are released without an fsync inside them; a
   * durable unit then waits for the WAL to reach the disk after they are gone
   * ({@linkcode flushWal}), and resolves only then, so nothing is acknowledged before it is
   * durable, and the fsyncs of writers on every server are shared (PostgreSQL's group commit).
   * `{ durable: false }` skips that wait.
   */
  async write<T>(body: (tx: R) => Promise<T>, options: WriteOptions<T> = {}): Promise<T> {
    const open = this.#units.getStore();
    if (open !== undefined) {
      if (!open.write) throw new Error("a write unit cannot run inside a read unit");
      return await body(this.repositories);
    }
    await this.#whenOpen();
    // Set once the body returned: a connection lost after it may have lost it during COMMIT,
    // and then nobody knows whether the write committed (unreachable.ts, `commitInDoubt`).
    let committing = false;
    const alone = options.serialized !== false && options.concurrent !== true;
    const value = await this.sql.begin(async (tx) => {
      // One round trip for both: every one inside the lock holds up every other writer.
      if (options.serialized === false) {
        await tx`SELECT set_config('synchronous_commit', 'off', true)`;
      } else if (options.concurrent === true) {
        await tx`SELECT pg_advisory_xact_lock_shared(${PG_WRITE_LOCK}),
          set_config('synchronous_commit', 'off', true)`;
      } else {
        await tx`SELECT pg_advisory_xact_lock(${PG_WRITE_LOCK}),
          set_config('synchronous_commit', 'off', true)`;
      }
      const unit: PgUnit = { sql: tx, write: true, alone, counts: new PendingTermCounts() };
      const done = await this.#units.run(unit, () => body(this.repositories));
      await unit.counts.write(tx);
      committing = true;
      return done;
    }).catch((error: unknown) => {
      throw committing ? markCommitInDoubt(error) : error;
    }) as T;
    try {
      options.afterCommit?.();
    } catch (error) {
      logWarn(`after a commit: ${error}`);
    }
    const flushed = options.durable === false ? undefined : this.flushWal().catch((error) => {
      // Committed, but whether it reached the disk before the connection went is unknown.
      throw markCommitInDoubt(error);
    });
    try {
      await options.whileSyncing?.(value);
    } catch (error) {
      logWarn(`after a commit: ${error}`);
    }
    await flushed;
    return value;
  }

  /**
   * Inside a write unit: waits until no other unit holds any of `keys`, then holds them until
   * this unit ends (`pg_advisory_xact_lock` on each key's hash, in the key space
   * `PG_KEY_LOCKS`). Units that take keys in byte order never wait for each other in a circle.
   * An exclusive unit already runs alone, so it takes none. A hash collision only makes two
   * units wait for each other needlessly.
   */
  async claimKeys(keys: readonly string[]): Promise<boolean> {
    const open = this.#units.getStore();
    if (open === undefined || !open.write) throw new Error("claimKeys runs only inside a write");
    if (open.alone || keys.length === 0) return false;
    const sorted = [...new Set(keys)].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    await open.sql`SELECT pg_advisory_xact_lock(${PG_KEY_LOCKS}::int, hashtext(k))
      FROM unnest(${sorted}::text[]) AS u(k)`;
    return true;
  }

  /** The open write unit's owed document counts; undefined outside a write unit. */
  termCounts(): PendingTermCounts | undefined {
    const open = this.#units.getStore();
    return open?.write ? open.counts : undefined;
  }

  /** Writes the open unit's owed document counts now (a read of them inside the unit follows). */
  async settleTermCounts(): Promise<void> {
    const open = this.#units.getStore();
    if (open?.write) await open.counts.write(open.sql);
  }

  /**
   * Waits until the WAL is on disk up to now: a transaction that is given an id
   * (`txid_current()`) writes a commit record, and with `synchronous_commit` on (the session's
   * default) its commit flushes the WAL up to that record, so every commit before it too.
   */
  async flushWal(): Promise<void> {
    await this.sql`SELECT txid_current()`;
  }

  /** {@linkcode PgCore.write}: waiting for the write lock never blocks this thread anyway. */
  writeBlocking<T>(body: (tx: R) => Promise<T>): Promise<T> {
    return this.write(body);
  }

  /** Runs `body` against one consistent snapshot (`REPEATABLE READ`, read only). */
  async read<T>(body: (tx: R) => Promise<T>): Promise<T> {
    if (this.#units.getStore() !== undefined) return await body(this.repositories);
    await this.#whenOpen();
    return await this.sql.begin(
      "ISOLATION LEVEL REPEATABLE READ READ ONLY",
      (tx) =>
        this.#units.run(
          { sql: tx, write: false, alone: false, counts: new PendingTermCounts() },
          () => body(this.repositories),
        ),
    ) as T;
  }

  /**
   * Inside a write unit: runs `body` in a savepoint, so that when it throws only its own
   * changes are undone.
   */
  async withinUnit<T>(body: () => Promise<T>): Promise<T> {
    const open = this.#units.getStore();
    if (open === undefined || !open.write) {
      throw new Error("withinUnit runs only inside a write unit");
    }
    const owed = open.counts.save();
    try {
      return await open.sql.savepoint((sp) => this.#units.run({ ...open, sql: sp }, body)) as T;
    } catch (error) {
      // The savepoint's rows were rolled back, so are the counts they owed.
      open.counts.restore(owed);
      throw error;
    }
  }

  /** Inside a write unit: every unit sums its document counts already (term_counts.ts). */
  bulkWrites<T>(body: () => Promise<T>): Promise<T> {
    return body();
  }

  /** Closes the pool once running queries finish (a few seconds at most). */
  close(): Promise<void> {
    return this.sql.end({ timeout: 5 });
  }
}
