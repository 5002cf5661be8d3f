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
import type { ReservedSql, Sql } from "postgres";
import { logWarn } from "../../platform/log.ts";
import type { WriteOptions } from "../sqlite_connection.ts";
import { PG_KEY_LOCKS, PG_WRITE_LOCK } from "./constants.ts";
import { PendingTermCounts } from "./term_counts.ts";
import { markCommitInDoubt } from "./unreachable.ts";

/** What a query is sent through: the pool, or the open unit's transaction. */
export type PgQuery = Sql | ReservedSql;

/** The unit of work open in an async context. */
interface PgUnit {
  /** The unit's connection, inside the unit's transaction. */
  sql: ReservedSql;
  write: boolean;
  /** The write lock is held exclusively: no other write unit runs (so keys need no lock). */
  alone: boolean;
  /** The word index's document counts owed, written just before the commit. */
  counts: PendingTermCounts;
  /** A read unit's answers kept for its own later calls (one snapshot: they cannot change). */
  kept?: Map<string, unknown>;
  /** Set when the unit has ended (committed or rolled back). */
  ended?: boolean;
}

/** The pool, its units of work, and the repositories handed to unit bodies. */
export class PgCore<R> {
  readonly sql: Sql;
  readonly #units = new AsyncLocalStorage<PgUnit>();
  /** Savepoints made so far ({@linkcode withinUnit}), each named by its number. */
  #savepoints = 0;
  /** The repositories handed to unit bodies (`tx`); set once the rooms are built. */
  repositories!: R;

  /** Resolves once the database is open (migrated); rejects while it cannot be reached. */
  readonly #whenOpen: () => Promise<void>;

  constructor(sql: Sql, whenOpen: () => Promise<void> = () => Promise.resolve()) {
    this.sql = sql;
    this.#whenOpen = whenOpen;
  }

  /**
   * The unit the caller's async context runs in, while it is open. Work a unit started that
   * outlives it (a timer set in a `find`, such as the usage ledger's flush) keeps its async
   * context; once the unit has ended, that work runs outside any unit, as on SQLite
   * (open_unit.ts), instead of on a finished transaction.
   */
  #current(): PgUnit | undefined {
    const unit = this.#units.getStore();
    return unit === undefined || unit.ended ? undefined : unit;
  }

  /** Runs `body` as `unit`'s, and marks the unit ended when the body is done. */
  async #runAs<T>(unit: PgUnit, body: () => Promise<T>): Promise<T> {
    try {
      return await this.#units.run(unit, body);
    } finally {
      unit.ended = true;
    }
  }

  /** True when the caller runs inside a unit of work. */
  inUnit(): boolean {
    return this.#current() !== undefined;
  }

  /** True when the caller runs inside a write unit (whose changes only it sees until commit). */
  inWriteUnit(): boolean {
    return this.#current()?.write === true;
  }

  /**
   * What the caller's read unit keeps for its later calls: a read unit sees one snapshot
   * (`REPEATABLE READ`), so an answer read once in it is its answer for the whole unit (a
   * `find` asks for the index's document count three times). Undefined outside a read unit:
   * a write unit sees its own changes, and a call outside a unit sees other commits.
   */
  unitKept(): Map<string, unknown> | undefined {
    const unit = this.#current();
    if (unit === undefined || unit.write) return undefined;
    unit.kept ??= new Map();
    return unit.kept;
  }

  /** Where a room's query goes: the caller's unit, else the pool. */
  q(): PgQuery {
    return this.#current()?.sql ?? this.sql;
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
    const open = this.#current();
    if (open !== undefined) {
      if (!open.write) throw new Error("a write unit cannot run inside a read unit");
      return await body(this.repositories);
    }
    await this.#whenOpen();
    // Set once COMMIT is on its way: a connection lost after it may have lost it during COMMIT,
    // and then nobody knows whether the write committed (unreachable.ts, `commitInDoubt`).
    let committing = false;
    const alone = options.serialized !== false && options.concurrent !== true;
    const durable = options.durable !== false;
    const connection = await this.sql.reserve();
    let value: T;
    let flushed: Promise<unknown> | undefined;
    let begun: Promise<unknown> = Promise.resolve();
    let locked: Promise<unknown> = Promise.resolve();
    try {
      // BEGIN, the lock and the body's first statement go out together (pipelined on the
      // connection): PostgreSQL runs them in order, so the body's statements still run only once
      // the lock is held, but no round trip is waited for before them (`sql.begin` waited one
      // for BEGIN and the body one for the lock, two of a remember's 17).
      begun = connection.unsafe("BEGIN");
      locked = options.serialized === false
        ? connection`SELECT set_config('synchronous_commit', 'off', true)`
        : options.concurrent === true
        ? connection`SELECT pg_advisory_xact_lock_shared(${PG_WRITE_LOCK}),
          set_config('synchronous_commit', 'off', true)`
        : connection`SELECT pg_advisory_xact_lock(${PG_WRITE_LOCK}),
          set_config('synchronous_commit', 'off', true)`;
      // Sent now; a failure of either fails the body's first statement too, and is thrown below.
      begun.catch(() => {});
      locked.catch(() => {});
      const unit: PgUnit = { sql: connection, write: true, alone, counts: new PendingTermCounts() };
      value = await this.#runAs(unit, () => body(this.repositories));
      await begun;
      await locked;
      // The owed counts, COMMIT and the wait for the disk go out together too, in that order (a
      // statement is sent once something waits on it): a failed count aborts the transaction, so
      // the COMMIT behind it rolls back, and the count's error is thrown here.
      const owed = unit.counts.write(connection);
      committing = true;
      const committed = connection.unsafe("COMMIT");
      committed.catch(() => {});
      flushed = durable ? this.flushWal(connection) : undefined;
      flushed?.catch(() => {});
      await Promise.all([owed, committed]);
    } catch (error) {
      if (committing) {
        // Whatever COMMIT did, the wait for the disk behind it is over too.
        await flushed?.catch(() => {});
        connection.release();
        throw markCommitInDoubt(error);
      }
      // A failed BEGIN or lock fails the body's statements after it ("transaction aborted"):
      // its own error says why. (ROLLBACK waits behind them anyway.)
      const opening = await Promise.allSettled([begun, locked]);
      await connection.unsafe("ROLLBACK").catch(() => {});
      connection.release();
      const cause = opening.find((outcome) => outcome.status === "rejected");
      throw cause === undefined ? error : (cause as PromiseRejectedResult).reason;
    }
    try {
      options.afterCommit?.();
    } catch (error) {
      logWarn(`after a commit: ${error}`);
    }
    const synced = (flushed ?? Promise.resolve()).catch((error) => {
      // Committed, but whether it reached the disk before the connection went is unknown.
      throw markCommitInDoubt(error);
    }).finally(() => connection.release());
    try {
      await options.whileSyncing?.(value);
    } catch (error) {
      logWarn(`after a commit: ${error}`);
    }
    await synced;
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
    const open = this.#current();
    if (open === undefined || !open.write) throw new Error("claimKeys runs only inside a write");
    if (open.alone || keys.length === 0) return false;
    const sorted = [...new Set(keys)].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    await open.sql`SELECT pg_advisory_xact_lock(${PG_KEY_LOCKS}::int, hashtext(k))
      FROM unnest(${sorted}::text[]) AS u(k)`;
    return true;
  }

  /** The open write unit's owed document counts; undefined outside a write unit. */
  termCounts(): PendingTermCounts | undefined {
    const open = this.#current();
    return open?.write ? open.counts : undefined;
  }

  /** Writes the open unit's owed document counts now (a read of them inside the unit follows). */
  async settleTermCounts(): Promise<void> {
    const open = this.#current();
    if (open?.write) await open.counts.write(open.sql);
  }

  /**
   * Waits until the WAL is on disk up to now: a transaction that is given an id
   * (`txid_current()`) writes a commit record, and with `synchronous_commit` on (the session's
   * default) its commit flushes the WAL up to that record, so every commit before it too.
   */
  async flushWal(on: PgQuery = this.sql): Promise<void> {
    await on`SELECT txid_current()`;
  }

  /** {@linkcode PgCore.write}: waiting for the write lock never blocks this thread anyway. */
  writeBlocking<T>(body: (tx: R) => Promise<T>): Promise<T> {
    return this.write(body);
  }

  /**
   * Runs `body` against one consistent snapshot (`REPEATABLE READ`, read only). The unit's
   * `BEGIN` is sent without waiting for its answer, so the body's first statement goes out
   * right behind it (pipelined on the connection), and the `COMMIT` is left to finish after the
   * answer: a read-only transaction's commit changes nothing. `sql.begin` waited a round trip
   * for each, two of a `find`'s ten (bench/find_profile.ts --db-url).
   */
  async read<T>(body: (tx: R) => Promise<T>): Promise<T> {
    if (this.#current() !== undefined) return await body(this.repositories);
    await this.#whenOpen();
    const connection = await this.sql.reserve();
    const begun = connection.unsafe("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // Sent now; a failure is the body's first statement's too, and is thrown below.
    begun.catch(() => {});
    let value: T;
    try {
      value = await this.#runAs(
        { sql: connection, write: false, alone: false, counts: new PendingTermCounts() },
        () => body(this.repositories),
      );
      await begun;
    } catch (error) {
      // The snapshot ends before the connection goes back to the pool.
      await connection.unsafe("ROLLBACK").catch(() => {});
      connection.release();
      throw error;
    }
    connection.unsafe("COMMIT").catch(() => {}).finally(() => connection.release());
    return value;
  }

  /**
   * Inside a write unit: runs `body` in a savepoint, so that when it throws only its own
   * changes are undone.
   */
  async withinUnit<T>(body: () => Promise<T>): Promise<T> {
    const open = this.#current();
    if (open === undefined || !open.write) {
      throw new Error("withinUnit runs only inside a write unit");
    }
    // Savepoints nest by name; a unit's bodies run one after another, so a counter names them.
    const name = `mema_unit_${++this.#savepoints}`;
    const owed = open.counts.save();
    await open.sql.unsafe(`SAVEPOINT ${name}`);
    try {
      const value = await this.#runAs({ ...open, ended: undefined }, body);
      await open.sql.unsafe(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (error) {
      // The savepoint's rows were rolled back, so are the counts they owed.
      await open.sql.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
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
